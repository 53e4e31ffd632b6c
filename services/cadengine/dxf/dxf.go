// Package dxf reads and writes drawings as DXF files. [Read] (or
// [ReadBytes] and [ReadText], which decode a legacy code page first) takes
// what a file holds — units, the layer table, dimension styles' scales,
// the current layer, the blocks, and the entities of model space and of
// paper-space layouts, each native or preserved as the file had it — and
// says what became of every entity ([File.Report]); [File.Build] puts it
// into a new drawing, blocks first, then each entity with a fresh handle
// in file order. [Write2018] writes an AutoCAD 2018 (AC1032) ASCII file
// and [Write] an AutoCAD R12 (AC1009) one, for old readers; AutoCAD,
// ezdxf and other CAD programs open both. Preserved entities are written
// back as read (moved, when they were; turned, scaled or mirrored inside
// a block of their own), in R12 only those of the types R12 has.
//
// The round trip. A drawing written by Write2018 and read back gives the
// same drawing — layers with their colour, linetype, lineweight and
// state, the current layer, the units, blocks, and entities of equal
// fingerprints under the same handles, whenever the drawing's handles had
// no gaps and it has no blocks (which take handles first) — except that
// text and multi-line text lose control characters (multi-line text keeps
// its line breaks), and a dimension's definition points come back within
// rounding (DXF keeps other points than the engine: the definition point
// of the dimension line, a point on the circle). The document's
// constraints come back too (cadbridge's own application data, see
// [File.DropConstraint] and the XRECORD CADBRIDGE_CONSTRAINTS), over the
// entities' new handles, and a driving dimension bound as it was; other
// programs see the solved geometry.
//
// Through Write, the same holds for the entity types R12 has, except for
// what R12 cannot say:
//   - an ellipse is written as a polyline of 128 straight pieces per turn
//     and comes back as that polyline;
//   - layer lineweights are not written and come back as the default;
//   - in text, characters beyond the Basic Multilingual Plane are written,
//     and so come back, as "?", and control characters as spaces;
//   - multi-line text is written, and comes back, as one TEXT per line;
//   - a hatch is written as R12 itself stored them, an insert of an
//     anonymous block (*X) of what it draws, and comes back as that;
//   - constraints are not written: the file is the geometry only.
//
// A second round trip changes nothing.
package dxf

// Package dxf reads and writes drawings as DXF files. [Read] takes what a
// file holds that the engine models (units, the layer table, the current
// layer and the model-space entities) and [File.Build] puts it into a new
// drawing, each entity with a fresh handle from 100 on in file order;
// [Write] writes an AutoCAD R12 (AC1009) ASCII file that AutoCAD, ezdxf
// and other CAD programs open.
//
// The round trip. A drawing written by Write and read back gives the same
// drawing — layers with their colour, linetype and state, the current
// layer, the units, and entities of equal fingerprints under the same
// handles, whenever the drawing's handles had no gaps — except for what
// R12 cannot say:
//   - an ellipse is written as a polyline of 128 straight pieces per turn
//     and comes back as that polyline;
//   - layer lineweights are not written and come back as the default;
//   - in text, characters beyond the Basic Multilingual Plane are written,
//     and so come back, as "?", and control characters as spaces.
//
// A second round trip changes nothing.
package dxf

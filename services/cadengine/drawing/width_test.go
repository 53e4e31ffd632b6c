package drawing

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A polyline without widths encodes as it always did (stored documents
// and fingerprints do not change); one with widths adds them, and decodes
// back with them.
func TestPolylineWidthsEncoding(t *testing.T) {
	v := []geom.Vertex{{P: geom.Pt(1, 2), Bulge: 0.5}, {P: geom.Pt(3, 4)}}
	f := func(b []byte, x float64) []byte { return binary.BigEndian.AppendUint64(b, math.Float64bits(x)) }
	// The encoding as DESIGN's format has it: header, closed, n, x y bulge.
	var want []byte
	want = append(want, 'E', 1, byte(enginev1.EntityType_ENTITY_TYPE_POLYLINE), 1, '0', 7)
	want = append(want, "ByLayer"...)
	want = append(want, 0, 0, 1, 0, 0, 2)
	want = f(f(f(want, 1), 2), 0.5)
	want = f(f(f(want, 3), 4), 0)
	for _, g := range []Polyline{
		NewPolyline(v, false),
		NewPolyline(v, false).WithWidths(nil),
		NewPolyline(v, false).WithWidths([]geom.Width{{}, {}}),
		NewPolyline(v, false).WithWidths([]geom.Width{{}, {Start: 1, End: 1}}), // an open polyline's last widths draw nothing
	} {
		e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}
		if got := e.Encode(); !bytes.Equal(got, want) {
			t.Errorf("Encode(%+v) = %x, want %x", g, got, want)
		}
	}

	wide := NewPolyline(v, true).WithWidths([]geom.Width{{Start: 2, End: 1}, {Start: 0, End: 0.5}})
	e := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: wide}
	enc := e.Encode()
	wantWide := bytes.Clone(want)
	wantWide[len("E")+2+2+8+4] = 1 // closed
	wantWide = f(f(f(f(append(wantWide, 'W'), 2), 1), 0), 0.5)
	if !bytes.Equal(enc, wantWide) {
		t.Errorf("Encode(wide) = %x, want %x", enc, wantWide)
	}
	back, err := DecodeEntity(0x100, enc)
	if err != nil {
		t.Fatalf("DecodeEntity: %v", err)
	}
	if got := back.Geom.(Polyline); !reflect.DeepEqual(got, wide) {
		t.Errorf("DecodeEntity = %+v, want %+v", got, wide)
	}
	if _, err := DecodeEntity(0x100, enc[:len(enc)-8]); err == nil {
		t.Errorf("DecodeEntity of truncated widths succeeded")
	}
}

func TestPolylinePicture(t *testing.T) {
	v := []geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}, {P: geom.Pt(10, 10)}}
	thin := NewPolyline(v, false)
	if p := thin.Picture(); len(p.Fills) != 0 || !reflect.DeepEqual(p.Strokes, thin.Prims()) {
		t.Errorf("Picture without widths = %+v, want its pieces as strokes", p)
	}
	if got, want := thin.Bounds(), thin.Polyline.Bounds(); got != want {
		t.Errorf("Bounds without widths = %v, want %v", got, want)
	}

	// The first piece 2 wide, the second a line.
	wide := thin.WithWidths([]geom.Width{{Start: 2, End: 2}, {}, {}})
	p := wide.Picture()
	if !p.NonZero || len(p.Fills) != 1 {
		t.Fatalf("Picture = %+v, want one outline filled by the non-zero rule", p)
	}
	// The rectangle about the first piece (its run goes on into the
	// second, no wider than a line).
	for _, c := range []geom.Vec{geom.Pt(0, -1), geom.Pt(10, -1), geom.Pt(10, 1), geom.Pt(0, 1)} {
		if !slices.Contains(p.Fills[0], c) {
			t.Errorf("Picture's outline = %v, without the corner %v", p.Fills[0], c)
		}
	}
	area := 0.0
	for i, q := range p.Fills[0] {
		r := p.Fills[0][(i+1)%len(p.Fills[0])]
		area += (q.X*r.Y - q.Y*r.X) / 2
	}
	if area != 20 {
		t.Errorf("Picture's outline = %v, of area %v, want 20", p.Fills[0], area)
	}
	if want := []any{geom.Segment{A: geom.Pt(10, 0), B: geom.Pt(10, 10)}}; !reflect.DeepEqual(p.Strokes, want) {
		t.Errorf("Picture's strokes = %v, want the piece without width %v", p.Strokes, want)
	}
	// Extents hold the filled outline, as ezdxf's do.
	if got, want := wide.Bounds(), (geom.Box{Min: geom.Pt(0, -1), Max: geom.Pt(10, 10), NonEmpty: true}); got != want {
		t.Errorf("Bounds = %v, want %v", got, want)
	}
}

func TestPolylineWidthsTransformed(t *testing.T) {
	g := NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(10, 0)}}, false).WithWidths([]geom.Width{{Start: 2, End: 1}, {}})
	got := g.Transformed(geom.ScaleAbout(geom.Vec{}, 3).Then(geom.MirrorAbout(geom.Vec{}, geom.Pt(0, 1)))).(Polyline)
	if want := []geom.Width{{Start: 6, End: 3}, {}}; !reflect.DeepEqual(got.Widths, want) {
		t.Errorf("Transformed widths = %v, want %v", got.Widths, want)
	}
	// An affine map that doubles areas widens by √2.
	a := g.Affined(geom.Affine{A: 2, E: 1}).(Polyline)
	if w := a.Widths[0]; math.Abs(w.Start-2*math.Sqrt2) > 1e-12 || math.Abs(w.End-math.Sqrt2) > 1e-12 {
		t.Errorf("Affined widths = %v, want 2√2 and √2", a.Widths)
	}
	if g.Widths[0].Start != 2 {
		t.Errorf("Transformed changed the original's widths: %v", g.Widths)
	}
}

// A preserved entity that fills areas (a 2D polyline with width outside
// the plan) encodes as one without, then its areas; it draws them, filled
// by the non-zero rule, beside its outline.
func TestForeignFills(t *testing.T) {
	outline := []geom.Segment{{A: geom.Pt(0, 0), B: geom.Pt(10, 0)}}
	band := []geom.Vec{geom.Pt(0, -1), geom.Pt(10, -1), geom.Pt(10, 1), geom.Pt(0, 1)}
	thin := NewForeign("LWPOLYLINE", []Pair{{43, "2"}}, outline, append([]geom.Vec{geom.Pt(0, 0), geom.Pt(10, 0)}, band...))
	wide := thin
	wide.Fills = [][]geom.Vec{band}
	enc := func(g Geometry) []byte {
		return (&Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: g}).Encode()
	}
	a, b := enc(thin), enc(wide)
	if !bytes.HasPrefix(b, a) || b[len(a)] != 'F' {
		t.Errorf("Encode(with fills) = %x, want Encode(without) %x, then 'F' and the fills", b, a)
	}
	back, err := DecodeEntity(0x100, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Geom.(Foreign).Fills; !reflect.DeepEqual(got, wide.Fills) {
		t.Errorf("DecodeEntity fills = %v, want %v", got, wide.Fills)
	}
	p := wide.Picture()
	if !p.NonZero || !reflect.DeepEqual(p.Fills, wide.Fills) || len(p.Strokes) != 1 {
		t.Errorf("Picture = %+v, want the outline stroked and the band filled (non-zero)", p)
	}
	moved := wide.Transformed(geom.Translate(geom.Pt(5, 5))).(Foreign)
	if got := moved.Fills[0][0]; got != geom.Pt(5, 4) {
		t.Errorf("Transformed fills start at %v, want (5, 4)", got)
	}
	if q := thin.Picture(); q.Fills != nil {
		t.Errorf("Picture without fills = %+v, want none", q)
	}
}

package drawing

import (
	"math"
	"slices"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// samePoints reports whether got and want hold the same points, within
// Tolerance, in any order.
func samePoints(got, want []geom.Vec) bool {
	if len(got) != len(want) {
		return false
	}
	left := slices.Clone(got)
	for _, w := range want {
		i := slices.IndexFunc(left, w.Same)
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

func TestSnapCandidates(t *testing.T) {
	line := Line{geom.Pt(0, 0), geom.Pt(4, 0)}
	arc90, _ := NewArc(geom.Pt(0, 0), 2, 0, 90)
	circle := Circle{C: geom.Pt(1, 1), R: 1}
	poly := NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0)}, {P: geom.Pt(2, 0), Bulge: 1}, {P: geom.Pt(2, 2)}}, false)
	ellipse, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 360)
	halfEllipse, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 180)
	const (
		end    = enginev1.SnapKind_SNAP_KIND_END
		mid    = enginev1.SnapKind_SNAP_KIND_MID
		center = enginev1.SnapKind_SNAP_KIND_CENTER
		quad   = enginev1.SnapKind_SNAP_KIND_QUAD
		perp   = enginev1.SnapKind_SNAP_KIND_PERP
		nearS  = enginev1.SnapKind_SNAP_KIND_NEAR
	)
	r2 := math.Sqrt2
	tests := []struct {
		name string
		g    Geometry
		kind enginev1.SnapKind
		ref  geom.Vec
		want []geom.Vec
	}{
		{"line end", line, end, geom.Vec{}, []geom.Vec{geom.Pt(0, 0), geom.Pt(4, 0)}},
		{"line mid", line, mid, geom.Vec{}, []geom.Vec{geom.Pt(2, 0)}},
		{"line perp", line, perp, geom.Pt(3, 5), []geom.Vec{geom.Pt(3, 0)}},
		{"line perp beyond the segment", line, perp, geom.Pt(5, 5), nil},
		{"line near clamps to the end", line, nearS, geom.Pt(9, 1), []geom.Vec{geom.Pt(4, 0)}},
		{"line has no centre", line, center, geom.Vec{}, nil},
		{"arc end", arc90, end, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 2)}},
		{"arc mid", arc90, mid, geom.Vec{}, []geom.Vec{geom.Pt(r2, r2)}},
		{"arc quad within sweep", arc90, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 2)}},
		{"arc perp", arc90, perp, geom.Pt(3, 3), []geom.Vec{geom.Pt(r2, r2)}},
		{"arc perp outside sweep", arc90, perp, geom.Pt(-3, 1), nil},
		{"arc perp: the far foot", arc90, perp, geom.Pt(-3, -3), []geom.Vec{geom.Pt(r2, r2)}},
		{"arc near outside sweep picks an end", arc90, nearS, geom.Pt(1, -5), []geom.Vec{geom.Pt(2, 0)}},
		{"circle quad", circle, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 1), geom.Pt(1, 2), geom.Pt(0, 1), geom.Pt(1, 0)}},
		{"circle perp", circle, perp, geom.Pt(1, 5), []geom.Vec{geom.Pt(1, 2), geom.Pt(1, 0)}},
		{"circle near", circle, nearS, geom.Pt(1, 5), []geom.Vec{geom.Pt(1, 2)}},
		{"circle has no end", circle, end, geom.Vec{}, nil},
		{"polyline end (vertices)", poly, end, geom.Vec{}, []geom.Vec{geom.Pt(0, 0), geom.Pt(2, 0), geom.Pt(2, 2)}},
		{"polyline mid (bulge at its middle)", poly, mid, geom.Vec{}, []geom.Vec{geom.Pt(1, 0), geom.Pt(3, 1)}},
		{"polyline center of the bulge arc", poly, center, geom.Vec{}, []geom.Vec{geom.Pt(2, 1)}},
		{"ellipse quad (axis ends)", ellipse, quad, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(0, 1), geom.Pt(-2, 0), geom.Pt(0, -1)}},
		{"ellipse perp", ellipse, perp, geom.Pt(0, 5), []geom.Vec{geom.Pt(0, 1), geom.Pt(0, -1)}},
		{"ellipse near", ellipse, nearS, geom.Pt(0, 5), []geom.Vec{geom.Pt(0, 1)}},
		{"half ellipse end", halfEllipse, end, geom.Vec{}, []geom.Vec{geom.Pt(2, 0), geom.Pt(-2, 0)}},
		{"half ellipse mid (by length)", halfEllipse, mid, geom.Vec{}, []geom.Vec{geom.Pt(0, 1)}},
		{"point answers every snap", Point{geom.Pt(3, 4)}, quad, geom.Vec{}, []geom.Vec{geom.Pt(3, 4)}},
	}
	for _, tt := range tests {
		got := SnapCandidates(tt.g, tt.kind, tt.ref)
		if tt.kind == nearS && len(got) > 0 {
			p, _ := geom.NearestTo(got, tt.ref)
			got = []geom.Vec{p}
		}
		if !samePoints(got, tt.want) {
			t.Errorf("%s: candidates = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTransforms(t *testing.T) {
	check := func(name string, got, want Geometry) {
		t.Helper()
		ge := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: got}
		we := &Entity{Layer: "0", Linetype: "ByLayer", Color: 256, Geom: want}
		if ge.Seal().fp != we.Seal().fp {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
	arc, _ := NewArc(geom.Pt(1, 0), 1, 0, 90)
	check("rotate a line 90° about the origin (exact)", Line{geom.Pt(1, 0), geom.Pt(2, 0)}.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Line{geom.Pt(0, 1), geom.Pt(0, 2)})
	check("rotate an arc 90°", arc.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Arc{C: geom.Pt(0, 1), R: 1, Start: 90, End: 180})
	check("rotate an arc 300° wraps", arc.Transformed(geom.RotateAbout(geom.Pt(1, 0), 300)), Arc{C: geom.Pt(1, 0), R: 1, Start: 300, End: 30})
	check("rotate about a base", Point{geom.Pt(2, 1)}.Transformed(geom.RotateAbout(geom.Pt(1, 1), 180)), Point{geom.Pt(0, 1)})
	check("scale a circle about a base", Circle{C: geom.Pt(2, 0), R: 1}.Transformed(geom.ScaleAbout(geom.Pt(1, 0), 3)), Circle{C: geom.Pt(4, 0), R: 3})
	check("mirror an arc about the y axis", arc.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))), Arc{C: geom.Pt(-1, 0), R: 1, Start: 90, End: 180})
	check("mirror an arc about the x axis", arc.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Arc{C: geom.Pt(1, 0), R: 1, Start: 270, End: 0})
	poly := NewPolyline([]geom.Vertex{{P: geom.Pt(0, 0), Bulge: 0.5}, {P: geom.Pt(1, 0)}}, false)
	check("mirror negates bulges", poly.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Polyline{Polyline: geom.Polyline{V: []geom.Vertex{{P: geom.Pt(0, 0), Bulge: -0.5}, {P: geom.Pt(1, 0)}}}})
	ell, _ := NewEllipse(geom.Vec{}, geom.Pt(2, 0), 0.5, 0, 90)
	check("mirror an elliptical arc about the x axis", ell.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 0))), Ellipse{Major: geom.Pt(2, 0), Ratio: 0.5, Start: 270, End: 0})
	check("rotate an ellipse keeps its parameters", ell.Transformed(geom.RotateAbout(geom.Vec{}, 90)), Ellipse{Major: geom.Pt(0, 2), Ratio: 0.5, Start: 0, End: 90})
	check("mirror text keeps it readable", Text{Text: "A", P: geom.Pt(1, 1), Height: 2, Rotation: 30}.Transformed(geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(0, 1))), Text{Text: "A", P: geom.Pt(-1, 1), Height: 2, Rotation: 30})

	// The mirrored elliptical arc covers the mirrored points.
	m := geom.MirrorAbout(geom.Pt(0, 0), geom.Pt(1, 1))
	img := ell.Transformed(m).(Ellipse).Arc()
	for _, t0 := range []float64{0, 0.3, 1, math.Pi / 2} {
		p := m.Point(ell.Arc().At(t0))
		if q := img.Closest(p); !q.Same(p) {
			t.Errorf("mirror of ellipse point %v is %v, not on the image (nearest %v)", ell.Arc().At(t0), p, q)
		}
	}
	// Reflecting twice is the identity.
	twice := arc.Transformed(m).Transformed(m)
	check("mirror twice", twice, arc)
}

func TestBounds(t *testing.T) {
	arc, _ := NewArc(geom.Pt(0, 0), 1, 45, 135)
	b := arc.Bounds()
	r := math.Sqrt2 / 2
	if !b.Min.Same(geom.Pt(-r, r)) || !b.Max.Same(geom.Pt(r, 1)) {
		t.Errorf("arc 45°-135° bounds = %v %v, want (-%g,%g) (%g,1)", b.Min, b.Max, r, r, r)
	}
	// An ellipse with major axis along the diagonal.
	ell, _ := NewEllipse(geom.Vec{}, geom.Pt(math.Sqrt2, math.Sqrt2), 0.5, 0, 360)
	b = ell.Bounds()
	// Half-width: sqrt(a²cos²θ + b²sin²θ) with a=2, b=1, θ=45°.
	w := math.Sqrt(4*0.5 + 1*0.5)
	if !b.Min.Same(geom.Pt(-w, -w)) || !b.Max.Same(geom.Pt(w, w)) {
		t.Errorf("rotated ellipse bounds = %v %v, want ±%v", b.Min, b.Max, w)
	}
}

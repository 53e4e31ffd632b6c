package core

import (
	"errors"
	"math"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

func sameVecs(got, want []vec) bool {
	if len(got) != len(want) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.same(w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func circleArc(c vec, r float64) arc { return arc{c: c, r: r, sweep: 2 * math.Pi} }

func degArc(c vec, r, start, end float64) arc {
	g, err := newArcGeom(c, r, start, end)
	if err != nil {
		panic(err)
	}
	return g.arc()
}

func TestIntersect(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	tests := []struct {
		name string
		p, q any
		want []vec
		err  error
	}{
		{"lines cross", segment{vec{0, 0}, vec{2, 2}}, segment{vec{0, 2}, vec{2, 0}}, []vec{{1, 1}}, nil},
		{"lines miss (segments too short)", segment{vec{0, 0}, vec{1, 1}}, segment{vec{3, 0}, vec{2, 1}}, nil, nil},
		{"lines meet at an end", segment{vec{0, 0}, vec{1, 0}}, segment{vec{1, 0}, vec{1, 5}}, []vec{{1, 0}}, nil},
		{"parallel lines", segment{vec{0, 0}, vec{1, 0}}, segment{vec{0, 1}, vec{1, 1}}, nil, nil},
		{"collinear lines touching", segment{vec{0, 0}, vec{1, 0}}, segment{vec{1, 0}, vec{2, 0}}, []vec{{1, 0}}, nil},
		{"collinear lines overlapping", segment{vec{0, 0}, vec{2, 0}}, segment{vec{1, 0}, vec{3, 0}}, nil, errOverlap},
		{"collinear lines apart", segment{vec{0, 0}, vec{1, 0}}, segment{vec{2, 0}, vec{3, 0}}, nil, nil},
		{"line through circle", segment{vec{-2, 0}, vec{2, 0}}, circleArc(vec{}, 1), []vec{{-1, 0}, {1, 0}}, nil},
		{"line tangent to circle", segment{vec{-2, 1}, vec{2, 1}}, circleArc(vec{}, 1), []vec{{0, 1}}, nil},
		{"line misses circle", segment{vec{-2, 1.5}, vec{2, 1.5}}, circleArc(vec{}, 1), nil, nil},
		{"line ends inside circle", segment{vec{0, 0}, vec{0.5, 0}}, circleArc(vec{}, 1), nil, nil},
		{"line crosses arc in its sweep", segment{vec{0, 0}, vec{2, 2}}, degArc(vec{}, 1, 0, 90), []vec{{math.Sqrt2 / 2, math.Sqrt2 / 2}}, nil},
		{"line meets the circle outside the arc", segment{vec{-2, 0}, vec{0, 0}}, degArc(vec{}, 1, 0, 90), nil, nil},
		{"line through arc: one of two in sweep", segment{vec{-2, 0.5}, vec{2, 0.5}}, degArc(vec{}, 1, 0, 90), []vec{{s3, 0.5}}, nil},
		{"line at arc end point", segment{vec{0, 0}, vec{0, 2}}, degArc(vec{}, 1, 0, 90), []vec{{0, 1}}, nil},
		{"arc wrapping through 0°", segment{vec{0, 0}, vec{2, 0}}, degArc(vec{}, 1, 300, 30), []vec{{1, 0}}, nil},
		{"circles cross", circleArc(vec{0, 0}, 1), circleArc(vec{1, 0}, 1), []vec{{0.5, s3}, {0.5, -s3}}, nil},
		{"circles touch outside", circleArc(vec{0, 0}, 1), circleArc(vec{3, 0}, 2), []vec{{1, 0}}, nil},
		{"circles touch inside", circleArc(vec{0, 0}, 3), circleArc(vec{1, 0}, 2), []vec{{3, 0}}, nil},
		{"circles apart", circleArc(vec{0, 0}, 1), circleArc(vec{5, 0}, 1), nil, nil},
		{"circle inside circle", circleArc(vec{0, 0}, 5), circleArc(vec{1, 0}, 1), nil, nil},
		{"concentric", circleArc(vec{0, 0}, 5), circleArc(vec{0, 0}, 1), nil, nil},
		{"same circle", circleArc(vec{0, 0}, 1), circleArc(vec{0, 0}, 1), nil, errOverlap},
		{"arcs: one crossing in both sweeps", degArc(vec{0, 0}, 1, 0, 180), degArc(vec{1, 0}, 1, 0, 180), []vec{{0.5, s3}}, nil},
		{"arcs: crossings outside a sweep", degArc(vec{0, 0}, 1, 180, 360), degArc(vec{1, 0}, 1, 0, 180), nil, nil},
		{"same circle, arcs share an end", degArc(vec{}, 1, 0, 90), degArc(vec{}, 1, 90, 180), []vec{{0, 1}}, nil},
		{"same circle, complementary arcs", degArc(vec{}, 1, 0, 180), degArc(vec{}, 1, 180, 0), []vec{{1, 0}, {-1, 0}}, nil},
		{"same circle, overlapping arcs", degArc(vec{}, 1, 0, 90), degArc(vec{}, 1, 45, 135), nil, errOverlap},
		{"same circle, disjoint arcs", degArc(vec{}, 1, 0, 45), degArc(vec{}, 1, 90, 135), nil, nil},
		{"line through ellipse", segment{vec{-3, 0}, vec{3, 0}}, ellipseArc{major: vec{2, 0}, ratio: 0.5, sweep: 2 * math.Pi}, []vec{{-2, 0}, {2, 0}}, nil},
		{"line through rotated ellipse", segment{vec{0, -3}, vec{0, 3}}, ellipseArc{major: vec{0, 2}, ratio: 0.5, sweep: 2 * math.Pi}, []vec{{0, -2}, {0, 2}}, nil},
		{"line through half ellipse", segment{vec{0, -3}, vec{0, 3}}, ellipseArc{major: vec{2, 0}, ratio: 0.5, start: 0, sweep: math.Pi}, []vec{{0, 1}}, nil},
		{"ellipse and circle touch", ellipseArc{major: vec{2, 0}, ratio: 0.5, sweep: 2 * math.Pi}, circleArc(vec{}, 1), []vec{{0, 1}, {0, -1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := intersect(tt.p, tt.q)
			if !errors.Is(err, tt.err) {
				t.Fatalf("intersect error = %v, want %v", err, tt.err)
			}
			if !sameVecs(got, tt.want) {
				t.Errorf("intersect = %v, want %v", got, tt.want)
			}
			// Symmetric.
			back, err := intersect(tt.q, tt.p)
			if !errors.Is(err, tt.err) || !sameVecs(back, tt.want) {
				t.Errorf("intersect reversed = %v, %v; want %v", back, err, tt.want)
			}
		})
	}
}

func TestTangentPoints(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	tests := []struct {
		name string
		p    vec
		want []vec
	}{
		{"outside", vec{2, 0}, []vec{{0.5, s3}, {0.5, -s3}}},
		{"on the circle", vec{0, 1}, []vec{{0, 1}}},
		{"inside", vec{0.5, 0}, nil},
	}
	for _, tt := range tests {
		got := tangentPoints(vec{}, 1, tt.p)
		if !sameVecs(got, tt.want) {
			t.Errorf("%s: tangentPoints = %v, want %v", tt.name, got, tt.want)
		}
		for _, q := range got {
			// The radius to a tangent point is perpendicular to the line.
			if d := q.dot(tt.p.sub(q)); math.Abs(d) > 1e-12 {
				t.Errorf("%s: radius · tangent = %g, want 0", tt.name, d)
			}
		}
	}
}

func TestSnapCandidates(t *testing.T) {
	line := lineGeom{vec{0, 0}, vec{4, 0}}
	arc90, _ := newArcGeom(vec{0, 0}, 2, 0, 90)
	circle := circleGeom{c: vec{1, 1}, r: 1}
	poly := newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{2, 0}, bulge: 1}, {p: vec{2, 2}}}, false)
	ellipse, _ := newEllipseGeom(vec{}, vec{2, 0}, 0.5, 0, 360)
	halfEllipse, _ := newEllipseGeom(vec{}, vec{2, 0}, 0.5, 0, 180)
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
		g    geometry
		kind enginev1.SnapKind
		ref  vec
		want []vec
	}{
		{"line end", line, end, vec{}, []vec{{0, 0}, {4, 0}}},
		{"line mid", line, mid, vec{}, []vec{{2, 0}}},
		{"line perp", line, perp, vec{3, 5}, []vec{{3, 0}}},
		{"line perp beyond the segment", line, perp, vec{5, 5}, nil},
		{"line near clamps to the end", line, nearS, vec{9, 1}, []vec{{4, 0}}},
		{"line has no centre", line, center, vec{}, nil},
		{"arc end", arc90, end, vec{}, []vec{{2, 0}, {0, 2}}},
		{"arc mid", arc90, mid, vec{}, []vec{{r2, r2}}},
		{"arc quad within sweep", arc90, quad, vec{}, []vec{{2, 0}, {0, 2}}},
		{"arc perp", arc90, perp, vec{3, 3}, []vec{{r2, r2}}},
		{"arc perp outside sweep", arc90, perp, vec{-3, 1}, nil},
		{"arc perp: the far foot", arc90, perp, vec{-3, -3}, []vec{{r2, r2}}},
		{"arc near outside sweep picks an end", arc90, nearS, vec{1, -5}, []vec{{2, 0}}},
		{"circle quad", circle, quad, vec{}, []vec{{2, 1}, {1, 2}, {0, 1}, {1, 0}}},
		{"circle perp", circle, perp, vec{1, 5}, []vec{{1, 2}, {1, 0}}},
		{"circle near", circle, nearS, vec{1, 5}, []vec{{1, 2}}},
		{"circle has no end", circle, end, vec{}, nil},
		{"polyline end (vertices)", poly, end, vec{}, []vec{{0, 0}, {2, 0}, {2, 2}}},
		{"polyline mid (bulge at its middle)", poly, mid, vec{}, []vec{{1, 0}, {3, 1}}},
		{"polyline center of the bulge arc", poly, center, vec{}, []vec{{2, 1}}},
		{"ellipse quad (axis ends)", ellipse, quad, vec{}, []vec{{2, 0}, {0, 1}, {-2, 0}, {0, -1}}},
		{"ellipse perp", ellipse, perp, vec{0, 5}, []vec{{0, 1}, {0, -1}}},
		{"ellipse near", ellipse, nearS, vec{0, 5}, []vec{{0, 1}}},
		{"half ellipse end", halfEllipse, end, vec{}, []vec{{2, 0}, {-2, 0}}},
		{"half ellipse mid (by length)", halfEllipse, mid, vec{}, []vec{{0, 1}}},
		{"point answers every snap", pointGeom{vec{3, 4}}, quad, vec{}, []vec{{3, 4}}},
	}
	for _, tt := range tests {
		got := snapCandidates(tt.g, tt.kind, tt.ref)
		if tt.kind == nearS && len(got) > 0 {
			p, _ := nearestTo(got, tt.ref)
			got = []vec{p}
		}
		if !sameVecs(got, tt.want) {
			t.Errorf("%s: candidates = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBulges(t *testing.T) {
	// A semicircle from (0,0) to (2,0), bulge 1: counter-clockwise, so it
	// bows below the chord, through (1,-1).
	a := bulgeArc(vec{0, 0}, vec{2, 0}, 1)
	if !a.c.same(vec{1, 0}) || !eq(a.r, 1) || !eq(a.sweep, math.Pi) || !a.at(a.start+a.sweep/2).same(vec{1, -1}) {
		t.Errorf("bulge 1 arc = %+v, want centre (1,0), radius 1, through (1,-1)", a)
	}
	b := bulgeArc(vec{0, 0}, vec{2, 0}, -1)
	if !b.at(b.start+b.sweep/2).same(vec{1, 1}) || !b.first().same(vec{0, 0}) || !b.last().same(vec{2, 0}) {
		t.Errorf("bulge -1 arc = %+v, want through (1,1) from (0,0) to (2,0)", b)
	}
	// A quarter arc: bulge tan(22.5°).
	q := bulgeArc(vec{1, 0}, vec{0, 1}, math.Tan(math.Pi/8))
	if !q.c.same(vec{0, 0}) || !eq(q.r, 1) || !eq(q.length(), math.Pi/2) {
		t.Errorf("quarter bulge arc = %+v, want centre origin, radius 1", q)
	}

	tests := []struct {
		name         string
		g            polylineGeom
		length, area float64
	}{
		{"circle of two bulges", newPolylineGeom([]vertex{{p: vec{-1, 0}, bulge: 1}, {p: vec{1, 0}, bulge: 1}}, true), 2 * math.Pi, math.Pi},
		{"square", newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{1, 0}}, {p: vec{1, 1}}, {p: vec{0, 1}}}, true), 4, 1},
		{"square, clockwise", newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{0, 1}}, {p: vec{1, 1}}, {p: vec{1, 0}}}, true), 4, 1},
		// Counter-clockwise square whose bottom edge bulges out (down).
		{"square with an outward semicircle", newPolylineGeom([]vertex{{p: vec{0, 0}, bulge: 1}, {p: vec{1, 0}}, {p: vec{1, 1}}, {p: vec{0, 1}}}, true), 3 + math.Pi/2, 1 + math.Pi/8},
		// The same bulge bows inwards on a clockwise square.
		{"clockwise square with an inward semicircle", newPolylineGeom([]vertex{{p: vec{0, 1}}, {p: vec{1, 1}}, {p: vec{1, 0}, bulge: 1}, {p: vec{0, 0}}}, true), 3 + math.Pi/2, 1 - math.Pi/8},
		{"open polyline ignores its last bulge", newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{3, 4}, bulge: 1}}, false), 5, 0},
	}
	for _, tt := range tests {
		if got := tt.g.length(); !eq(got, tt.length) {
			t.Errorf("%s: length = %v, want %v", tt.name, got, tt.length)
		}
		if tt.g.closed {
			if got := tt.g.area(); !eq(got, tt.area) {
				t.Errorf("%s: area = %v, want %v", tt.name, got, tt.area)
			}
		}
	}
}

func TestEllipseLength(t *testing.T) {
	// Perimeter of a=2, b=1 (reference value from the complete elliptic
	// integral).
	const want = 9.688448220547675
	if got := ellipsePerimeter(2, 1); math.Abs(got-want) > 1e-12 {
		t.Errorf("ellipsePerimeter(2, 1) = %.15g, want %.15g", got, want)
	}
	if got := ellipsePerimeter(3, 3); !eq(got, 6*math.Pi) {
		t.Errorf("ellipsePerimeter(3, 3) = %v, want 6π", got)
	}
	e := ellipseArc{major: vec{0, 2}, ratio: 0.5, start: 0, sweep: 2*math.Pi - 1e-12}
	if got := e.arcLength(0, 2*math.Pi); math.Abs(got-want) > 1e-9 {
		t.Errorf("integrated perimeter = %.15g, want %.15g", got, want)
	}
	quarter := ellipseArc{major: vec{2, 0}, ratio: 0.5, start: 0, sweep: math.Pi / 2}
	if got := quarter.length(); math.Abs(got-want/4) > 1e-9 {
		t.Errorf("quarter ellipse length = %.15g, want %.15g", got, want/4)
	}
	thin := ellipseArc{major: vec{1, 0}, ratio: 1e-6, sweep: math.Pi}
	if got := thin.arcLength(0, math.Pi); math.Abs(got-2) > 1e-6 {
		t.Errorf("half of a very thin ellipse = %v, want about 2", got)
	}
}

func TestTransforms(t *testing.T) {
	check := func(name string, got, want geometry) {
		t.Helper()
		ge := &entity{layer: "0", linetype: "ByLayer", color: 256, geom: got}
		we := &entity{layer: "0", linetype: "ByLayer", color: 256, geom: want}
		if ge.seal().fp != we.seal().fp {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
	arc, _ := newArcGeom(vec{1, 0}, 1, 0, 90)
	check("rotate a line 90° about the origin (exact)", lineGeom{vec{1, 0}, vec{2, 0}}.transformed(rotateAbout(vec{}, 90)), lineGeom{vec{0, 1}, vec{0, 2}})
	check("rotate an arc 90°", arc.transformed(rotateAbout(vec{}, 90)), arcGeom{c: vec{0, 1}, r: 1, start: 90, end: 180})
	check("rotate an arc 300° wraps", arc.transformed(rotateAbout(vec{1, 0}, 300)), arcGeom{c: vec{1, 0}, r: 1, start: 300, end: 30})
	check("rotate about a base", pointGeom{vec{2, 1}}.transformed(rotateAbout(vec{1, 1}, 180)), pointGeom{vec{0, 1}})
	check("scale a circle about a base", circleGeom{c: vec{2, 0}, r: 1}.transformed(scaleAbout(vec{1, 0}, 3)), circleGeom{c: vec{4, 0}, r: 3})
	check("mirror an arc about the y axis", arc.transformed(mirrorAbout(vec{0, 0}, vec{0, 1})), arcGeom{c: vec{-1, 0}, r: 1, start: 90, end: 180})
	check("mirror an arc about the x axis", arc.transformed(mirrorAbout(vec{0, 0}, vec{1, 0})), arcGeom{c: vec{1, 0}, r: 1, start: 270, end: 0})
	poly := newPolylineGeom([]vertex{{p: vec{0, 0}, bulge: 0.5}, {p: vec{1, 0}}}, false)
	check("mirror negates bulges", poly.transformed(mirrorAbout(vec{0, 0}, vec{1, 0})), polylineGeom{v: []vertex{{p: vec{0, 0}, bulge: -0.5}, {p: vec{1, 0}}}})
	ell, _ := newEllipseGeom(vec{}, vec{2, 0}, 0.5, 0, 90)
	check("mirror an elliptical arc about the x axis", ell.transformed(mirrorAbout(vec{0, 0}, vec{1, 0})), ellipseGeom{major: vec{2, 0}, ratio: 0.5, start: 270, end: 0})
	check("rotate an ellipse keeps its parameters", ell.transformed(rotateAbout(vec{}, 90)), ellipseGeom{major: vec{0, 2}, ratio: 0.5, start: 0, end: 90})
	check("mirror text keeps it readable", textGeom{text: "A", p: vec{1, 1}, height: 2, rotation: 30}.transformed(mirrorAbout(vec{0, 0}, vec{0, 1})), textGeom{text: "A", p: vec{-1, 1}, height: 2, rotation: 30})

	// The mirrored elliptical arc covers the mirrored points.
	m := mirrorAbout(vec{0, 0}, vec{1, 1})
	img := ell.transformed(m).(ellipseGeom).arc()
	for _, t0 := range []float64{0, 0.3, 1, math.Pi / 2} {
		p := m.point(ell.arc().at(t0))
		if q := img.closest(p); !q.same(p) {
			t.Errorf("mirror of ellipse point %v is %v, not on the image (nearest %v)", ell.arc().at(t0), p, q)
		}
	}
	// Reflecting twice is the identity.
	twice := arc.transformed(m).transformed(m)
	check("mirror twice", twice, arc)
}

func TestOffsetPolyline(t *testing.T) {
	square := newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{4, 0}}, {p: vec{4, 4}}, {p: vec{0, 4}}}, true)
	g, err := offsetPolyline(square, 1) // counter-clockwise: left is inside
	if err != nil {
		t.Fatal(err)
	}
	want := []vec{{1, 1}, {3, 1}, {3, 3}, {1, 3}}
	for i, v := range g.(polylineGeom).v {
		if !v.p.same(want[i]) {
			t.Errorf("inward offset vertex %d = %v, want %v", i, v.p, want[i])
		}
	}
	g, err = offsetPolyline(square, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.(polylineGeom).area(); !eq(got, 36) {
		t.Errorf("outward offset area = %v, want 36", got)
	}
	if _, err := offsetPolyline(square, 2.5); err == nil {
		t.Error("offsetting a 4×4 square inwards by 2.5 succeeded, want failure")
	}
	open := newPolylineGeom([]vertex{{p: vec{0, 0}}, {p: vec{2, 0}}, {p: vec{2, 0}}, {p: vec{2, 2}}}, false)
	g, err = offsetPolyline(open, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = []vec{{0, 1}, {1, 1}, {1, 2}}
	for i, v := range g.(polylineGeom).v {
		if !v.p.same(want[i]) {
			t.Errorf("open offset vertex %d = %v, want %v", i, v.p, want[i])
		}
	}
}

func TestBounds(t *testing.T) {
	arc, _ := newArcGeom(vec{0, 0}, 1, 45, 135)
	b := arc.bounds()
	r := math.Sqrt2 / 2
	if !b.min.same(vec{-r, r}) || !b.max.same(vec{r, 1}) {
		t.Errorf("arc 45°-135° bounds = %v %v, want (-%g,%g) (%g,1)", b.min, b.max, r, r, r)
	}
	// An ellipse with major axis along the diagonal.
	ell, _ := newEllipseGeom(vec{}, vec{math.Sqrt2, math.Sqrt2}, 0.5, 0, 360)
	b = ell.bounds()
	// Half-width: sqrt(a²cos²θ + b²sin²θ) with a=2, b=1, θ=45°.
	w := math.Sqrt(4*0.5 + 1*0.5)
	if !b.min.same(vec{-w, -w}) || !b.max.same(vec{w, w}) {
		t.Errorf("rotated ellipse bounds = %v %v, want ±%v", b.min, b.max, w)
	}
}

func TestNormDeg(t *testing.T) {
	for in, want := range map[float64]float64{0: 0, 360: 0, -90: 270, 725: 5, -1e-300: 0, 359.5: 359.5} {
		if got := normDeg(in); got != want {
			t.Errorf("normDeg(%v) = %v, want %v", in, got, want)
		}
	}
}

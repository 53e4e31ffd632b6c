package engine_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// partVertices reads a polyline's points from entity_get.
func partVertices(t *testing.T, e obj) [][2]float64 {
	t.Helper()
	if e["type"] != "polyline" || e["closed"] != true {
		t.Fatalf("entity = %s, want a closed polyline", js(e))
	}
	var out [][2]float64
	for _, p := range e["points"].([]any) {
		out = append(out, pt(p))
	}
	return out
}

// TestPartSpurGear draws gears of random module and teeth and checks
// what the tool answers and draws against the ISO 53 rack's diameters
// (the involute itself is geom's tests'): tip m(z+2), root m(z−2.5),
// pitch m z, base m z cos α; the outline's vertices reach from the root
// circle to the tip circle, the same number for each tooth; the bore is
// a circle about the centre.
func TestPartSpurGear(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	f := newFixture(t)
	for i := range 8 {
		m, z := 0.5+rng.Float64()*6, 6+rng.IntN(80)
		alpha := 20.0
		args := obj{"cx": 10.5, "cy": -3, "module": m, "teeth": z}
		if i%2 == 1 {
			alpha = 14.5 + rng.Float64()*10
			args["pressure_angle"] = alpha
		}
		root := m * (float64(z) - 2.5)
		args["bore"] = root / 2
		res := f.ok(enginev1.ToolPartSpurGear, args)
		for k, want := range map[string]float64{
			"pitch_diameter": m * float64(z),
			"tip_diameter":   m * float64(z+2),
			"root_diameter":  root,
			"base_diameter":  m * float64(z) * math.Cos(alpha*math.Pi/180),
		} {
			if !near(res[k].(float64), want) {
				t.Errorf("%v: %s = %v, want %v", args, k, res[k], want)
			}
		}
		// Undercut below the rack's limit 2 / sin²α, rounded (17 at 20°).
		if want := float64(z) < math.Round(2/math.Pow(math.Sin(alpha*math.Pi/180), 2)); res["undercut"] != want {
			t.Errorf("%v: undercut = %v, want %v", args, res["undercut"], want)
		}
		points := partVertices(t, f.get(res["handle"].(string)))
		if len(points)%z != 0 {
			t.Errorf("%v: %d vertices, not the same for each of %d teeth", args, len(points), z)
		}
		lo, hi := math.Inf(1), 0.0
		for _, p := range points {
			r := math.Hypot(p[0]-10.5, p[1]+3)
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
		if !near(lo, root/2) || !near(hi, m*float64(z+2)/2) {
			t.Errorf("%v: vertices at radii %v to %v, want %v to %v", args, lo, hi, root/2, m*float64(z+2)/2)
		}
		bore := f.get(res["bore"].(string))
		if bore["type"] != "circle" || !nearPt(pt(bore["center"]), [2]float64{10.5, -3}) || !near(bore["radius"].(float64), root/4) {
			t.Errorf("%v: bore = %s, want a circle of radius %v about (10.5, -3)", args, js(bore), root/4)
		}
	}
	if res := f.ok(enginev1.ToolPartSpurGear, obj{"cx": 0, "cy": 0, "module": 1, "teeth": 30}); res["bore"] != nil {
		t.Errorf("a gear without a bore answered bore %v", res["bore"])
	}
}

func TestPartSpurGearRefuses(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		args   obj
		path   string
		reason enginev1.ViolationReason
	}{
		{obj{"cx": 0, "cy": 0, "module": 1, "teeth": 5}, "/teeth", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{obj{"cx": 0, "cy": 0, "module": 0, "teeth": 20}, "/module", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{obj{"cx": 0, "cy": 0, "module": -2, "teeth": 20}, "/module", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{obj{"cx": 0, "cy": 0, "module": 1, "teeth": 20, "pressure_angle": 35}, "/pressure_angle", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{obj{"cx": 0, "cy": 0, "module": 2, "teeth": 20, "bore": 35}, "/bore", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE}, // root diameter 35
	} {
		e := f.fail(enginev1.ToolPartSpurGear, c.args, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
		if e.GetPath() != c.path || e.GetReason() != c.reason {
			t.Errorf("%v: error %v, want %s %v", c.args, e, c.path, c.reason)
		}
	}
	if n := f.info().EntityCount; n != 0 {
		t.Errorf("refused gears left %d entities", n)
	}
}

// keywayOf is what a keyed outline measures: its notch's width and the
// distance from the centre to the notch's flat, along the direction
// angle (degrees).
func keywayOf(points [][2]float64, cx, cy, angle float64) (width, top float64) {
	u := [2]float64{math.Cos(angle * math.Pi / 180), math.Sin(angle * math.Pi / 180)}
	// The flat is the last two vertices (see geom.KeyedCircle); measure
	// them in the notch's frame.
	a, b := points[len(points)-2], points[len(points)-1]
	along := func(p [2]float64) float64 { return (p[0]-cx)*u[0] + (p[1]-cy)*u[1] }
	across := func(p [2]float64) float64 { return -(p[0]-cx)*u[1] + (p[1]-cy)*u[0] }
	if !near(along(a), along(b)) {
		return math.NaN(), math.NaN()
	}
	return math.Abs(across(a) - across(b)), along(a)
}

// TestPartKeyway checks rows of DIN 6885-1 (as the makers' tables
// print them) in a hub, a shaft, and an inch document.
func TestPartKeyway(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		bore, angle  float64
		kind         string
		b, h, t1, t2 float64
	}{
		{7, 90, "", 2, 2, 1.2, 1.0},
		{20, 0, "hub", 6, 6, 3.5, 2.8},
		{34, 90, "", 10, 8, 5, 3.3},
		{34, 45, "shaft", 10, 8, 5, 3.3},
		{50, 90, "", 14, 9, 5.5, 3.8},
		{100, 270, "shaft", 28, 16, 10, 6.4},
		{130, 90, "", 32, 18, 11, 7.4},
	} {
		args := obj{"cx": 4, "cy": 5, "bore": c.bore}
		if c.angle != 90 {
			args["angle"] = c.angle
		}
		depth, top := c.t2, c.bore/2+c.t2
		if c.kind != "" {
			args["kind"] = c.kind
		}
		if c.kind == "shaft" {
			depth, top = c.t1, c.bore/2-c.t1
		}
		res := f.ok(enginev1.ToolPartKeyway, args)
		if res["width"] != c.b || res["key_height"] != c.h || !near(res["depth"].(float64), depth) || !near(res["check"].(float64), top+c.bore/2) {
			t.Errorf("%v = %s, want width %v, key height %v, depth %v, check %v", args, js(res), c.b, c.h, depth, top+c.bore/2)
		}
		w, got := keywayOf(partVertices(t, f.get(res["handle"].(string))), 4, 5, c.angle)
		if !near(w, c.b) || !near(got, top) {
			t.Errorf("%v: notch %v wide, flat at %v; want %v wide, at %v", args, w, got, c.b, top)
		}
	}
	for _, bore := range []float64{5.9, 500.5} {
		e := f.fail(enginev1.ToolPartKeyway, obj{"cx": 0, "cy": 0, "bore": bore}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
		if e.GetPath() != "/bore" || e.GetReason() != enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE {
			t.Errorf("bore %v: error %v, want /bore out of range", bore, e)
		}
	}

	// In inches: a 2" bore is 50.8 mm, DIN's row over 50 to 58: 16 × 10,
	// t2 4.3, answered and drawn in inches.
	units := enginev1.Units_UNITS_IN
	info, err := f.e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{Units: &units})
	if err != nil {
		t.Fatal(err)
	}
	in := &fixture{t: t, e: f.e, doc: info.DocumentId}
	res := in.ok(enginev1.ToolPartKeyway, obj{"cx": 0, "cy": 0, "bore": 2})
	if !near(res["width"].(float64), 16/25.4) || !near(res["depth"].(float64), 4.3/25.4) {
		t.Errorf("2 in bore = %s, want width 16 mm and depth 4.3 mm in inches", js(res))
	}
	if w, top := keywayOf(partVertices(t, in.get(res["handle"].(string))), 0, 0, 90); !near(w, 16/25.4) || !near(top, 1+4.3/25.4) {
		t.Errorf("2 in bore: notch %v wide, flat at %v; want %v, %v", w, top, 16/25.4, 1+4.3/25.4)
	}
}

// TestGdtFrame draws a frame of each characteristic and checks its text
// against the letters of AutoCAD's gdt font, then the DXF: a TOLERANCE
// whose text (code 1) is the frame's, read back as the same tolerance.
func TestGdtFrame(t *testing.T) {
	f := newFixture(t)
	letters := map[string]string{
		"position": "j", "flatness": "c", "straightness": "u", "circularity": "e", "cylindricity": "g",
		"profile_line": "k", "profile_surface": "d", "perpendicularity": "b", "parallelism": "f",
		"angularity": "a", "concentricity": "r", "symmetry": "i", "circular_runout": "h", "total_runout": "t",
	}
	for name, letter := range letters {
		res := f.ok(enginev1.ToolGdtFrame, obj{"x": 0, "y": 0, "symbol": name, "tolerance": "0.05"})
		if want := `{\Fgdt;` + letter + `}%%v0.05`; res["text"] != want {
			t.Errorf("%s: text %q, want %q", name, res["text"], want)
		}
	}
	res := f.ok(enginev1.ToolGdtFrame, obj{"x": 10, "y": 20, "symbol": "position", "tolerance": "0.1", "diameter": true, "modifier": "mmc", "datums": []any{"A", "B", "C"}, "height": 3.5, "layer": "0"})
	const want = `{\Fgdt;j}%%v{\Fgdt;n}0.1{\Fgdt;m}%%vA%%vB%%vC`
	if res["text"] != want {
		t.Errorf("position frame text %q, want %q", res["text"], want)
	}
	got := f.get(res["handle"].(string))
	if got["type"] != "tolerance" || got["text"] != want || got["height"] != 3.5 || !nearPt(pt(got["insertion"]), [2]float64{10, 20}) || got["dim_style"] != "ISO-25" {
		t.Errorf("frame = %s, want a tolerance %q 3.5 high at (10, 20) in ISO-25", js(got), want)
	}
	for _, bad := range []obj{
		{"x": 0, "y": 0, "symbol": "roundness", "tolerance": "0.1"},
		{"x": 0, "y": 0, "symbol": "position", "tolerance": "a%%v"},
		{"x": 0, "y": 0, "symbol": "position", "tolerance": "0.1", "datums": []any{"A", "B", "C", "D"}},
		{"x": 0, "y": 0, "symbol": "position", "tolerance": "0.1", "datums": []any{"a"}},
	} {
		f.fail(enginev1.ToolGdtFrame, bad, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
	}

	content := exportOf(t, f, "dxf")
	pairs := parseDXF(t, content)
	found := false
	for i, p := range pairs {
		if p.code != 0 || p.value != "TOLERANCE" {
			continue
		}
		for _, q := range pairs[i+1:] {
			if q.code == 0 {
				break
			}
			found = found || q.code == 1 && q.value == want
		}
	}
	if !found {
		t.Errorf("the DXF has no TOLERANCE with text %q", want)
	}
	back := callTool(t, f.e, "", enginev1.ToolDocumentImport, obj{"name": "back", "format": "dxf", "content": content})
	if !back.Ok {
		t.Fatalf("document_import = %v", back.Error)
	}
	b := &fixture{t: t, e: f.e, doc: resultObj(back.ResultJson)["document"].(obj)["document_id"].(string)}
	list := b.ok(enginev1.ToolEntityList, obj{"types": []any{"tolerance"}})["entities"].([]any)
	if len(list) != len(letters)+1 {
		t.Fatalf("read back %d tolerances, want %d", len(list), len(letters)+1)
	}
	var again obj
	for _, e := range list {
		if e := e.(obj); strings.Contains(e["text"].(string), "%%vC") {
			again = e
		}
	}
	if again == nil || again["text"] != want || again["height"] != 3.5 || !nearPt(pt(again["insertion"]), [2]float64{10, 20}) {
		t.Errorf("read back %s, want the frame %q 3.5 high at (10, 20)", js(again), want)
	}
	checkWithEzdxf(t, content, map[string]int{"TOLERANCE": len(letters) + 1})
}

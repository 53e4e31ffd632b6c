package engine_test

import (
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// widths reads the start and end widths of an entity's vertices, nil for
// a polyline without (no vertex says any).
func widths(t *testing.T, e obj) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, p := range e["points"].([]any) {
		v := p.(obj)
		s, hasS := v["start_width"]
		w, hasE := v["end_width"]
		if !hasS && !hasE {
			continue
		}
		if !hasS || !hasE {
			t.Fatalf("vertex %v has one width but not the other", v)
		}
		out = append(out, [2]float64{s.(float64), w.(float64)})
	}
	if out != nil && len(out) != len(e["points"].([]any)) {
		t.Fatalf("points %v: some vertices have widths, some not", e["points"])
	}
	return out
}

func TestPolylineWidths(t *testing.T) {
	f := newFixture(t)
	h := f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": []any{
		obj{"x": 0, "y": 0, "start_width": 2, "end_width": 1},
		obj{"x": 10, "y": 0, "bulge": 0.5, "start_width": 1},
		obj{"x": 20, "y": 0},
	}})
	if got, want := widths(t, f.get(h)), [][2]float64{{2, 1}, {1, 0}, {0, 0}}; !equalWidths(got, want) {
		t.Errorf("entity_get widths = %v, want %v", got, want)
	}

	// Closing keeps the widths; scaling scales them.
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": h, "closed": true})
	f.ok(enginev1.ToolEntityScale, obj{"handle": h, "base_x": 0, "base_y": 0, "factor": 2})
	if got, want := widths(t, f.get(h)), [][2]float64{{4, 2}, {2, 0}, {0, 0}}; !equalWidths(got, want) {
		t.Errorf("widths after closing and scaling by 2 = %v, want %v", got, want)
	}
	// New points without widths make a polyline without.
	f.ok(enginev1.ToolEntityEditGeometry, obj{"handle": h, "points": []any{obj{"x": 0, "y": 0}, obj{"x": 5, "y": 5}}})
	if got := widths(t, f.get(h)); got != nil {
		t.Errorf("widths after new points without = %v, want none", got)
	}

	// A polyline without widths says none; widths of 0 are none.
	for _, pts := range [][]any{
		{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1}},
		{obj{"x": 0, "y": 0, "start_width": 0, "end_width": 0}, obj{"x": 1, "y": 1}},
	} {
		if got := widths(t, f.get(f.handle(enginev1.ToolEntityCreatePolyline, obj{"points": pts}))); got != nil {
			t.Errorf("widths of %v = %v, want none", pts, got)
		}
	}

	// A negative width is refused where it is.
	for _, field := range []string{"start_width", "end_width"} {
		e := f.fail(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0}, obj{"x": 1, "y": 1, field: -0.5}}}, enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS)
		if want := "/points/1/" + field; e.GetPath() != want || e.GetReason() != enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE {
			t.Errorf("a negative %s: error at %q (%v), want %q (out of range)", field, e.GetPath(), e.GetReason(), want)
		}
	}
}

func equalWidths(a, b [][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i][0], b[i][0]) || !near(a[i][1], b[i][1]) {
			return false
		}
	}
	return true
}

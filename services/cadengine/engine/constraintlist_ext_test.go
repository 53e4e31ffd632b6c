package engine_test

import (
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// TestConstraintListSketchState: constraint_list of an entity reports the
// status and degrees of freedom of its sketch alone (what the viewer's
// hover card shows), by a dry solve that changes nothing; of an
// unconstrained entity, and of the whole document, neither.
func TestConstraintListSketchState(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(false) // under-constrained: no height
	loose := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 100, "x2": 50, "y2": 103})
	f.constrain("horizontal", nil, ref(loose))
	free := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 60, "cy": 40, "radius": 10})
	state := func(handle string) (any, any) {
		t.Helper()
		args := obj{}
		if handle != "" {
			args["handle"] = handle
		}
		res := f.ok(enginev1.ToolConstraintList, args)
		return res["status"], res["dof"]
	}
	before := f.info()
	for _, tc := range []struct {
		what, handle string
		status, dof  any
	}{
		{"the rectangle's bottom", s[0], "under_constrained", 1.0},
		{"the rectangle's left", s[3], "under_constrained", 1.0},
		{"the horizontal line (4 coordinates, 1 constraint)", loose, "under_constrained", 3.0},
		{"the unconstrained circle", free, nil, nil},
		{"the document", "", nil, nil},
	} {
		if st, dof := state(tc.handle); st != tc.status || dof != tc.dof {
			t.Errorf("constraint_list of %s: status %v, dof %v; want %v, %v", tc.what, st, dof, tc.status, tc.dof)
		}
	}
	if got := f.info(); got.Revision != before.Revision || got.ContentHash != before.ContentHash {
		t.Errorf("constraint_list changed the document: revision %d → %d", before.Revision, got.Revision)
	}
	f.constrain("distance_y", 80, ref(s[1], "start"), ref(s[1], "end"))
	if st, dof := state(s[2]); st != "solved" || dof != 0.0 {
		t.Errorf("constraint_list of the top once the height is set: status %v, dof %v; want solved, 0", st, dof)
	}
	if st, dof := state(loose); st != "under_constrained" || dof != 3.0 {
		t.Errorf("constraint_list of the horizontal line after the rectangle changed: status %v, dof %v; want under_constrained, 3 (its own sketch)", st, dof)
	}
}

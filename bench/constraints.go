package bench

import (
	"context"
	"fmt"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// sketchParts is how many constrained rectangles the constraint rows'
// sketch holds: 11 constraints each (a fixed corner, four coincident
// corners, two horizontal and two vertical sides, a width and a height),
// 1,001 in all.
const sketchParts = 91

// sloppyRectangle is a 120 × 80 rectangle as drawn by hand: each side's
// ends, off by up to half a unit. The rows' sketches place copies of it
// partSpacing apart along x.
var sloppyRectangle = [4][4]float64{{0, 0, 119.7, 0.4}, {120.2, 0.3, 119.8, 80.6}, {120.1, 79.9, 0.2, 80.3}, {-0.3, 80.2, 0.1, 0.2}}

const partSpacing = 200

// solveSketch is the constraint-solve row's sketch made in a new solve
// System: sketchParts sloppy rectangles, each with its 11 constraints.
func solveSketch() (*solve.System, error) {
	s := solve.New()
	id := solve.ID(0)
	add := func(c solve.Constraint) error {
		id++
		return s.Add(id, c)
	}
	for k := range sketchParts {
		dx := float64(k * partSpacing)
		var sides [4]solve.Line
		for i, l := range sloppyRectangle {
			sides[i] = s.Line(l[0]+dx, l[1], l[2]+dx, l[3])
		}
		cs := []solve.Constraint{
			solve.Fixed{Params: sides[0].A.Params(), Values: []float64{dx, 0}},
			solve.Horizontal{A: sides[0].A, B: sides[0].B},
			solve.Horizontal{A: sides[2].A, B: sides[2].B},
			solve.Vertical{A: sides[1].A, B: sides[1].B},
			solve.Vertical{A: sides[3].A, B: sides[3].B},
			solve.DistanceX{A: sides[0].A, B: sides[0].B, Value: 120},
			solve.DistanceY{A: sides[1].A, B: sides[1].B, Value: 80},
		}
		for i := range sides {
			cs = append(cs, solve.Coincident{A: sides[i].B, B: sides[(i+1)%4].A})
		}
		for _, c := range cs {
			if err := add(c); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// constraintSolve measures solving the sketch from scratch with the
// solve package against making it (the System and its constraints, no
// solve), in process.
func constraintSolve(ctx context.Context, e *env, row *Row) error {
	row.Title = fmt.Sprintf("solving a %d-constraint sketch from scratch (services/cadengine/solve, in process) vs making it without solving", sketchParts*11)
	row.Size = fmt.Sprintf("%d parts of 11 constraints, %d ops per side", sketchParts, e.sizes.ConstraintRounds*e.sizes.ConstraintOps)
	var status solve.Status
	var dof int
	made := &contender{
		name: "make the sketch", unit: "sketch", perBlock: e.sizes.ConstraintOps,
		op: func(context.Context, int) error {
			_, err := solveSketch()
			return err
		},
	}
	solved := &contender{
		name: "make and solve the sketch", unit: "sketch", perBlock: e.sizes.ConstraintOps,
		op: func(ctx context.Context, _ int) error {
			s, err := solveSketch()
			if err != nil {
				return err
			}
			res, err := s.Solve(ctx)
			status, dof = res.Status, res.DOF
			if err == nil && res.Status != solve.Solved {
				err = fmt.Errorf("the sketch is %v with %d dof, want solved", res.Status, res.DOF)
			}
			return err
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.ConstraintRounds, 2, made, solved)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-ms", "p50 of making and solving the sketch", float64(s.P50)/float64(time.Millisecond), "ms", Goal{"<=", 20}),
	}
	row.Notes = []string{
		fmt.Sprintf("Each part is a 120 × 80 rectangle drawn by hand (its sides' ends up to half a unit off), %d units from the next; its constraints are a fixed corner, four coincident corners, two horizontal and two vertical sides, a width and a height. The solve ends %v with %d dof; making the sketch costs %s of the %s at p50.",
			partSpacing, status, dof, fmtDur(b.P50), fmtDur(s.P50)),
	}
	return nil
}

// constraintResolve measures constraint_set_value of one part's width in
// a document of sketchParts constrained rectangles (only that part's
// sketch is solved) against an entity_move of an unconstrained line in
// the same document, both through Engine.CallTool on the memory store.
func constraintResolve(ctx context.Context, e *env, row *Row) error {
	row.Title = fmt.Sprintf("constraint_set_value of one part's width in a document of %d constraints in %d independent parts vs entity_move of an unconstrained line there, in process (Engine.CallTool, memory store)", sketchParts*11, sketchParts)
	row.Size = fmt.Sprintf("%d calls per side", e.sizes.ConstraintRounds*e.sizes.ConstraintOps)
	eng, err := engine.New(memory.New(), engine.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	caller := engine.Caller{Principal: principal}
	info, err := eng.CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: new("parts")})
	if err != nil {
		return err
	}
	doc := info.DocumentId
	for k := range sketchParts {
		resp, err := eng.ExecuteBatch(ctx, caller, &enginev1.ExecuteBatchRequest{DocumentId: doc, Steps: partSteps(float64(k * partSpacing))})
		if err := okBatch(resp, err); err != nil {
			return fmt.Errorf("part %d: %w", k, err)
		}
	}
	resp, err := eng.CallTool(ctx, caller, &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityCreateLine,
		ArgsJson: jsonOf(obj{"x1": 0, "y1": -50, "x2": 10, "y2": -50})})
	if err := okCall(resp, err); err != nil {
		return err
	}
	free := resultOf(resp.GetResultJson())["handle"]
	// The width of the middle part: the 6th constraint of its 11.
	width := (sketchParts/2)*11 + 6
	var n [2]int
	move := &contender{
		name: "entity_move of an unconstrained line", unit: "call", perBlock: e.sizes.ConstraintOps,
		op: func(ctx context.Context, _ int) error {
			n[0]++
			resp, err := eng.CallTool(ctx, caller, &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolEntityMove,
				ArgsJson: jsonOf(obj{"handle": free, "dx": 1 - 2*float64(n[0]%2), "dy": 0})})
			return okCall(resp, err)
		},
	}
	set := &contender{
		name: "constraint_set_value of a part's width", unit: "call", perBlock: e.sizes.ConstraintOps,
		op: func(ctx context.Context, _ int) error {
			n[1]++
			resp, err := eng.CallTool(ctx, caller, &enginev1.CallToolRequest{DocumentId: &doc, Tool: enginev1.ToolConstraintSetValue,
				ArgsJson: jsonOf(obj{"constraint_id": width, "value": 120 + float64(n[1]%2)})})
			return okCall(resp, err)
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.ConstraintRounds, 2, move, set)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-us", "p50 of constraint_set_value", micros(s.P50), "µs", Goal{"<=", 1000}),
	}
	row.Notes = []string{
		fmt.Sprintf("The document holds %d rectangles made by cad.batch (four lines and the 11 constraints of constraint-solve's parts each); the width alternates between 120 and 121, so every call moves the part's right side and solves its sketch of 11 constraints, not the others. %.1f× the entity_move at p50 (%s against %s).",
			sketchParts, ratio(float64(s.P50), float64(b.P50)), fmtDur(s.P50), fmtDur(b.P50)),
		"Each call is an operation: request hash, one journal record, one store commit of what changed (the moved lines and the constraint table, one record).",
	}
	return nil
}

// partSteps are the cad.batch steps of one constrained rectangle at x
// offset dx: its four sides (bound bottom, right, top, left) and their 11
// constraints, in the order of solveSketch.
func partSteps(dx float64) []*enginev1.BatchStep {
	sides := []string{"bottom", "right", "top", "left"}
	var steps []*enginev1.BatchStep
	for i, l := range sloppyRectangle {
		steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, Bind: new(sides[i]),
			ArgsJson: jsonOf(obj{"x1": l[0] + dx, "y1": l[1], "x2": l[2] + dx, "y2": l[3]})})
	}
	ref := func(side, point string) obj {
		r := obj{"handle": "$" + side}
		if point != "" {
			r["point"] = point
		}
		return r
	}
	add := func(kind string, value any, refs ...obj) {
		args := obj{"kind": kind, "refs": refs}
		if value != nil {
			args["value"] = value
		}
		steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolConstraintAdd, ArgsJson: jsonOf(args)})
	}
	add("fixed", nil, ref("bottom", "start"))
	add("horizontal", nil, ref("bottom", ""))
	add("horizontal", nil, ref("top", ""))
	add("vertical", nil, ref("right", ""))
	add("vertical", nil, ref("left", ""))
	add("distance_x", 120, ref("bottom", ""))
	add("distance_y", 80, ref("right", "start"), ref("right", "end"))
	for i, s := range sides {
		add("coincident", nil, ref(s, "end"), ref(sides[(i+1)%4], "start"))
	}
	return steps
}

package bench

import (
	"context"
	"fmt"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// draftingKinds are the modify tools of a drafting batch, in the order
// each cell of the fixture meets them.
var draftingKinds = []string{
	enginev1.ToolEntityFillet,
	enginev1.ToolEntityTrim,
	enginev1.ToolEntityExtend,
	enginev1.ToolEntityArrayPolar,
	enginev1.ToolEntityArrayRectangular,
}

// draftingCellWidth is how far apart, in X, the fixture's cells are: far
// enough that no cell's entities or copies touch another's.
const draftingCellWidth = 100

// draftingFixture are the steps that make the entities of cells cells of
// a drafting fixture, 100 units apart along X; each cell has what one
// step of each of draftingKinds needs, in the order draftingSteps reads
// the handles back:
//
//	0, 1  two lines meeting at a corner (fillet)
//	2, 3  a line and a cutting edge across it (trim)
//	4, 5  a short line and a boundary ahead of it (extend)
//	6     a circle off a centre (polar array)
//	7     a circle (rectangular array)
func draftingFixture(cells int) []*enginev1.BatchStep {
	var steps []*enginev1.BatchStep
	line := func(x1, y1, x2, y2 float64) {
		steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine,
			ArgsJson: jsonOf(obj{"x1": x1, "y1": y1, "x2": x2, "y2": y2})})
	}
	circle := func(cx, cy, r float64) {
		steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateCircle,
			ArgsJson: jsonOf(obj{"cx": cx, "cy": cy, "radius": r})})
	}
	for k := range cells {
		x := float64(k * draftingCellWidth)
		line(x, 0, x+10, 0)
		line(x, 0, x, 10)
		line(x, 20, x+20, 20)
		line(x+10, 15, x+10, 25)
		line(x, 40, x+5, 40)
		line(x+10, 35, x+10, 45)
		circle(x+50, 50, 2)
		circle(x+70, 0, 1)
	}
	return steps
}

// draftingEntitiesPerCell is how many entities draftingFixture makes per
// cell.
const draftingEntitiesPerCell = 8

// draftingSteps are n modify steps on a document holding the fixture of
// draftingCells(n) cells whose handles, in the fixture's order, are h:
// per cell a fillet of the corner, a trim of the line's far end, an
// extension of the short line to its boundary, a polar array of six and a
// 2 × 3 rectangular array, each with its edges named (not "every other
// entity").
func draftingSteps(n int, h []string) []*enginev1.BatchStep {
	steps := make([]*enginev1.BatchStep, 0, n)
	for i := range n {
		k := i / len(draftingKinds)
		x := float64(k * draftingCellWidth)
		c := h[k*draftingEntitiesPerCell:]
		var args obj
		switch tool := draftingKinds[i%len(draftingKinds)]; tool {
		case enginev1.ToolEntityFillet:
			args = obj{"handle1": c[0], "handle2": c[1], "radius": 2}
		case enginev1.ToolEntityTrim:
			args = obj{"handle": c[2], "pick_x": x + 15, "pick_y": 20, "edges": []string{c[3]}}
		case enginev1.ToolEntityExtend:
			args = obj{"handle": c[4], "pick_x": x + 4, "pick_y": 40, "boundaries": []string{c[5]}}
		case enginev1.ToolEntityArrayPolar:
			args = obj{"handles": []string{c[6]}, "cx": x + 40, "cy": 50, "count": 6}
		case enginev1.ToolEntityArrayRectangular:
			args = obj{"handles": []string{c[7]}, "rows": 2, "columns": 3, "row_spacing": 5, "column_spacing": 5}
		}
		steps = append(steps, &enginev1.BatchStep{Tool: draftingKinds[i%len(draftingKinds)], ArgsJson: jsonOf(args)})
	}
	return steps
}

// draftingCells is how many fixture cells n drafting steps need.
func draftingCells(n int) int { return (n + len(draftingKinds) - 1) / len(draftingKinds) }

// freshFixture makes a new document on c holding the drafting fixture of
// cells cells and returns the fixture's handles; c.doc becomes the new
// document.
func (c *inProcess) freshFixture(ctx context.Context, cells int) ([]string, error) {
	info, err := c.e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{Name: new("drafting")})
	if err != nil {
		return nil, err
	}
	c.doc = info.DocumentId
	resp, err := c.e.ExecuteBatch(ctx, c.caller, &enginev1.ExecuteBatchRequest{DocumentId: c.doc, Steps: draftingFixture(cells)})
	if err := okBatch(resp, err); err != nil {
		return nil, fmt.Errorf("drafting fixture: %w", err)
	}
	h := make([]string, len(resp.GetResults()))
	for i, r := range resp.GetResults() {
		if h[i] = r.GetHandle(); h[i] == "" {
			return nil, fmt.Errorf("drafting fixture: step %d (%s) returned no handle", i, r.GetTool())
		}
	}
	return h, nil
}

// draftingBatch measures a cad.batch of the modify tools of issue #37 —
// fillet, trim, extend, polar and rectangular arrays, in turn — against a
// cad.batch of as many entity_create_line steps, both in process
// (Engine.ExecuteBatch on the memory store), each op on a fresh document
// holding the same fixture so that every round is alike.
func draftingBatch(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.BatchSteps
	cells := draftingCells(n)
	row.Title = fmt.Sprintf("a %d-step cad.batch of entity_fillet, entity_trim, entity_extend, entity_array_polar and entity_array_rectangular in turn vs a %d-step cad.batch of entity_create_line, in process (Engine.ExecuteBatch, memory store)", n, n)
	row.Size = fmt.Sprintf("%d steps, %d batches per side, each on a fresh document of %d entities", n, e.sizes.DraftingRounds*e.sizes.DraftingOps, cells*draftingEntitiesPerCell)
	var sides [2]*inProcess
	for i := range sides {
		c, err := newCoreEngine(ctx, memory.New())
		if err != nil {
			return err
		}
		defer c.e.Close()
		sides[i] = c
	}
	base, subj := sides[0], sides[1]
	lines := lineBatchSteps(n)
	var modify []*enginev1.BatchStep
	var made int // entities the last subject batch left in its document
	baseline := &contender{
		name: fmt.Sprintf("cad.batch of %d entity_create_line", n), unit: "batch", perBlock: e.sizes.DraftingOps,
		prep: func(ctx context.Context, _ int) error {
			_, err := base.freshFixture(ctx, cells)
			return err
		},
		op: func(ctx context.Context, _ int) error { return base.batch(ctx, lines) },
	}
	subject := &contender{
		name: fmt.Sprintf("cad.batch of %d fillet/trim/extend/array steps", n), unit: "batch", perBlock: e.sizes.DraftingOps,
		prep: func(ctx context.Context, _ int) error {
			h, err := subj.freshFixture(ctx, cells)
			if err == nil {
				modify = draftingSteps(n, h)
			}
			return err
		},
		op: func(ctx context.Context, _ int) error { return subj.batch(ctx, modify) },
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.DraftingRounds, 2, baseline, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	if info, err := subj.e.GetDocument(ctx, subj.doc); err == nil {
		made = int(info.GetEntityCount())
	}
	row.Checks = []Check{
		check("p50-ratio", "p50, drafting batch ÷ create batch (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<=", 3}),
	}
	row.Notes = []string{
		fmt.Sprintf("The fixture is %d cells of %d entities (two lines at a corner, a line with an edge across it, a short line with a boundary ahead, two circles), made by an untimed batch in a fresh document before every op on both sides; the drafting batch fillets each corner (radius 2), trims each line at its edge, extends each short line to its boundary, arrays one circle 6 round a centre and the other 2 × 3, with the edges and boundaries named. Its document ends with %d entities, %d of them made by the batch (fillet arcs and array copies), where the line batch makes %d.",
			cells, draftingEntitiesPerCell, made, made-cells*draftingEntitiesPerCell, n),
		fmt.Sprintf("A drafting step costs %s at p50 against %s for a line (p50 batch ÷ %d).", fmtDur(s.P50/time.Duration(n)), fmtDur(b.P50/time.Duration(n)), n),
		"Each batch is one operation (request hash, step results, one journal record, one store commit) whose caller listens for events, as in core-batch-step.",
	}
	return nil
}

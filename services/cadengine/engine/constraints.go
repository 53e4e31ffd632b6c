package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// The constraint tools (DESIGN §14). Every change to the constraints
// solves at once; a change that cannot hold is refused over_constrained
// and, the step failing, leaves nothing behind (run.runStep undoes it).
// Edits by any other tool are re-solved by holdConstraints.

func constraintAdd(c *call, a *enginev1.ConstraintAddArgs) (*enginev1.ConstraintAddResult, error) {
	con, err := newConstraint(c.d.Document, a)
	if err != nil {
		return nil, err
	}
	table, id := c.d.Constraints().With(con)
	c.tx.SetConstraints(table)
	res, moved, err := c.solveSketch(refHandles(con), nil, false)
	if err != nil {
		return nil, sketchError(err, id)
	}
	if res.Status == solve.OverConstrained {
		return nil, overConstrained(res.Conflicting, "constraint %d (%s) cannot hold with the others", id, a.Kind)
	}
	return &enginev1.ConstraintAddResult{ConstraintId: int32(id), Status: res.Status.String(), Dof: int32(res.DOF), Moved: moved}, nil
}

func constraintList(c *call, a *enginev1.ConstraintListArgs) (*enginev1.ConstraintListResult, error) {
	out := &enginev1.ConstraintListResult{}
	var only uint64
	if a.Handle != nil {
		e, err := c.Entity("/handle", a.GetHandle())
		if err != nil {
			return nil, err
		}
		only = e.Handle
	}
	t := c.d.Constraints()
	if t == nil {
		return out, nil
	}
	for i := range t.List {
		con := &t.List[i]
		if only != 0 && !con.Names(only) {
			continue
		}
		info := &enginev1.ConstraintInfo{ConstraintId: int32(con.ID), Kind: con.Kind}
		for _, r := range con.Refs {
			ref := &enginev1.ConstraintRef{Handle: drawing.FormatHandle(r.Handle)}
			if r.Point != "" {
				ref.Point = new(r.Point)
			}
			info.Refs = append(info.Refs, ref)
		}
		if drawing.Dimensional(con.Kind) {
			info.Value = new(con.Value)
		}
		if con.Dimension != 0 {
			info.Dimension = new(drawing.FormatHandle(con.Dimension))
		}
		out.Constraints = append(out.Constraints, info)
	}
	if only != 0 && len(out.Constraints) > 0 {
		// The state of the entity's sketch, by a dry solve of it alone
		// (the viewer's hover card shows it).
		res, _, err := c.solveSketch([]uint64{only}, nil, true)
		if err != nil {
			return nil, sketchError(err, 0)
		}
		out.Status, out.Dof = new(res.Status.String()), new(int32(res.DOF))
	}
	return out, nil
}

func constraintDelete(c *call, a *enginev1.ConstraintDeleteArgs) (*enginev1.ConstraintDeleteResult, error) {
	con, err := c.constraint(a.ConstraintId)
	if err != nil {
		return nil, err
	}
	c.tx.SetConstraints(c.d.Constraints().Without(int64(a.ConstraintId)))
	res, _, err := c.solveSketch(refHandles(con), nil, true)
	if err != nil {
		return nil, sketchError(err, 0)
	}
	return &enginev1.ConstraintDeleteResult{ConstraintId: a.ConstraintId, Status: res.Status.String(), Dof: int32(res.DOF)}, nil
}

func constraintSetValue(c *call, a *enginev1.ConstraintSetValueArgs) (*enginev1.ConstraintSetValueResult, error) {
	con, err := c.constraint(a.ConstraintId)
	if err != nil {
		return nil, err
	}
	if !drawing.Dimensional(con.Kind) {
		return nil, invalidArgs("/constraint_id", reasonInvalid, "constraint %d is %s, which has no value (only distance, distance_x, distance_y, angle, radius and diameter do)", con.ID, con.Kind)
	}
	if err := checkValue(con.Kind, a.Value); err != nil {
		return nil, err
	}
	con.Value = a.Value
	table, _ := c.d.Constraints().With(con)
	c.tx.SetConstraints(table)
	res, moved, err := c.solveSketch(refHandles(con), nil, false)
	if err != nil {
		return nil, sketchError(err, 0)
	}
	if res.Status == solve.OverConstrained {
		return nil, overConstrained(res.Conflicting, "constraint %d (%s) cannot be %g with the others", con.ID, con.Kind, a.Value)
	}
	return &enginev1.ConstraintSetValueResult{ConstraintId: a.ConstraintId, Status: res.Status.String(), Dof: int32(res.DOF), Moved: moved}, nil
}

func sketchSolve(c *call, a *enginev1.SketchSolveArgs) (*enginev1.SketchSolveResult, error) {
	c.dry = a.GetDryRun()
	res, moved, err := c.solveSketch(nil, nil, c.dry)
	if err != nil {
		return nil, sketchError(err, 0)
	}
	out := &enginev1.SketchSolveResult{Status: res.Status.String(), Dof: int32(res.DOF), Moved: moved}
	for _, id := range res.Conflicting {
		out.Conflicting = append(out.Conflicting, int32(id))
	}
	return out, nil
}

// ---- solving ----

// solveSketch solves the sketch of the entities seeds — the constraints
// that reach them through shared entities (all of the document's for nil
// seeds) —, the entities pinned held where they are (an edit's), and,
// unless dry, writes what moved through the call's Tx: the entities keep
// their handles. It returns the solve's result (status and degrees of
// freedom of that sketch) and the handles of what moved (or would move),
// ascending. No constraints are solved, with no degrees of freedom.
func (c *call) solveSketch(seeds, pinned []uint64, dry bool) (solve.Result, []string, error) {
	t := c.d.Constraints()
	if t.Len() == 0 {
		return solve.Result{Status: solve.Solved}, nil, nil
	}
	cons := t.List
	if seeds != nil {
		cons = reaching(t.List, seeds)
		if len(cons) == 0 {
			return solve.Result{Status: solve.Solved}, nil, nil
		}
	}
	sk, err := newSketch(c.d.Document, cons)
	if err != nil {
		return solve.Result{}, nil, err
	}
	for _, h := range pinned {
		sk.pin(h, true)
	}
	res, err := sk.sys.Solve(c.ctx)
	if err != nil {
		return solve.Result{}, nil, err
	}
	// An over-constrained group is left as it was (its entities do not
	// move); the callers that change the constraints refuse it.
	var moved []string
	for _, p := range sk.moved(&res) {
		moved = append(moved, drawing.FormatHandle(p.e.Handle))
		if dry {
			continue
		}
		g := sk.geometry(p)
		if a, ok := g.(drawing.Arc); !g.Finite() || ok && (a.Start == a.End || a.R == 0) {
			return solve.Result{}, nil, failed("the solve collapses the %s %s: constrain its size or ends", p.e.Geom.Kind().WireName(), drawing.FormatHandle(p.e.Handle))
		}
		if err := c.tx.Replace(p.e, p.e.With(g)); err != nil {
			return solve.Result{}, nil, err
		}
	}
	return res, moved, nil
}

// constrainedTools change the constraints themselves (and solve), or
// bring back states the document had (whose constraints held): the
// tools holdConstraints leaves alone.
var constrainedTools = []string{
	enginev1.ToolConstraintAdd, enginev1.ToolConstraintDelete, enginev1.ToolConstraintSetValue,
	enginev1.ToolSketchSolve, enginev1.ToolDocumentUndo, enginev1.ToolDocumentRedo,
	enginev1.ToolTransactionBegin, enginev1.ToolTransactionCommit, enginev1.ToolTransactionRollback,
}

// holdConstraints re-solves the document's constraints after a step
// changed entities they name (the changes after mark): the changed
// entities stay as the tool left them and the rest of their groups
// follow. An edit they cannot follow — one that moves a fixed point, or
// breaks a driving value — is refused over_constrained; the caller then
// undoes the step. It costs nothing in a document without constraints.
func (c *call) holdConstraints(tool string, mark int) error {
	if c.tx == nil || c.d.Constraints().Len() == 0 || slices.Contains(constrainedTools, tool) || mark > c.tx.Mark() {
		return nil // (a rollback may have cut the log below mark)
	}
	var pinned []uint64
	for _, ch := range c.tx.Since(mark) {
		if ch.Kind == drawing.ChangeEntity && c.d.Constrained(ch.Handle) && c.d.Entity(ch.Handle) != nil && !slices.Contains(pinned, ch.Handle) {
			pinned = append(pinned, ch.Handle)
		}
	}
	if len(pinned) == 0 {
		return nil
	}
	res, _, err := c.solveSketch(pinned, pinned, false)
	if err != nil {
		return sketchError(err, 0)
	}
	if res.Status == solve.OverConstrained {
		names := make([]string, len(pinned))
		for i, h := range pinned {
			names[i] = drawing.FormatHandle(h)
		}
		return overConstrained(res.Conflicting, "the edit of %s cannot hold with its constraints", strings.Join(names, ", "))
	}
	return nil
}

// ---- helpers ----

// newConstraint is the constraint a constraint_add of a would add to d,
// without its id: its refs checked, its value (the current measurement
// when a has none) or its pins (a fixed one's, where its refs are).
func newConstraint(d *drawing.Document, a *enginev1.ConstraintAddArgs) (drawing.Constraint, error) {
	con := drawing.Constraint{Kind: a.Kind}
	for i, r := range a.Refs {
		h, ok := drawing.ParseHandle(r.Handle)
		if !ok {
			return con, invalidArgs(fmt.Sprintf("/refs/%d/handle", i), reasonInvalid, "%q is not an entity handle (hex digits)", r.Handle)
		}
		if d.Entity(h) == nil {
			return con, failed("the document has no entity %s (refs/%d)", drawing.FormatHandle(h), i)
		}
		con.Refs = append(con.Refs, drawing.Ref{Handle: h, Point: r.GetPoint()})
	}
	con.ID = 1
	if t := d.Constraints(); t != nil {
		con.ID = t.Next // for the errors of measure and pins
	}
	var err error
	switch {
	case drawing.Dimensional(a.Kind) && a.Value != nil:
		con.Value = a.GetValue()
		err = checkValue(con.Kind, con.Value)
	case drawing.Dimensional(a.Kind):
		con.Value, err = measure(d, con)
	case a.Value != nil:
		err = invalidArgs("/value", reasonInvalid, "a %s constraint takes no value (only distance, distance_x, distance_y, angle, radius and diameter do)", a.Kind)
	case a.Kind == drawing.KindFixed:
		con.Pins, err = pins(d, con)
	}
	con.ID = 0
	return con, err
}

// wouldMove is what a constraint_add or constraint_set_value step would
// move in d as it is now, for a dry run's preview: nil for other tools,
// for arguments that do not make a constraint, and for a change that
// cannot hold.
func wouldMove(d *drawing.Document, args proto.Message) []string {
	t := d.Constraints()
	var con drawing.Constraint
	switch a := args.(type) {
	case *enginev1.ConstraintAddArgs:
		c, err := newConstraint(d, a)
		if err != nil {
			return nil
		}
		t, _ = t.With(c)
		con = c
	case *enginev1.ConstraintSetValueArgs:
		i := t.Index(int64(a.ConstraintId))
		if i < 0 || !drawing.Dimensional(t.List[i].Kind) || checkValue(t.List[i].Kind, a.Value) != nil {
			return nil
		}
		con = t.List[i]
		con.Value = a.Value
		t, _ = t.With(con)
	default:
		return nil
	}
	sk, err := newSketch(d, reaching(t.List, refHandles(con)))
	if err != nil {
		return nil
	}
	res, err := sk.sys.Solve(context.Background())
	if err != nil || res.Status == solve.OverConstrained {
		return nil
	}
	var out []string
	for _, p := range sk.moved(&res) {
		out = append(out, drawing.FormatHandle(p.e.Handle))
	}
	return out
}

// reaching are the constraints of list (ids ascending) connected to the
// entities seeds: those that name one, then those that name an entity
// those name, and so on. An edit changes nothing beyond them, so only
// they are solved. O(refs of list).
func reaching(list []drawing.Constraint, seeds []uint64) []drawing.Constraint {
	by := map[uint64][]int{}
	for i := range list {
		for _, r := range list[i].Refs {
			by[r.Handle] = append(by[r.Handle], i)
		}
	}
	seen := map[uint64]bool{}
	in := make([]bool, len(list))
	queue := slices.Clone(seeds)
	for len(queue) > 0 {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		for _, i := range by[h] {
			if in[i] {
				continue
			}
			in[i] = true
			for _, r := range list[i].Refs {
				if !seen[r.Handle] {
					queue = append(queue, r.Handle)
				}
			}
		}
	}
	var out []drawing.Constraint
	for i := range list {
		if in[i] {
			out = append(out, list[i])
		}
	}
	return out
}

// refHandles are the entities c names.
func refHandles(c drawing.Constraint) []uint64 {
	out := make([]uint64, len(c.Refs))
	for i, r := range c.Refs {
		out[i] = r.Handle
	}
	return out
}

// constraint is the document's constraint id, or failed.
func (c *call) constraint(id int32) (drawing.Constraint, error) {
	t := c.d.Constraints()
	i := t.Index(int64(id))
	if i < 0 {
		return drawing.Constraint{}, failed("the document has no constraint %d (constraint_list lists them)", id)
	}
	return t.List[i], nil
}

// pins are where a fixed constraint holds its refs now.
func pins(d *drawing.Document, con drawing.Constraint) ([]float64, error) {
	sk, err := newSketch(d, nil)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i, r := range con.Refs {
		ps, err := sk.params(r, i)
		if err != nil {
			return nil, sketchError(err, con.ID)
		}
		for _, p := range ps {
			out = append(out, sk.sys.Value(p))
		}
	}
	return out, nil
}

// measure is a dimensional constraint's value as the geometry is now.
func measure(d *drawing.Document, con drawing.Constraint) (float64, error) {
	sk, err := newSketch(d, nil)
	if err != nil {
		return 0, err
	}
	xs, err := sk.constraint(con)
	if err != nil {
		return 0, sketchError(withID(err, con.ID), con.ID)
	}
	pt := func(q solve.Point) geom.Vec { x, y := sk.sys.PointAt(q); return geom.Pt(x, y) }
	switch x := xs[0].(type) {
	case solve.Distance:
		return pt(x.A).Dist(pt(x.B)), nil
	case solve.DistancePointLine:
		a, b, p := pt(x.L.A), pt(x.L.B), pt(x.P)
		d := b.Sub(a)
		if d.Len() == 0 {
			return p.Dist(a), nil
		}
		return math.Abs(d.X*(p.Y-a.Y)-d.Y*(p.X-a.X)) / d.Len(), nil
	case solve.DistanceX:
		return pt(x.B).X - pt(x.A).X, nil
	case solve.DistanceY:
		return pt(x.B).Y - pt(x.A).Y, nil
	case solve.Angle:
		d1, d2 := pt(x.L1.B).Sub(pt(x.L1.A)), pt(x.L2.B).Sub(pt(x.L2.A))
		return geom.NormDeg((d2.Angle() - d1.Angle()) * 180 / math.Pi), nil
	case solve.Radius:
		return sk.sys.Value(x.C.R), nil
	case solve.Diameter:
		return 2 * sk.sys.Value(x.C.R), nil
	}
	return 0, failed("cannot measure a %s constraint", con.Kind)
}

// checkValue refuses values a kind cannot take.
func checkValue(kind string, v float64) error {
	switch kind {
	case drawing.KindRadius, drawing.KindDiameter:
		if !(v > 0) {
			return invalidArgs("/value", reasonOutOfRange, "a %s must be greater than 0, not %g", kind, v)
		}
	case drawing.KindDistance:
		if v < 0 {
			return invalidArgs("/value", reasonOutOfRange, "a distance is not negative (%g); distance_x and distance_y are signed", v)
		}
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return invalidArgs("/value", reasonOutOfRange, "the value must be finite")
	}
	return nil
}

// sketchError is the step failure for a sketch that could not be built:
// a ref of the constraint being added (id added) is invalid_args with
// its path; a stored constraint's is failed, naming it.
func sketchError(err error, added int64) error {
	var re *refError
	if !errors.As(err, &re) {
		return err
	}
	if (re.id == added || re.id == 0) && added != 0 {
		if strings.HasPrefix(re.msg, "the document has no entity") {
			return failed("%s", re.msg)
		}
		path := "/refs"
		if re.ref >= 0 {
			path = fmt.Sprintf("/refs/%d", re.ref)
		}
		return invalidArgs(path, reasonInvalid, "%s", re.msg)
	}
	return failed("constraint %d: %s (delete it with constraint_delete)", re.id, re.msg)
}

// overConstrained is the step failure for constraints that cannot all
// hold: the smallest set of them that cannot, in conflicting.
func overConstrained(ids []solve.ID, format string, args ...any) *toolError {
	te := toolErr(enginev1.ErrorKind_ERROR_KIND_OVER_CONSTRAINED, format, args...)
	names := make([]string, len(ids))
	for i, id := range ids {
		te.pb.Conflicting = append(te.pb.Conflicting, int32(id))
		names[i] = fmt.Sprint(id)
	}
	te.pb.Message += fmt.Sprintf(": constraints %s cannot all hold; delete one (constraint_delete) or change a value (constraint_set_value)", strings.Join(names, ", "))
	return te
}

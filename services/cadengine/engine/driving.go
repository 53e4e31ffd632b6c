package engine

import (
	"fmt"
	"math"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
	"github.com/cadbridge/cadbridge/services/cadengine/solve"
)

// Driving dimensions (DESIGN §14). A dimension_create_* call with
// driving: true creates the dimension, then the constraint it shows on
// the entities it is bound to — an aligned dimension a distance, a linear
// one a distance_x (at 0°), a distance_y (at 90°) or a distance (along
// the line through its points), a radial one a radius, a diametric one a
// diameter, an angular one between two lines an angle — whose
// `dimension` names it, and solves: to the value given (the geometry
// moves) or to the current measurement. The dimension stays bound, so
// when the constraint's value changes or the sketch is re-solved it
// follows and shows the new value. Deleting the dimension is refused
// while its constraint names it, as for every constrained entity;
// constraint_delete of the constraint leaves an ordinary dimension.

// driving is what a dimension_create_* call asks of driving.
type driving struct {
	on    bool
	value *float64
}

// check refuses a value without driving: true.
func (dr driving) check() error {
	if !dr.on && dr.value != nil {
		return invalidArgs("/value", reasonInvalid, "value sets a driving dimension's value: give driving: true with it")
	}
	return nil
}

// drive makes the dimension h, just created, a driving one when dr asks:
// it adds the dimension's constraint and solves. It returns the
// constraint's id (0 when not driving) and the dimension's measurement
// and text after the solve.
func (c *call) drive(h string, dr driving, measurement float64, text string) (*int32, float64, string, error) {
	if !dr.on {
		return nil, measurement, text, nil
	}
	dh, _ := drawing.ParseHandle(h)
	g := c.d.Entity(dh).Geom.(drawing.Dimension)
	con, err := drivingConstraint(c.d.Document, g)
	if err != nil {
		return nil, 0, "", err
	}
	con.Dimension = dh
	switch {
	case dr.value != nil:
		con.Value = *dr.value
		err = checkValue(con.Kind, con.Value)
	case con.Kind == drawing.KindAngle:
		con.Value = g.Measurement() // the angle the dimension shows: the lines' directions' up to 180°
	default:
		con.Value, err = measure(c.d.Document, con)
	}
	if err != nil {
		return nil, 0, "", err
	}
	table, id := c.d.Constraints().With(con)
	c.tx.SetConstraints(table)
	res, _, err := c.solveSketch(refHandles(con), nil, false)
	if err != nil {
		return nil, 0, "", sketchError(err, 0)
	}
	if res.Status == solve.OverConstrained {
		return nil, 0, "", overConstrained(res.Conflicting, "the driving dimension (constraint %d, %s %g) cannot hold with the constraints there are", id, con.Kind, con.Value)
	}
	g = c.d.Entity(dh).Geom.(drawing.Dimension)
	id32 := int32(id)
	return &id32, g.Measurement(), g.DisplayText(), nil
}

// drivingConstraint is the constraint (kind and refs) a driving
// dimension g shows, from the points it is bound to; a point it does not
// hold on an entity is invalid_args.
func drivingConstraint(d *drawing.Document, g drawing.Dimension) (drawing.Constraint, error) {
	bound := func(slot enginev1.DimensionSlot) (drawing.Bind, bool) {
		for _, b := range g.Binds {
			if b.Slot == slot {
				return b, true
			}
		}
		return drawing.Bind{}, false
	}
	onEntity := func(path string, slot enginev1.DimensionSlot) (drawing.Ref, error) {
		b, ok := bound(slot)
		if !ok {
			return drawing.Ref{}, invalidArgs(path, reasonInvalid, "a driving dimension's points are on entities: give a handle (and an end, mid or center snap), not a free point")
		}
		r, ok := bindRef(d, b)
		if !ok {
			return drawing.Ref{}, invalidArgs(path+"/snap", reasonInvalid, "a driving dimension holds an end, a middle or a centre of a line, an arc, a circle, a polyline's vertex or a point, not the %s snap of entity %s", b.Snap.WireName(), drawing.FormatHandle(b.Handle))
		}
		return r, nil
	}
	switch g.Type {
	case enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, enginev1.DimensionKind_DIMENSION_KIND_ROTATED:
		a, err := onEntity("/p1", enginev1.DimensionSlot_DIMENSION_SLOT_P1)
		if err != nil {
			return drawing.Constraint{}, err
		}
		b, err := onEntity("/p2", enginev1.DimensionSlot_DIMENSION_SLOT_P2)
		if err != nil {
			return drawing.Constraint{}, err
		}
		con := drawing.Constraint{Kind: drawing.KindDistance, Refs: []drawing.Ref{a, b}}
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_ALIGNED {
			return con, nil
		}
		// Signed constraints go from the lower point to the higher, so
		// their value is the positive one the dimension shows.
		switch math.Mod(g.Angle, 180) {
		case 0:
			con.Kind = drawing.KindDistanceX
			if g.P2.X < g.P1.X {
				con.Refs[0], con.Refs[1] = b, a
			}
		case 90:
			con.Kind = drawing.KindDistanceY
			if g.P2.Y < g.P1.Y {
				con.Refs[0], con.Refs[1] = b, a
			}
		default:
			if m, dist := g.Measurement(), g.P1.Dist(g.P2); math.Abs(m-dist) > geom.TolAt(dist) {
				return drawing.Constraint{}, invalidArgs("/angle", reasonInvalid, "a driving linear dimension measures at 0° or 90°, or along the line through its points (at %g°, the aligned dimension's); at %g° it shows %g where its points are %g apart", geom.Deg(g.P2.Sub(g.P1).Angle()), g.Angle, m, dist)
			}
		}
		return con, nil
	case enginev1.DimensionKind_DIMENSION_KIND_RADIAL, enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC:
		b, _ := bound(enginev1.DimensionSlot_DIMENSION_SLOT_CENTER)
		kind := drawing.KindRadius
		if g.Type == enginev1.DimensionKind_DIMENSION_KIND_DIAMETRIC {
			kind = drawing.KindDiameter
		}
		return drawing.Constraint{Kind: kind, Refs: []drawing.Ref{{Handle: b.Handle}}}, nil
	case enginev1.DimensionKind_DIMENSION_KIND_ANGULAR:
		b1, ok1 := bound(enginev1.DimensionSlot_DIMENSION_SLOT_P1)
		b2, ok2 := bound(enginev1.DimensionSlot_DIMENSION_SLOT_P2)
		x, okx := bound(enginev1.DimensionSlot_DIMENSION_SLOT_CENTER)
		if !ok1 || !ok2 || !okx || x.With == 0 {
			return drawing.Constraint{}, invalidArgs("/line1", reasonMissing, "a driving angle is between two lines: give line1 and line2")
		}
		return drawing.Constraint{Kind: drawing.KindAngle, Refs: []drawing.Ref{{Handle: b1.Handle}, {Handle: b2.Handle}}}, nil
	}
	return drawing.Constraint{}, failed("a %s dimension cannot drive", g.Type.WireName())
}

// bindRef is the constraint ref of the point a dimension's bind holds: a
// line's or an arc's start, end or middle, a circle's or an arc's
// centre, a polyline's vertex, a point entity; false for others.
func bindRef(d *drawing.Document, b drawing.Bind) (drawing.Ref, bool) {
	e := d.Entity(b.Handle)
	if e == nil {
		return drawing.Ref{}, false
	}
	cands := drawing.SnapCandidates(e.Geom, b.Snap, geom.Vec{})
	if b.Index < 0 || b.Index >= len(cands) {
		return drawing.Ref{}, false
	}
	p := cands[b.Index]
	at := func(point string) (drawing.Ref, bool) { return drawing.Ref{Handle: b.Handle, Point: point}, true }
	end, mid, center := enginev1.SnapKind_SNAP_KIND_END, enginev1.SnapKind_SNAP_KIND_MID, enginev1.SnapKind_SNAP_KIND_CENTER
	switch g := e.Geom.(type) {
	case drawing.Point:
		return drawing.Ref{Handle: b.Handle}, true
	case drawing.Line:
		switch {
		case b.Snap == end && p.Same(g.A):
			return at("start")
		case b.Snap == end && p.Same(g.B):
			return at("end")
		case b.Snap == mid:
			return at("mid")
		}
	case drawing.Arc:
		switch a := g.Arc(); {
		case b.Snap == end && p.Same(a.First()):
			return at("start")
		case b.Snap == end && p.Same(a.Last()):
			return at("end")
		case b.Snap == mid:
			return at("mid")
		case b.Snap == center:
			return at("center")
		}
	case drawing.Circle:
		if b.Snap == center {
			return at("center")
		}
	case drawing.Polyline:
		if b.Snap == end {
			for i, v := range g.V {
				if v.P.Same(p) {
					return at(fmt.Sprintf("vertex:%d", i))
				}
			}
		}
	}
	return drawing.Ref{}, false
}

package engine

import (
	"math"
	"strconv"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// The drafting toolset's create tools (DESIGN §11): splines, leaders,
// construction lines and rays, revision clouds, wipeouts, solids and
// tables. Each makes native entities of the types DXF import already
// has (see drawing.Spline, drawing.Leader, drawing.XLine, drawing.Wipeout,
// drawing.Solid); a table is a block of lines and texts placed as an
// insert (see createTable).

// vecs are the points as geometry vectors.
func vecs(ps []*enginev1.Point) []geom.Vec {
	out := make([]geom.Vec, len(ps))
	for i, p := range ps {
		out[i] = geom.Pt(p.GetX(), p.GetY())
	}
	return out
}

// defaultLeaderSize is a leader's arrowhead length and note height when
// not given: ISO's DIMASZ and text height.
const defaultLeaderSize = 2.5

// createSpline creates a spline through fit points (the curve CAD
// programs fit through them, geom.SplineThroughCAD; when closed, the
// smooth periodic curve through them, geom.SplineThrough, the first
// point repeated at the end) or from control points (see
// geom.SplineFromControl). The fit points are kept with the spline, as
// DXF keeps them.
func createSpline(c *call, a *enginev1.EntityCreateSplineArgs) (*enginev1.EntityCreateSplineResult, error) {
	var g drawing.Spline
	switch {
	case len(a.FitPoints) > 0 && len(a.ControlPoints) > 0:
		return nil, invalidArgs("/control_points", reasonInvalid, "give fit_points or control_points, not both")
	case len(a.FitPoints) > 0:
		for _, f := range []struct {
			set  bool
			name string
		}{{a.Degree != nil, "degree"}, {len(a.Weights) > 0, "weights"}, {len(a.Knots) > 0, "knots"}} {
			if f.set {
				return nil, invalidArgs("/"+f.name, reasonInvalid, "%s goes with control_points: a spline through fit points is cubic, its knots made from the points", f.name)
			}
		}
		fit := vecs(a.FitPoints)
		var (
			s   geom.Spline
			err error
		)
		if a.GetClosed() {
			if len(fit) < 3 {
				return nil, invalidArgs("/fit_points", reasonOutOfRange, "a closed spline needs at least three fit points")
			}
			if !fit[0].Same(fit[len(fit)-1]) {
				fit = append(fit, fit[0])
			}
			s, err = geom.SplineThrough(fit, nil, nil)
		} else {
			s, err = geom.SplineThroughCAD(fit, nil, nil)
		}
		if err != nil {
			return nil, invalidArgs("/fit_points", reasonInvalid, "%v", err)
		}
		g = drawing.Spline{Spline: s, Fit: fit}
	case len(a.ControlPoints) > 0:
		degree := 3
		if a.Degree != nil {
			degree = int(*a.Degree)
		}
		var weights, knots []float64
		if len(a.Weights) > 0 {
			if len(a.Weights) != len(a.ControlPoints) {
				return nil, invalidArgs("/weights", reasonInvalid, "give one weight per control point (%d), not %d", len(a.ControlPoints), len(a.Weights))
			}
			weights = a.Weights
		}
		if len(a.Knots) > 0 {
			if a.GetClosed() {
				return nil, invalidArgs("/knots", reasonInvalid, "give knots or closed, not both: a closed spline's knots are made uniform")
			}
			if want := len(a.ControlPoints) + degree + 1; len(a.Knots) != want {
				return nil, invalidArgs("/knots", reasonInvalid, "give %d knots (control points + degree + 1), not %d", want, len(a.Knots))
			}
			knots = a.Knots
		}
		s, err := geom.SplineFromControl(vecs(a.ControlPoints), degree, weights, knots, a.GetClosed())
		if err != nil {
			return nil, invalidArgs("/control_points", reasonInvalid, "%v", err)
		}
		g = drawing.Spline{Spline: s}
	default:
		return nil, invalidArgs("/fit_points", reasonMissing, "give fit_points (the curve passes through them) or control_points")
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateSplineResult{Handle: handleResult(e)}, nil
}

// createLeader creates a straight leader with an arrowhead (unless arrow
// is false) and, when there is text, a note: multi-line text at the last
// point, size high, a little beyond the point along the last segment and
// attached middle-left (or middle-right when the leader ends leftwards),
// as AutoCAD's QLEADER places it.
func createLeader(c *call, a *enginev1.EntityCreateLeaderArgs) (*enginev1.EntityCreateLeaderResult, error) {
	v := vecs(a.Points)
	for i := 1; i < len(v); i++ {
		if v[i].Same(v[i-1]) {
			return nil, invalidArgs("/points/"+strconv.Itoa(i), reasonInvalid, "point %d is the same as the one before it", i)
		}
	}
	size := defaultLeaderSize
	if a.Size != nil {
		size = *a.Size
	}
	arrow := a.Arrow == nil || *a.Arrow
	s := style{a.Layer, a.Color, a.Linetype}
	e, err := c.Create("", s, drawing.Leader{V: v, Arrow: arrow, Size: size, Style: "Standard"})
	if err != nil {
		return nil, err
	}
	res := &enginev1.EntityCreateLeaderResult{Handle: handleResult(e), Handles: []string{handleResult(e)}}
	if a.GetText() == "" {
		return res, nil
	}
	last, prev := v[len(v)-1], v[len(v)-2]
	note := drawing.MText{Text: a.GetText(), Height: size, Attach: 4, Spacing: 1}
	gap := size / 2
	if last.X < prev.X {
		note.Attach = 6
		gap = -gap
	}
	note.P = last.Add(geom.Pt(gap, 0))
	t, err := c.Create("", s, note)
	if err != nil {
		return nil, err
	}
	res.Handles = append(res.Handles, handleResult(t))
	return res, nil
}

// xlineOf is the construction line or ray through p at angle degrees.
func xlineOf(p geom.Vec, angle float64, ray bool) drawing.XLine {
	s, c := geom.SinCosDeg(angle)
	return drawing.XLine{P: p, Dir: geom.Pt(c, s), Ray: ray}
}

func createXline(c *call, a *enginev1.EntityCreateXlineArgs) (*enginev1.EntityCreateXlineResult, error) {
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, xlineOf(geom.Pt(a.X, a.Y), a.Angle, false))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateXlineResult{Handle: handleResult(e)}, nil
}

func createRay(c *call, a *enginev1.EntityCreateRayArgs) (*enginev1.EntityCreateRayResult, error) {
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, xlineOf(geom.Pt(a.X, a.Y), a.Angle, true))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateRayResult{Handle: handleResult(e)}, nil
}

// createRevcloud creates a revision cloud (see geom.Revcloud): arcs about
// arc_length long, by default a tenth of the larger side of the points'
// extents.
func createRevcloud(c *call, a *enginev1.EntityCreateRevcloudArgs) (*enginev1.EntityCreateRevcloudResult, error) {
	p := vecs(a.Points)
	arc := 0.0
	if a.ArcLength != nil {
		arc = *a.ArcLength
	} else {
		var b geom.Box
		for _, q := range p {
			b.AddPoint(q)
		}
		arc = math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y) / 10
	}
	pl, err := geom.Revcloud(p, arc)
	if err != nil {
		return nil, invalidArgs("/points", reasonInvalid, "%v", err)
	}
	e, err := c.Create("", style{a.Layer, a.Color, a.Linetype}, drawing.Polyline{Polyline: pl})
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateRevcloudResult{Handle: handleResult(e)}, nil
}

// checkPolygon checks that the corners p enclose an area.
func checkPolygon(p []geom.Vec) error {
	area := 0.0
	var b geom.Box
	for i, q := range p {
		r := p[(i+1)%len(p)]
		area += q.X*r.Y - q.Y*r.X
		b.AddPoint(q)
	}
	size := math.Max(b.Max.X-b.Min.X, b.Max.Y-b.Min.Y)
	if !(math.Abs(area/2) > geom.Tolerance*size*size) {
		return invalidArgs("/points", reasonInvalid, "the points must enclose an area: give three or more corners not in one line")
	}
	return nil
}

func createWipeout(c *call, a *enginev1.EntityCreateWipeoutArgs) (*enginev1.EntityCreateWipeoutResult, error) {
	p := vecs(a.Points)
	if err := checkPolygon(p); err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, nil}, drawing.NewWipeout(p))
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateWipeoutResult{Handle: handleResult(e)}, nil
}

func createSolid(c *call, a *enginev1.EntityCreateSolidArgs) (*enginev1.EntityCreateSolidResult, error) {
	p := vecs(a.Points)
	if err := checkPolygon(p); err != nil {
		return nil, err
	}
	e, err := c.Create("", style{a.Layer, a.Color, nil}, drawing.Solid{P: p})
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateSolidResult{Handle: handleResult(e)}, nil
}

// maxTableParts is the most lines and texts a table may draw.
const maxTableParts = 200000

// createTable makes a table (DXF's ACAD_TABLE): rows × columns cells
// of the sizes given, its top-left corner at (x, y), each listed cell's
// text centred in it, text_height high (by default 0.5 × the row
// height). Exploding it gives its grid lines and texts (see
// explodeParts).
func createTable(c *call, a *enginev1.EntityCreateTableArgs) (*enginev1.EntityCreateTableResult, error) {
	rows, cols := int(a.Rows), int(a.Columns)
	if rows+cols+2+len(a.Cells) > maxTableParts {
		return nil, invalidArgs("/rows", reasonOutOfRange, "a table of %d rows, %d columns and %d cells is more than %d parts", rows, cols, len(a.Cells), maxTableParts)
	}
	height := a.RowHeight / 2
	if a.TextHeight != nil {
		height = *a.TextHeight
	}
	g := drawing.Table{P: geom.Pt(a.X, a.Y), Rows: make([]float64, rows), Columns: make([]float64, cols)}
	for i := range g.Rows {
		g.Rows[i] = a.RowHeight
	}
	for i := range g.Columns {
		g.Columns[i] = a.ColumnWidth
	}
	seen := map[[2]int32]bool{}
	for i, cell := range a.Cells {
		path := "/cells/" + strconv.Itoa(i)
		switch {
		case cell.Row >= a.Rows:
			return nil, invalidArgs(path+"/row", reasonOutOfRange, "row %d: the table has rows 0 to %d", cell.Row, a.Rows-1)
		case cell.Column >= a.Columns:
			return nil, invalidArgs(path+"/column", reasonOutOfRange, "column %d: the table has columns 0 to %d", cell.Column, a.Columns-1)
		case seen[[2]int32{cell.Row, cell.Column}]:
			return nil, invalidArgs(path, reasonInvalid, "cell (%d, %d) is given twice", cell.Row, cell.Column)
		}
		seen[[2]int32{cell.Row, cell.Column}] = true
		if cell.Text == "" {
			continue
		}
		g.Cells = append(g.Cells, drawing.TableCell{Row: int(cell.Row), Column: int(cell.Column), RowSpan: 1, ColumnSpan: 1, Text: cell.Text, Height: height})
	}
	if err := g.Check(); err != nil {
		return nil, failed("%v: give positive sizes", err)
	}
	e, err := c.Create("", style{a.Layer, a.Color, nil}, g)
	if err != nil {
		return nil, err
	}
	return &enginev1.EntityCreateTableResult{Handle: handleResult(e)}, nil
}

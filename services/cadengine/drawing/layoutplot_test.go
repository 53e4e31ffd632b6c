package drawing

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestPlotLayout plots an A3 sheet with a 1:50 window on model space: a
// 5 m model line is 100 mm on the paper, where the viewport's centre
// maps the view's centre; what lies off the window, on a frozen layer or
// on a layer the viewport freezes is left out.
func TestPlotLayout(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	tx := NewTx(d, 0)
	tx.SetLayouts(d.Layouts().With(-1, Layout{Name: "Sheet", Paper: "A3", Width: 420, Height: 297}))
	d.SetLayer("cold", &Layer{Name: "cold", Color: 5, Linetype: "Continuous", On: true, Frozen: true})
	d.SetLayer("vpcold", &Layer{Name: "vpcold", Color: 3, Linetype: "Continuous", On: true})
	d.SetLayer(NoPlotLayer, &Layer{Name: NoPlotLayer, Color: 7, Linetype: "Continuous", On: true})
	add := func(layout, layer string, g Geometry) *Entity {
		return d.Add(&Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Layout: layout, Geom: g})
	}
	line := add("", "0", Line{A: geom.Pt(0, 0), B: geom.Pt(5000, 0)})
	dim := add("", "0", Dimension{Type: enginev1.DimensionKind_DIMENSION_KIND_ALIGNED, P1: geom.Pt(0, 0), P2: geom.Pt(5000, 0), Offset: -500, Style: "ISO-25", Scale: 50})
	add("", "0", Circle{C: geom.Pt(9000, 0), R: 500}) // off the window, on the paper
	add("", "cold", Circle{C: geom.Pt(2500, 0), R: 500})
	add("", "vpcold", Circle{C: geom.Pt(2500, 0), R: 700})
	v := NewViewport(20, 20, 200, 150, geom.Pt(2500, 0), 1.0/50, 2)
	v.Frozen = []string{"VPCOLD"}
	vp := add("Sheet", "0", v)
	add("Sheet", NoPlotLayer, Line{A: geom.Pt(0, 0), B: geom.Pt(10, 10)})
	add("Other", "0", Line{A: geom.Pt(0, 0), B: geom.Pt(10, 10)})

	p, err := d.PlotLayout("sheet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout.Width != 420 || p.Layout.Height != 297 || len(p.Views) != 1 || len(p.Paper) != 1 || p.Paper[0] != vp {
		t.Fatalf("PlotLayout = %+v, want the A3 sheet, its viewport, and only it on the paper", p)
	}
	view := p.Views[0]
	if view.Handle != vp.Handle || view.Frame != (geom.Box{Min: geom.Pt(20, 20), Max: geom.Pt(220, 170), NonEmpty: true}) {
		t.Errorf("view %d frame %+v, want %d [20,20]–[220,170]", view.Handle, view.Frame, vp.Handle)
	}
	if len(view.Entities) != 2 || view.Entities[0].Handle != line.Handle || view.Entities[1].Handle != dim.Handle {
		t.Fatalf("the window shows %d entities, want the line and its dimension", len(view.Entities))
	}
	// The dimension reads the model's 5000, not the paper's 100, its
	// text 2.5 mm tall (ISO-25's at a dimension scale of 50, 1:50).
	texts := view.Entities[1].Geom.(Dimension).Picture().Texts
	if len(texts) != 1 || texts[0].Text != "5000" || math.Abs(texts[0].Height-2.5) > 1e-9 {
		t.Errorf("the dimension on paper shows %+v, want 5000, 2.5 mm tall", texts)
	}
	got := view.Entities[0].Geom.(Line)
	// The view's centre (2500, 0) is the frame's (120, 95); 50 model
	// millimetres are one on paper.
	if !near(got.A, geom.Pt(120-2500.0/50, 95)) || !near(got.B, geom.Pt(120+2500.0/50, 95)) || math.Abs(got.B.Sub(got.A).Len()-100) > 1e-9 {
		t.Errorf("the line on paper runs %v–%v, want (70, 95)–(170, 95), 100 mm", got.A, got.B)
	}
	if line.Geom.(Line).B.X != 5000 {
		t.Error("plotting changed the model's line")
	}
	if _, err := d.PlotLayout("nope", nil); !errors.Is(err, ErrNoLayout) {
		t.Errorf("PlotLayout(nope) = %v, want ErrNoLayout", err)
	}
}

func near(a, b geom.Vec) bool { return a.Sub(b).Len() < 1e-9 }

// TestDashedOnPaper: with PSLTSCALE 1 a dash is as long on paper
// whatever the viewport's scale: DASHED's 12.7 mm (acadiso) times
// LTSCALE.
func TestDashedOnPaper(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	d.SetLinetypes(NewLinetypes(2, nil))
	e := &Entity{Layer: "0", Color: 256, Linetype: "DASHED", Geom: Line{A: geom.Pt(0, 0), B: geom.Pt(200, 0)}}
	pic, ok, err := d.DashedOnPaper(e, 0.25, nil)
	if err != nil || !ok {
		t.Fatalf("DashedOnPaper = %v, %v", ok, err)
	}
	first := pic.Strokes[0].(geom.Segment)
	if l := first.B.Sub(first.A).Len(); math.Abs(l-2*12.7) > 1e-9 {
		t.Errorf("first dash %v mm, want %v (12.7 × LTSCALE 2)", l, 2*12.7)
	}
	d.Units = enginev1.Units_UNITS_IN
	if u := d.PaperPatternUnit(); u != 25.4 {
		t.Errorf("PaperPatternUnit in inches = %v, want 25.4", u)
	}
}

// TestPlotLayoutBudget: a plot that would draw more than the budget
// allows is refused up front, and a call that has ended stops it.
func TestPlotLayoutBudget(t *testing.T) {
	d := NewDocument("doc", "d", enginev1.Units_UNITS_MM, time.Unix(0, 0))
	tx := NewTx(d, 0)
	tx.SetLayouts(d.Layouts().With(-1, Layout{Name: "S", Width: 420, Height: 297}))
	for i := range 10 {
		d.Add(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Circle{C: geom.Pt(float64(i), 0), R: 1}})
	}
	d.Add(&Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "S", Geom: NewViewport(0, 0, 100, 100, geom.Pt(0, 0), 1, 2)})
	var tl *TooLargeError
	if _, err := d.PlotLayout("S", NewBudget(context.Background(), 5)); !errors.As(err, &tl) || tl.Needed != 11 {
		t.Errorf("PlotLayout within 5 = %v, want too large: 11 needed (ten circles and the frame)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.PlotLayout("S", NewBudget(ctx, 1000)); !errors.Is(err, context.Canceled) {
		t.Errorf("PlotLayout of an ended call = %v, want its context's error", err)
	}
}

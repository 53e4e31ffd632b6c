package dxf

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// geomOf are the entities of d whose geometry is a T, with their
// entities.
func geomOf[T drawing.Geometry](d *drawing.Document) ([]T, []*drawing.Entity) {
	var gs []T
	var es []*drawing.Entity
	for _, e := range d.Entities() {
		if g, ok := e.Geom.(T); ok {
			gs, es = append(gs, g), append(es, e)
		}
	}
	return gs, es
}

// corpusDoc is the drawing of the corpus file named.
func corpusDoc(t *testing.T, name string) *drawing.Document {
	t.Helper()
	for _, cf := range dxftest.CorpusFiles(t) {
		if cf.Name == name {
			return buildFile(t, cf.Data)
		}
	}
	t.Fatalf("no corpus file %s", name)
	return nil
}

// roundTrip writes d as 2018 and R12, checks both with ezdxf (clean
// audit) and returns the drawing read back from the 2018 file.
func roundTrip(t *testing.T, d *drawing.Document) *drawing.Document {
	t.Helper()
	r12 := Write(d)
	ezdxftest.Audit(t, r12)
	buildFile(t, []byte(r12))
	out := Write2018(d)
	ezdxftest.Audit(t, out)
	return buildFile(t, []byte(out))
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func nearVecs(a, b []geom.Vec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i].X, b[i].X, 1e-9) || !near(a[i].Y, b[i].Y, 1e-9) {
			return false
		}
	}
	return true
}

// TestNativeMultileader: a MULTILEADER with text is a native leader that
// carries its text: its line runs from its vertex through its last point
// along its dogleg, its arrowhead is the context's size, its text is
// where the file has it; bounded near ezdxf's extents (which estimate
// the text alike); written back as a MULTILEADER that ezdxf audits clean
// and that reads back the same.
func TestNativeMultileader(t *testing.T) {
	d := corpusDoc(t, "LibreDWG__libredwg__test__test-data__2010__Leader.dxf")
	gs, _ := geomOf[drawing.Leader](d)
	var g drawing.Leader
	for _, x := range gs {
		if x.Multi {
			g = x
		}
	}
	if !g.Multi {
		t.Fatal("no native multileader")
	}
	want := []geom.Vec{geom.Pt(20.35815762854747, 13.73800829099032), geom.Pt(18.21036876255964, 14.54310949558873), geom.Pt(17.85036876255964, 14.54310949558873)}
	if !nearVecs(g.V, want) {
		t.Errorf("V = %v, want %v (the line's vertex, the last point, the dogleg's end)", g.V, want)
	}
	if g.Size != 0.18 || !g.Arrow {
		t.Errorf("arrow %v size %g, want a 0.18 arrowhead", g.Arrow, g.Size)
	}
	if g.Text == nil || g.Text.Text != "LEADER" || g.Text.Height != 0.18 || g.Text.Attach != 3 || !nearVecs([]geom.Vec{g.Text.P}, []geom.Vec{geom.Pt(17.76036876255964, 14.63310949558874)}) {
		t.Fatalf("Text = %+v, want LEADER 0.18 high, attached top right at (17.76, 14.633)", g.Text)
	}
	// ezdxf's extents of it; the text is estimated, as ezdxf does, but
	// ezdxf's estimate of this one is a little narrower.
	box := geom.Box{Min: geom.Pt(16.758458803, 13.738008291), Max: geom.Pt(20.358157629, 14.633109496), NonEmpty: true}
	if b := g.Bounds(); !nearBox(b, box, 0.1) {
		t.Errorf("Bounds() = %v, want ezdxf's %v", b, box)
	}

	doc := drawing.NewDocument("doc-m", "m", enginev1.Units_UNITS_MM, time.Time{})
	more := g
	more.More = [][]geom.Vec{{geom.Pt(22, 10), geom.Pt(18.21036876255964, 14.54310949558873)}}
	doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: more})
	back, _ := geomOf[drawing.Leader](roundTrip(t, doc))
	if len(back) != 1 {
		t.Fatalf("read back %d leaders, want 1", len(back))
	}
	b := back[0]
	if !b.Multi || !nearVecs(b.V, more.V) || len(b.More) != 1 || !nearVecs(b.More[0], more.More[0]) || b.Size != more.Size {
		t.Errorf("read back %+v, want %+v", b, more)
	}
	if b.Text == nil || *b.Text != *more.Text {
		t.Errorf("read back text %+v, want %+v", b.Text, more.Text)
	}
}

// TestNativeTolerance: a TOLERANCE is a native tolerance at its
// insertion, along its direction, its style's text height; it is drawn
// as framed compartments with the GD&T symbols as Unicode characters; it
// is written back as a TOLERANCE (2018) or its lines and texts (R12)
// that ezdxf audits clean, and reads back the same.
func TestNativeTolerance(t *testing.T) {
	d := corpusDoc(t, "LibreDWG__libredwg__test__test-data__2010__Leader.dxf")
	gs, _ := geomOf[drawing.Tolerance](d)
	if len(gs) != 1 {
		t.Fatalf("%d tolerances, want 1", len(gs))
	}
	g := gs[0]
	if g.Text != `{\Fgdt;j}%%v1%%v%%v%%v%%v` || g.P != geom.Pt(20.04893464846821, 16.80016719146989) || g.Style != "Standard" || !(g.Height > 0) {
		t.Errorf("read %+v", g)
	}
	p := g.Picture()
	var texts []string
	for _, x := range p.Texts {
		texts = append(texts, x.Text)
	}
	if !reflect.DeepEqual(texts, []string{"1"}) || len(p.Strokes) != 8+3 {
		t.Errorf("Picture() texts %q and %d strokes, want 1 and the position symbol (3 strokes) in two framed compartments (8 edges)", texts, len(p.Strokes))
	}

	made, err := drawing.NewTolerance(geom.Pt(10, 20), 2.5, 90, "Standard", []string{mustSymbol(t, "position"), mustSymbol(t, "diameter") + "0.1" + mustSymbol(t, "mmc"), "A", "B"}, []string{mustSymbol(t, "flatness"), "0.05"})
	if err != nil {
		t.Fatal(err)
	}
	b := made.Bounds()
	// Turned 90°, the frame runs up from (10, 20), its first row (5
	// wide) centred on it, its second below it (to the right).
	if !near(b.Min.X, 7.5, 1e-9) || !near(b.Max.X, 17.5, 1e-9) || !near(b.Min.Y, 20, 1e-9) || !(b.Max.Y > 20+4*5) {
		t.Errorf("Bounds() of a frame turned 90° at (10, 20) = %v, want x 7.5–17.5 (two rows), y from 20 up past 40 (four compartments)", b)
	}
	moved := made.Transformed(geom.Translate(geom.Pt(5, 5))).(drawing.Tolerance)
	if moved.P != geom.Pt(15, 25) || moved.Rotation != 90 {
		t.Errorf("moved = %+v", moved)
	}
	doc := drawing.NewDocument("doc-t", "t", enginev1.Units_UNITS_MM, time.Time{})
	doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: made})
	back, _ := geomOf[drawing.Tolerance](roundTrip(t, doc))
	if len(back) != 1 || !near(back[0].Rotation, made.Rotation, 1e-9) {
		t.Fatalf("read back %+v, want %+v", back, made)
	}
	back[0].Rotation = made.Rotation
	if back[0] != made {
		t.Errorf("read back %+v, want %+v", back[0], made)
	}
	if r12 := Write(doc); strings.Contains(r12, "TOLERANCE") || !strings.Contains(r12, "0.05") {
		t.Error("R12 is written without its frame's texts, or with a TOLERANCE it has not")
	}
}

func mustSymbol(t *testing.T, name string) string {
	t.Helper()
	s, ok := drawing.GDTSymbol(name)
	if !ok {
		t.Fatalf("GDTSymbol(%q) = false", name)
	}
	return s
}

// TestNativeViewport: a paper-space VIEWPORT is a native viewport on its
// layout, with its frame, view and scale; the layout's own (id 1) is
// kept and not drawn; a window is drawn as its frame; written back, it
// reads back the same (its frozen layers and lock too), and ezdxf
// audits it clean.
func TestNativeViewport(t *testing.T) {
	d := corpusDoc(t, "mozman__ezdxf__examples_dxf__text_in_viewports.dxf")
	gs, es := geomOf[drawing.Viewport](d)
	if len(gs) == 0 {
		t.Fatal("no native viewports")
	}
	paper, windows := 0, 0
	for i, g := range gs {
		if es[i].Layout == "" {
			t.Errorf("viewport %s in model space", drawing.FormatHandle(es[i].Handle))
		}
		if g.Paper() {
			paper++
			if !g.Picture().Empty() {
				t.Error("the layout's own viewport is drawn")
			}
			continue
		}
		windows++
		if g.Status > 0 && len(g.Picture().Strokes) != 4 {
			t.Errorf("viewport %d draws %d strokes, want its frame", g.ID, len(g.Picture().Strokes))
		}
		if !(g.Scale() > 0) {
			t.Errorf("viewport %d has scale %g", g.ID, g.Scale())
		}
	}
	if paper == 0 || windows == 0 {
		t.Errorf("%d layout viewports and %d windows, want both", paper, windows)
	}

	doc := drawing.NewDocument("doc-v", "v", enginev1.Units_UNITS_MM, time.Time{})
	doc.SetLayer("Hidden", &drawing.Layer{Name: "Hidden", Color: 1, Linetype: "Continuous", On: true})
	vp := drawing.NewViewport(20, 30, 200, 100, geom.Pt(500, 250), 0.02, 2)
	vp.Frozen, vp.Locked = []string{"Hidden"}, true
	if !near(vp.ViewHeight, 5000, 1e-9) || vp.C != geom.Pt(120, 80) {
		t.Errorf("NewViewport = %+v, want 5000 high at 1:50, centred at (120, 80)", vp)
	}
	doc.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Layout: "Layout1", Geom: vp})
	// The 2018 file has the layout's view of its paper (id 1) before the
	// window, as AutoCAD needs: an A3 sheet's (the layout the table lacks).
	back, bes := geomOf[drawing.Viewport](roundTrip(t, doc))
	if len(back) != 2 || bes[0].Layout != "Layout1" || bes[1].Layout != "Layout1" {
		t.Fatalf("read back %v", back)
	}
	if paper := (drawing.Viewport{C: geom.Pt(210, 148.5), W: 420, H: 297, View: geom.Pt(210, 148.5), ViewHeight: 297, ID: 1, Status: 1}); !reflect.DeepEqual(back[0], paper) {
		t.Errorf("read back %+v, want the paper's view %+v", back[0], paper)
	}
	if !reflect.DeepEqual(back[1], vp) {
		t.Errorf("read back %+v, want %+v", back[1], vp)
	}
	// R12 keeps all but the lock, which it cannot say.
	r12, res := geomOf[drawing.Viewport](buildFile(t, []byte(Write(doc))))
	want := vp
	want.Locked = false
	if len(r12) != 1 || res[0].Layout != "Layout1" || !reflect.DeepEqual(r12[0], want) {
		t.Errorf("read back from R12 %+v, want %+v", r12, want)
	}
}

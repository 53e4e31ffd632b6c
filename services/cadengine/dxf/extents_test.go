package dxf

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// extentsTolerance is how far each side of the imported model space's
// extents may be from ezdxf's, as a fraction of the larger side of
// ezdxf's box.
const extentsTolerance = 0.02

// extentsDisagree are the corpus files whose model-space extents still
// disagree with ezdxf's, each with what ezdxf does that the engine does
// not (yet).
var extentsDisagree = map[string]string{
	// ezdxf does not know R10's 3DLINE and leaves it out; the engine
	// keeps it and bounds it by its ends.
	"bert__libdxf__examples__all_R10_entities.dxf":           "a 3DLINE, which ezdxf leaves out",
	"LibreDWG__libredwg__test__test-data__r10__entities.dxf": "a 3DLINE, which ezdxf leaves out",
	// A dimension whose block the file does not have (or does not
	// name): ezdxf draws nothing of it; the engine draws it from its
	// definition points (native) or bounds it by them (preserved).
	"mozman__ezdxf__integration_tests__data__duplicate_handles.dxf":       "DIMENSIONs whose blocks (*D0, *D1) are missing",
	"openscad__openscad__examples__Old__example009.dxf":                   "DIMENSIONs without blocks",
	"openscad__openscad__tests__data__scad__misc__dim-all.dxf":            "DIMENSIONs without blocks",
	"qcad__qcad__support__data__tests__dimarclength__dimarclength005.dxf": "ARC_DIMENSIONs without blocks or proxy graphics",
	// ezdxf has no picture of a TOLERANCE; the engine bounds it by its
	// frame, as AutoCAD draws it.
	"qcad__qcad__support__data__tests__tolerance__tolerance000.dxf": "a TOLERANCE, which ezdxf does not draw",
	// The engine reads "2,5" as 2.5 (lenient reading of decimal
	// commas); ezdxf reads 2.
	"openscad__openscad__tests__data__dxf__nothing-decimal-comma-separated.dxf": "numbers with decimal commas",
}

// TestCorpusExtents holds the model-space extents of every corpus file
// ezdxf reads to ezdxf's (DESIGN §10: ezdxf.bbox.extents, blocks
// exploded, text estimated without fonts): the extents with text agree
// with ezdxf's within extentsTolerance, or those without text (no TEXT or
// MTEXT, no text of a dimension, a preserved entity or the entities an
// insert places) agree with ezdxf's without text. A file of
// extentsDisagree must disagree, so that the list shrinks as the engine
// learns. With -v it logs how many agree.
func TestCorpusExtents(t *testing.T) {
	var agree, total, agreeWith, withExtents int // of the files ezdxf reads; of those with extents
	seen := map[string]bool{}
	for _, cf := range dxftest.CorpusFiles(t) {
		if !cf.Oracle.Loads {
			continue
		}
		total++
		seen[cf.Name] = true
		if cf.Oracle.Extents != nil {
			withExtents++
		}
		t.Run(cf.Name, func(t *testing.T) {
			f, err := ReadBytes(cf.Data)
			if err != nil {
				t.Fatalf("ReadBytes: %v", err)
			}
			d := drawing.NewDocument("doc-x", "corpus", f.Units, time.Time{})
			if err := f.Build(d); err != nil {
				t.Fatalf("Build: %v", err)
			}
			var all, noText geom.Box
			d.Each(0, func(e *drawing.Entity) bool {
				if e.Layout == "" {
					all.AddBox(e.Geom.Bounds())
					noText.AddBox(boundsWithoutText(e.Geom))
				}
				return true
			})
			withErr := extentsDiff(all, cf.Oracle.Extents)
			noTextErr := extentsDiff(noText, cf.Oracle.ExtentsNoText)
			ok := withErr == "" || noTextErr == ""
			why, listed := extentsDisagree[cf.Name]
			switch {
			case ok && listed:
				t.Errorf("the extents agree with ezdxf's, but extentsDisagree lists the file (%s): take it out", why)
			case !ok && !listed:
				t.Errorf("model-space extents disagree with ezdxf's:\nwith text: %s\nwithout text: %s", withErr, noTextErr)
			}
			if ok {
				agree++
				if cf.Oracle.Extents != nil {
					agreeWith++
				}
			}
		})
	}
	for name := range extentsDisagree {
		if !seen[name] {
			t.Errorf("extentsDisagree lists %s, which is no corpus file that ezdxf reads", name)
		}
	}
	if testing.Verbose() {
		t.Logf("%d of the %d files ezdxf reads agree with ezdxf's model-space extents within %g%% (%d of the %d with extents); %d listed in extentsDisagree",
			agree, total, extentsTolerance*100, agreeWith, withExtents, len(extentsDisagree))
	}
}

// boundsWithoutText is g's extents with its text left out: nothing for
// a text or a multi-line text (whose lines and stacks' bars are its
// text's, and which ezdxf's extents without text leave out), the picture without its text of an entity drawn as a picture
// (a dimension, multi-line text, an attribute definition…), a preserved
// entity's points derived again without its text, and the entities an
// insert places each without its text (its attributes left out).
func boundsWithoutText(g drawing.Geometry) geom.Box {
	switch g := g.(type) {
	case drawing.Text, drawing.MText:
		return geom.Box{}
	case drawing.Hatch:
		return g.Bounds() // its pattern lies within its loops
	case drawing.Insert:
		if g.Def == nil || len(g.Def.Entities) == 0 {
			return g.Bounds()
		}
		var b geom.Box
		for _, e := range g.Placed() {
			b.AddBox(boundsWithoutText(e.Geom))
		}
		return b
	case drawing.Foreign:
		head, subs := recordsOf(g)
		_, pts := derive(head, subs, false)
		var b geom.Box
		for _, p := range pts {
			b.AddPoint(g.Place.Point(p)) // where it has been moved to
		}
		return b
	case drawing.Pictured:
		p := g.Picture()
		p.Texts = nil
		return p.Bounds()
	}
	return g.Bounds()
}

// extentsDiff is "" when box agrees with ezdxf's extents want (xmin,
// ymin, xmax, ymax; nil when ezdxf finds none) within extentsTolerance,
// and else says how they differ.
func extentsDiff(box geom.Box, want []float64) string {
	got := fmt.Sprintf("[%g %g %g %g]", box.Min.X, box.Min.Y, box.Max.X, box.Max.Y)
	switch {
	case len(want) != 4 && box.NonEmpty:
		return fmt.Sprintf("got %s, ezdxf finds none", got)
	case len(want) != 4:
		return ""
	case !box.NonEmpty:
		return fmt.Sprintf("got none, ezdxf %v", want)
	}
	tol := extentsTolerance * math.Max(want[2]-want[0], want[3]-want[1])
	for i, v := range []float64{box.Min.X, box.Min.Y, box.Max.X, box.Max.Y} {
		if !(math.Abs(v-want[i]) <= tol) {
			return fmt.Sprintf("got %s, ezdxf %v (side %d off by %.3g, tolerance %.3g)", got, want, i, v-want[i], tol)
		}
	}
	return ""
}

// foreignOfType is the first preserved entity of type typ in d.
func foreignOfType(t *testing.T, d *drawing.Document, typ string) drawing.Foreign {
	t.Helper()
	var out drawing.Foreign
	d.Each(0, func(e *drawing.Entity) bool {
		g, ok := e.Geom.(drawing.Foreign)
		if ok && g.Type == typ {
			out = g
		}
		return !ok || g.Type != typ
	})
	if out.Type == "" {
		t.Fatalf("no preserved %s", typ)
	}
	return out
}

// buildFile is the drawing of a DXF file's bytes.
func buildFile(t *testing.T, data []byte) *drawing.Document {
	t.Helper()
	f, err := ReadBytes(data)
	if err != nil {
		t.Fatalf("ReadBytes: %v", err)
	}
	d := drawing.NewDocument("doc-x", "corpus", f.Units, time.Time{})
	if err := f.Build(d); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return d
}

// nearBox says whether the boxes' sides are within tol of each other.
func nearBox(a, b geom.Box, tol float64) bool {
	return math.Abs(a.Min.X-b.Min.X) <= tol && math.Abs(a.Min.Y-b.Min.Y) <= tol && math.Abs(a.Max.X-b.Max.X) <= tol && math.Abs(a.Max.Y-b.Max.Y) <= tol
}

package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// A few kilobytes of DXF that describe endless or astronomical work must
// buy bounded work: the engine answers each with a result or a typed error
// (too_large with the count it would have needed), and never starts what
// it cannot finish. None of these tests times anything; each would hang
// the test binary, not fail slowly, if the work were not bounded.

// TestNestedBomb: ten levels of ten inserts (10^10 lines in 2 KB) import,
// measure and export as DXF at once; drawing them answers too_large
// naming 10^10, in every format and through every path.
func TestNestedBomb(t *testing.T) {
	e := newEngine(t, nil)
	content := dxftest.NestedBomb(10, 10)
	if len(content) > 4096 {
		t.Fatalf("the bomb is %d bytes; the point is that it is small", len(content))
	}
	f := importDXF(t, e, "bomb", content)

	bb := f.ok(enginev1.ToolAnalysisBoundingBox, nil)
	if bb["min_x"].(float64) != 0 || bb["max_x"].(float64) != 9*10+9*9+1 {
		t.Errorf("bounding box = %v, want x from 0 to 172", bb)
	}
	if dxf := exportOf(t, f, "dxf"); !strings.Contains(dxf, "\nB9\n") {
		t.Error("the DXF export has no block B9")
	}
	for _, format := range []string{"svg", "png", "pdf"} {
		te := f.fail(enginev1.ToolDocumentExport, obj{"format": format}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
		if te.GetNeeded() != 1e10 || te.GetLimit() != 10_000_000 {
			t.Errorf("export %s: too_large needed %d of %d, want 1e10 of 1e7", format, te.GetNeeded(), te.GetLimit())
		}
	}
	_, err := e.ExportDocument(context.Background(), &enginev1.ExportDocumentRequest{DocumentId: f.doc, Format: enginev1.ExportFormat_EXPORT_FORMAT_PNG})
	if engine.ReasonOf(err) != enginev1.ErrorReason_ERROR_REASON_TOO_LARGE {
		t.Errorf("ExportDocument(png) = %v, want TOO_LARGE", err)
	}
	top := f.ok(enginev1.ToolEntityList, nil)["entities"].([]any)[0].(obj)["handle"].(string)
	f.fail(enginev1.ToolPointFromSnap, obj{"handle": top, "snap": "end"}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
	f.fail(enginev1.ToolSelectionWindow, obj{"x1": 0.5, "y1": -1, "x2": 0.6, "y2": 100, "crossing": true}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
	// Exploding takes one level apart: ten inserts of the level below.
	if n := f.ok(enginev1.ToolBlockExplode, obj{"handle": top})["count"].(float64); n != 10 {
		t.Errorf("block_explode made %v entities, want 10", n)
	}

	// A smaller bomb, within a smaller limit, draws.
	small := engineWithLimit(t, 1000)
	f = importDXF(t, small, "three", dxftest.NestedBomb(3, 10))
	if svg := exportOf(t, f, "svg"); strings.Count(svg, "<line") != 1000 {
		t.Errorf("the SVG of 3 levels of 10 draws %d lines, want 1000", strings.Count(svg, "<line"))
	}
	f = importDXF(t, small, "four", dxftest.NestedBomb(4, 10))
	f.fail(enginev1.ToolDocumentExport, obj{"format": "svg"}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
}

func engineWithLimit(t *testing.T, limit int64) *engine.Engine {
	t.Helper()
	e, err := engine.New(memory.New(), engine.Options{ExpansionLimit: limit})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestBlockCycles: a block that inserts itself, or blocks that insert
// each other in a ring, are refused at import (4000), naming the blocks.
func TestBlockCycles(t *testing.T) {
	e := newEngine(t, nil)
	for _, tc := range []struct {
		name, content, want string
	}{
		{"self", dxftest.SelfInsert(), `block "LOOP" inserts itself`},
		{"ring", dxftest.Cycle(), `"A" → "B" → "C" → "A"`},
	} {
		_, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Name: proto.String(tc.name), Content: tc.content})
		if !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("import %s = %v, want invalid naming %s", tc.name, err, tc.want)
		}
	}
}

// TestHostileFiles: each small, hostile file answers at once with a
// result or a typed error, through import, extents and every export.
func TestHostileFiles(t *testing.T) {
	e := newEngine(t, nil)
	for _, tc := range []struct {
		name, content string
		// tooLarge: drawing it answers too_large; else it draws.
		tooLarge bool
	}{
		{"grid of 10^5 × 10^5", dxftest.Grid(100000, 100000), true},
		{"grid of 3 × 2", dxftest.Grid(3, 2), false},
		{"bulge of 1e150", dxftest.Bulge(1e150), false},
		{"ANSI31 at 1e-12 over 1 km", dxftest.DenseHatch(1e6, 1e-12), false},
		{"DASHED at a linetype scale of 1e-12 over 1 km", dxftest.TinyLinetype(1e6, 1e-12), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := importDXF(t, e, tc.name, tc.content)
			f.ok(enginev1.ToolAnalysisBoundingBox, nil)
			exportOf(t, f, "dxf")
			for _, format := range []string{"svg", "png", "pdf"} {
				if tc.tooLarge {
					f.fail(enginev1.ToolDocumentExport, obj{"format": format}, enginev1.ErrorKind_ERROR_KIND_TOO_LARGE)
				} else {
					f.ok(enginev1.ToolDocumentExport, obj{"format": format})
				}
			}
		})
	}
	// A bulge of 1e300 makes an arc whose centre overflows: the polyline
	// is preserved as the file has it, not native.
	f := importDXF(t, e, "1e300", dxftest.Bulge(1e300))
	if ents := f.entities(); len(ents) != 1 || ents[0]["type"] != "foreign" || ents[0]["dxf_type"] != "LWPOLYLINE" {
		t.Errorf("a polyline of bulge 1e300 imported as %s, want one preserved LWPOLYLINE", js(ents))
	}
	for _, format := range []string{"dxf", "svg", "png"} {
		f.ok(enginev1.ToolDocumentExport, obj{"format": format})
	}
	// Coordinates that are not numbers are a typed error naming the line.
	_, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Content: dxftest.NaNPoint()})
	if !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "line") {
		t.Errorf("import of a NaN coordinate = %v, want invalid naming the line", err)
	}
}

// TestCancelStopsExport: an export whose call is cancelled stops drawing
// and answers cancelled, however much it had left to draw.
func TestCancelStopsExport(t *testing.T) {
	e := engineWithLimit(t, 1<<62)
	f := importDXF(t, e, "bomb", dxftest.NestedBomb(10, 10))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := e.ExportDocument(ctx, &enginev1.ExportDocumentRequest{DocumentId: f.doc, Format: enginev1.ExportFormat_EXPORT_FORMAT_SVG})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ExportDocument of 10^10 lines, cancelled = %v, want context.Canceled", err)
	}
}

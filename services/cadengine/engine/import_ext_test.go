package engine_test

import (
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/dxf"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

var update = flag.Bool("update", false, "rewrite testdata/ezdxf_r2010.dxf with python3's ezdxf")

// importDXF imports content with ImportDocument and returns a fixture on
// the new document.
func importDXF(t *testing.T, e *engine.Engine, name, content string) *fixture {
	t.Helper()
	resp, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Name: &name, Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF, Content: content})
	info := resp.GetDocument()
	if err != nil {
		t.Fatalf("ImportDocument: %v", err)
	}
	if info.Revision != 0 || info.Name != name {
		t.Errorf("ImportDocument = revision %d, name %q; want 0, %q", info.Revision, info.Name, name)
	}
	return &fixture{t: t, e: e, doc: info.DocumentId}
}

// entities lists every entity of the fixture's document, in handle order.
func (f *fixture) entities() []obj {
	f.t.Helper()
	var out []obj
	args := obj{"page_size": 1000}
	for {
		res := f.ok(enginev1.ToolEntityList, args)
		for _, e := range res["entities"].([]any) {
			out = append(out, e.(obj))
		}
		tok, _ := res["next_page_token"].(string)
		if tok == "" {
			return out
		}
		args["page_token"] = tok
	}
}

// layerState is a layer as the round trip keeps it (lineweight aside).
func layerState(l *enginev1.Layer) string {
	return js([]any{l.Name, l.Color, l.Linetype, l.On, l.Frozen, l.Locked, l.EntityCount})
}

// checkSameDocument compares two documents entity by entity, in handle
// order: equal fingerprints, except that an ellipse of a must be a
// polyline in b through points of the ellipse (the R12 export flattens
// ellipses). It also compares units, current layer and layers.
func checkSameDocument(t *testing.T, a, b *fixture) {
	t.Helper()
	ia, ib := a.info(), b.info()
	if ia.Units != ib.Units || ia.CurrentLayer != ib.CurrentLayer || ia.EntityCount != ib.EntityCount {
		t.Errorf("imported document = units %v, current %q, %d entities; want %v, %q, %d", ib.Units, ib.CurrentLayer, ib.EntityCount, ia.Units, ia.CurrentLayer, ia.EntityCount)
	}
	if len(ia.Layers) != len(ib.Layers) {
		t.Fatalf("imported layers = %d, want %d", len(ib.Layers), len(ia.Layers))
	}
	for i := range ia.Layers {
		if got, want := layerState(ib.Layers[i]), layerState(ia.Layers[i]); got != want {
			t.Errorf("imported layer %d = %s, want %s", i, got, want)
		}
	}
	ea, eb := a.entities(), b.entities()
	if len(ea) != len(eb) {
		t.Fatalf("imported %d entities, want %d", len(eb), len(ea))
	}
	for i := range ea {
		x, y := ea[i], eb[i]
		if x["type"] != "ellipse" {
			if x["fingerprint"] != y["fingerprint"] {
				t.Errorf("entity %d: imported %s, want %s", i, js(y), js(x))
			}
			continue
		}
		if y["type"] != "polyline" || x["layer"] != y["layer"] || x["color"] != y["color"] {
			t.Errorf("ellipse %d imported as %s, want a polyline with its style", i, js(y))
			continue
		}
		for _, p := range y["points"].([]any) {
			q := pt(p)
			res := a.ok(enginev1.ToolPointFromSnap, obj{"handle": x["handle"], "snap": "near", "ref_x": q[0], "ref_y": q[1]})
			if d := math.Hypot(res["x"].(float64)-q[0], res["y"].(float64)-q[1]); d > 1e-9 {
				t.Errorf("ellipse %d: polyline vertex %v is %g off the ellipse", i, q, d)
				break
			}
		}
	}
}

// r12 asks document_export for an R12 file.
var r12 = obj{"dxf_version": "r12"}

func TestImportRoundTripsTheExport(t *testing.T) {
	e := newEngine(t, nil)
	info, err := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{Units: enginev1.Units_UNITS_IN.Enum()})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	fillDocument(t, f)
	f.ok(enginev1.ToolEntityCreateText, obj{"text": `100%% at C:\U+dir, %%d, \U+0041`, "x": 0, "y": -3, "layer": "walls"})
	f.ok(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0, "bulge": 1}, obj{"x": 2, "y": 0, "bulge": 1}}, "closed": true, "linetype": "ByBlock", "layer": "walls"})

	first := importDXF(t, e, "back", exportWith(t, f, "dxf", r12))
	checkSameDocument(t, f, first)
	for _, l := range first.info().Layers {
		if l.Lineweight != -3 {
			t.Errorf("layer %s lineweight = %d, want -3 (R12 has no lineweights)", l.Name, l.Lineweight)
		}
	}

	// A second round trip changes nothing: not even the content hash.
	second := importDXF(t, e, "again", exportWith(t, first, "dxf", r12))
	if got, want := second.info().ContentHash, first.info().ContentHash; got != want {
		t.Errorf("content hash after a second round trip = %s, want %s", got, want)
	}

	// Without ellipses and lineweights the first round trip keeps the
	// content hash too.
	g := newFixture(t)
	g.ok(enginev1.ToolLayerCreate, obj{"name": "A", "color": 3, "linetype": "center"})
	g.ok(enginev1.ToolLayerModify, obj{"name": "A", "on": false})
	g.handle(enginev1.ToolEntityCreateArc, obj{"cx": 1.5, "cy": -2, "radius": 1e-3, "start_angle": 359.5, "end_angle": 0.25, "layer": "A", "color": 0})
	g.handle(enginev1.ToolEntityCreateText, obj{"text": "Straße ≥ 3", "x": 1e6, "y": -1e-7, "rotation": 271})
	g.ok(enginev1.ToolLayerLock, obj{"name": "A"})
	back := importDXF(t, e, "plain", exportWith(t, g, "dxf", r12))
	if got, want := back.info().ContentHash, g.info().ContentHash; got != want {
		t.Errorf("content hash after a round trip = %s, want %s", got, want)
	}
}

func TestImportTool(t *testing.T) {
	store := memory.New()
	e := newEngine(t, store)
	src := newFixture(t)
	fillDocument(t, src)
	content := exportWith(t, src, "dxf", r12)

	resp := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"name": "Imported", "format": "dxf", "content": content})
	if !resp.Ok {
		t.Fatalf("document_import = %v", resp.Error)
	}
	res := resultObj(resp.ResultJson)
	doc := res["document"].(obj)
	if res["imported"] != 8.0 || res["skipped"] != 0.0 || doc["name"] != "Imported" || doc["revision"] != 0.0 || doc["entity_count"] != 8.0 {
		t.Errorf("document_import = %s, want 8 imported, 0 skipped, revision 0", js(res))
	}
	f := &fixture{t: t, e: e, doc: doc["document_id"].(string)}
	checkSameDocument(t, src, f)

	// Committed whole: another engine over the store loads it as it is.
	again, err := engine.New(store, engine.Options{})
	if err != nil {
		t.Fatalf("New over the store: %v", err)
	}
	defer again.Close()
	reloaded := &fixture{t: t, e: again, doc: f.doc}
	if got, want := reloaded.info().ContentHash, f.info().ContentHash; got != want {
		t.Errorf("reloaded imported document content hash = %s, want %s", got, want)
	}

	// Writes to the new document follow the usual rules: layer 0 is
	// locked, as in the file.
	f.fail(enginev1.ToolEntityMove, obj{"handle": "102", "dx": 1, "dy": 0}, kindRefused)

	bad := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": "0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nx\n"})
	if bad.Ok || bad.Error.GetKind() != kindInvalid || bad.Error.GetPath() != "/content" || !strings.Contains(bad.Error.GetMessage(), "line 8") {
		t.Errorf("document_import of a bad number = %v, want invalid_args at /content naming line 8", bad.Error)
	}
	svg := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "svg", "content": "<svg/>"})
	if svg.Ok || svg.Error.GetKind() != kindInvalid || svg.Error.GetPath() != "/format" {
		t.Errorf("document_import of svg = %v, want invalid_args at /format", svg.Error)
	}
	empty := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": "  0\nEOF\n"})
	if !empty.Ok || resultObj(empty.ResultJson)["imported"] != 0.0 {
		t.Errorf("document_import of an empty drawing = %v, want an empty document", empty)
	}
}

func TestImportMalformed(t *testing.T) {
	e := newEngine(t, nil)
	for _, tt := range []struct {
		name, content string
		line          int
	}{
		{"empty", "", 1},
		{"blank", "\n\n", 1},
		{"not DXF", "hello\nworld\n", 1},
		{"binary", "AutoCAD Binary DXF\r\n\x1a\x00", 1},
		{"code without value", "0\nSECTION\n2\nHEADER\n0", 5},
		{"no section name", "0\nSECTION\n0\nENDSEC\n", 3},
		{"no ENDSEC", "0\nSECTION\n2\nENTITIES\n0\nPOINT\n10\n1\n20\n2\n", 10},
		{"no ENDSEC in header", "0\nSECTION\n2\nHEADER\n9\n$INSUNITS\n70\n4\n", 8},
		{"garbage at top", "0\nSECTION\n2\nBLOCKS\n0\nENDSEC\n8\nx\n", 7},
		{"bad number", "0\nSECTION\n2\nENTITIES\n0\nCIRCLE\n10\n1\n20\n2;5\n40\n1\n0\nENDSEC\n0\nEOF\n", 10},
		{"infinite number", "0\nSECTION\n2\nENTITIES\n0\nPOINT\n10\n1e999\n0\nENDSEC\n0\nEOF\n", 8},
		{"NaN", "0\nSECTION\n2\nENTITIES\n0\nPOINT\n10\nNaN\n0\nENDSEC\n0\nEOF\n", 8},
		{"bad integer", "0\nSECTION\n2\nTABLES\n0\nTABLE\n2\nLAYER\n0\nLAYER\n2\nA\n62\nred\n0\nENDTAB\n0\nENDSEC\n0\nEOF\n", 14},
		{"bad group code", "0\nSECTION\n2\nENTITIES\n0\nLINE\nten\n1\n0\nENDSEC\n0\nEOF\n", 7},
		{"entity without code 0", "0\nSECTION\n2\nENTITIES\n8\nA\n0\nENDSEC\n", 5},
		{"bad vertex", "0\nSECTION\n2\nENTITIES\n0\nPOLYLINE\n66\n1\n0\nVERTEX\n10\n?\n0\nSEQEND\n0\nENDSEC\n0\nEOF\n", 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF, Content: tt.content})
			var de *dxf.Error
			if !errors.As(err, &de) || !errors.Is(err, engine.ErrInvalid) {
				t.Fatalf("ImportDocument(%q) = %v, want a *dxf.Error wrapping ErrInvalid", tt.content, err)
			}
			if de.Line != tt.line {
				t.Errorf("ImportDocument(%q) line = %d (%v), want %d", tt.content, de.Line, err, tt.line)
			}
		})
	}
	if n := len(listAll(t, e)); n != 0 {
		t.Errorf("failed imports left %d documents", n)
	}
	big := strings.Repeat(" ", 64<<20+1)
	if _, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Content: big}); !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("ImportDocument of 64 MiB + 1 = %v, want ErrInvalid naming the limit", err)
	}
	if _, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Format: enginev1.ExportFormat_EXPORT_FORMAT_SVG, Content: "0\nEOF\n"}); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("ImportDocument(svg) = %v, want ErrInvalid", err)
	}
}

func listAll(t *testing.T, e *engine.Engine) []*enginev1.DocumentInfo {
	t.Helper()
	res, err := e.ListDocuments(context.Background(), &enginev1.ListDocumentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Documents
}

// dxfFile is a minimal DXF file around entity records.
func dxfFile(header, tables, entities string) string {
	return "0\nSECTION\n2\nHEADER\n" + header + "0\nENDSEC\n" +
		"0\nSECTION\n2\nTABLES\n" + tables + "0\nENDSEC\n" +
		"0\nSECTION\n2\nENTITIES\n" + entities + "0\nENDSEC\n0\nEOF\n"
}

func TestImportReadsWhatItCanAndSkipsTheRest(t *testing.T) {
	e := newEngine(t, nil)
	content := dxfFile(
		"9\n$INSUNITS\n70\n6\n9\n$CLAYER\n8\nfrozen\n",
		"0\nTABLE\n2\nLTYPE\n70\n1\n0\nLTYPE\n2\nFANCY\n0\nENDTAB\n"+
			"0\nTABLE\n2\nLAYER\n70\n4\n"+
			"0\nLAYER\n2\nfrozen\n70\n1\n62\n3\n6\nCONTINUOUS\n"+
			"0\nLAYER\n2\nXREF|walls\n70\n0\n62\n1\n"+
			"0\nLAYER\n2\nOff\n70\n4\n62\n-5\n6\nFANCY\n370\n50\n"+
			"0\nLAYER\n2\nOFF\n70\n0\n62\n1\n"+
			"0\nENDTAB\n",
		// Kept: a mirrored arc, a closed LWPOLYLINE with a bulge, text
		// with codes, an ellipse arc, a point on a layer the table lacks
		// (named in another case than an existing one) and a 2D polyline
		// whose spline frame point is left out, and a multi-line text.
		"0\nARC\n8\noff\n10\n1\n20\n0\n40\n2\n50\n0\n51\n90\n210\n0\n220\n0\n230\n-1\n"+
			"0\nLWPOLYLINE\n62\n4\n6\nDashed\n90\n3\n70\n1\n10\n0\n20\n0\n42\n0.5\n10\n2\n20\n0\n10\n2\n20\n2\n"+
			"0\nTEXT\n10\n1\n20\n2\n40\n0\n50\n-90\n1\n%%c20 %%p0.1 \\U+00e9%%u!%%%\n"+
			"0\nELLIPSE\n10\n0\n20\n0\n11\n2\n21\n0\n40\n0.5\n41\n0\n42\n1.5707963267948966\n"+
			"0\nPOINT\n8\nNewLayer\n10\n5\n20\n5\n"+
			"0\nPOLYLINE\n66\n1\n70\n0\n0\nVERTEX\n10\n0\n20\n0\n0\nVERTEX\n10\n9\n20\n9\n70\n16\n0\nVERTEX\n10\n1\n20\n0\n0\nSEQEND\n"+
			"0\nMTEXT\n1\nx\n"+
			// Preserved as foreign entities, and in the report by type: a
			// zero-length line, a circle without radius, an arc in a
			// tilted plane, a 3D polyline, empty text. Kept on a layout:
			// a paper-space point. Dropped, with the reason: a block
			// reference (of a block the file lacks), its two attribute
			// values with it.
			"0\nLINE\n10\n1\n20\n1\n11\n1\n21\n1\n"+
			"0\nCIRCLE\n40\n0\n"+
			"0\nARC\n40\n1\n50\n0\n51\n90\n210\n1\n220\n0\n230\n1\n"+
			"0\nPOINT\n67\n1\n"+
			"0\nPOLYLINE\n66\n1\n70\n8\n0\nVERTEX\n10\n0\n0\nVERTEX\n10\n1\n0\nSEQEND\n"+
			"0\nINSERT\n66\n1\n2\nB\n0\nATTRIB\n1\nv\n0\nATTRIB\n1\nw\n0\nSEQEND\n"+
			"0\nTEXT\n1\n\n")
	resp := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": content})
	if !resp.Ok {
		t.Fatalf("document_import = %v", resp.Error)
	}
	res := resultObj(resp.ResultJson)
	if res["imported"] != 13.0 || res["skipped"] != 1.0 {
		t.Errorf("imported %v, skipped %v; want 13 kept (7 native, a paper-space point, 5 preserved) and the insert dropped", res["imported"], res["skipped"])
	}
	report := res["report"].(obj)
	wantCounts := `{"ARC":{"dropped":0,"imported":1,"preserved":1},"CIRCLE":{"dropped":0,"imported":0,"preserved":1},"ELLIPSE":{"dropped":0,"imported":1,"preserved":0},"INSERT":{"dropped":1,"imported":0,"preserved":0},"LINE":{"dropped":0,"imported":0,"preserved":1},"LWPOLYLINE":{"dropped":0,"imported":1,"preserved":0},"MTEXT":{"dropped":0,"imported":1,"preserved":0},"POINT":{"dropped":0,"imported":2,"preserved":0},"POLYLINE":{"dropped":0,"imported":1,"preserved":1},"TEXT":{"dropped":0,"imported":1,"preserved":1}}`
	if got := js(report["entities"]); got != wantCounts {
		t.Errorf("report.entities = %s, want %s", got, wantCounts)
	}
	for _, d := range report["dropped"].([]any) {
		if d.(obj)["reason"] == "" {
			t.Errorf("dropped without a reason: %s", js(d))
		}
	}
	var warnings []string
	for _, w := range report["warnings"].([]any) {
		warnings = append(warnings, w.(obj)["message"].(string))
	}
	for _, want := range []string{`layer "XREF|walls" renamed "XREF_walls"`, "LINE preserved as a foreign entity", "degenerate (zero length)", "3D (its extrusion direction is not ±Z)", "a 3D polyline"} {
		if !strings.Contains(strings.Join(warnings, "\n"), want) {
			t.Errorf("report.warnings = %q, want one saying %s", warnings, want)
		}
	}
	doc := res["document"].(obj)
	f := &fixture{t: t, e: e, doc: doc["document_id"].(string)}
	info := f.info()
	if info.Units != enginev1.Units_UNITS_M || info.CurrentLayer != "0" {
		t.Errorf("units %v, current layer %q; want m and 0 ($CLAYER is frozen)", info.Units, info.CurrentLayer)
	}
	var layers []string
	for _, l := range info.Layers {
		layers = append(layers, layerState(l))
	}
	want := []string{
		js([]any{"0", 7, "Continuous", true, false, false, 11}),
		js([]any{"frozen", 3, "Continuous", true, true, false, 0}),
		js([]any{"XREF_walls", 1, "Continuous", true, false, false, 0}),
		js([]any{"Off", 5, "FANCY", false, false, true, 1}), // the file's own linetype, kept
		js([]any{"NewLayer", 7, "Continuous", true, false, false, 1}),
	}
	if js(layers) != js(want) {
		t.Errorf("layers =\n%s\nwant\n%s", strings.Join(layers, "\n"), strings.Join(want, "\n"))
	}
	if l := info.Layers[3]; l.Lineweight != 50 {
		t.Errorf("layer Off lineweight = %d, want 50", l.Lineweight)
	}

	ents := f.entities() // model space: the paper-space point is on its layout
	if len(ents) != 12 {
		t.Fatalf("%d entities in model space, want 12", len(ents))
	}
	paper := f.ok(enginev1.ToolEntityList, obj{"layout": "Layout1"})["entities"].([]any)
	if len(paper) != 1 || paper[0].(obj)["type"] != "point" || paper[0].(obj)["handle"] != "10A" {
		t.Errorf("Layout1 = %s, want the paper-space point, handle 10A", js(paper))
	}
	for i, typ := range []string{"LINE", "CIRCLE", "ARC", "POLYLINE", "TEXT"} {
		e := ents[7+i]
		if e["type"] != "foreign" || e["dxf_type"] != typ {
			t.Errorf("entity %d = %s, want a preserved %s", 7+i, js(e), typ)
		}
	}
	arc := ents[0]
	if arc["layer"] != "Off" || !nearPt(pt(arc["center"]), [2]float64{-1, 0}) || arc["start_angle"] != 90.0 || arc["end_angle"] != 180.0 {
		t.Errorf("mirrored arc = %s, want centre (-1, 0) from 90° to 180° on layer Off", js(arc))
	}
	pl := ents[1]
	if pl["closed"] != true || pl["color"] != 4.0 || pl["linetype"] != "DASHED" || js(pl["points"]) != `[{"bulge":0.5,"x":0,"y":0},{"x":2,"y":0},{"x":2,"y":2}]` {
		t.Errorf("lwpolyline = %s", js(pl))
	}
	text := ents[2]
	if text["text"] != "Ø20 ±0.1 é!%" || text["height"] != 2.5 || text["rotation"] != 270.0 {
		t.Errorf("text = %s, want Ø20 ±0.1 é!%%, default height, rotation 270", js(text))
	}
	ell := ents[3]
	if ell["start_angle"] != 0.0 || !near(ell["end_angle"].(float64), 90) || ell["ratio"] != 0.5 {
		t.Errorf("ellipse = %s, want 0° to 90°", js(ell))
	}
	if p := ents[4]; p["layer"] != "NewLayer" {
		t.Errorf("point = %s, want it on NewLayer", js(p))
	}
	if p := ents[5]; js(p["points"]) != `[{"x":0,"y":0},{"x":1,"y":0}]` || p["closed"] != false {
		t.Errorf("2D polyline = %s, want (0,0)-(1,0) without the frame point", js(p))
	}
	if m := ents[6]; m["type"] != "mtext" || m["text"] != "x" {
		t.Errorf("mtext = %s, want the text x", js(m))
	}
	for i, e := range ents {
		if want := []string{"100", "101", "102", "103", "104", "105", "106", "107", "108", "109", "10B", "10C"}[i]; e["handle"] != want {
			t.Errorf("entity %d handle = %v, want %s", i, e["handle"], want)
		}
	}
}

// ezdxfScript writes a small R2010 drawing with ezdxf: layers with state,
// LWPOLYLINEs with bulges (a rounded rectangle), ELLIPSEs, TEXT, the R12
// entities, and entities the engine skips.
const ezdxfScript = `
import sys, math, ezdxf
doc = ezdxf.new("R2010", setup=["linetypes"])
doc.units = 4  # $INSUNITS: millimetres
doc.layers.add("walls", color=1, linetype="DASHED", lineweight=35)
doc.layers.get("walls").lock()
hidden = doc.layers.add("hidden", color=5)
hidden.off()
doc.layers.add("frozen", color=3).freeze()
doc.header["$CLAYER"] = "walls"
msp = doc.modelspace()
b = math.tan(math.pi / 8)  # a quarter turn
msp.add_lwpolyline([(1, 0, 0, 0, 0), (9, 0, 0, 0, b), (10, 1, 0, 0, 0), (10, 5, 0, 0, b), (9, 6, 0, 0, 0),
                    (1, 6, 0, 0, b), (0, 5, 0, 0, 0), (0, 1, 0, 0, b)],
                   format="xyseb", close=True, dxfattribs={"layer": "walls"})
msp.add_lwpolyline([(0, 10), (4, 10, -0.5), (8, 10)], format="xyb", dxfattribs={"color": 2, "linetype": "HIDDEN"})
msp.add_ellipse((20, 0), major_axis=(3, 4), ratio=0.5)
msp.add_ellipse((30, 0), major_axis=(0, 2), ratio=0.25, start_param=math.pi / 2, end_param=3 * math.pi / 2,
                dxfattribs={"layer": "hidden"})
msp.add_text("Ø 25 %%d Ü", dxfattribs={"insert": (5, 20), "height": 1.5, "rotation": 30, "layer": "frozen"})
msp.add_line((0, 0), (10, 10))
msp.add_circle((5, 5), 2.5, dxfattribs={"color": 6})
msp.add_arc((5, 5), 4, 30, 120)
msp.add_point((7, 8))
msp.add_polyline2d([(0, -5, 0, 0, 1), (4, -5, 0, 0, 0), (4, -8)], format="xyseb")
msp.add_mtext("note", dxfattribs={"insert": (0, 30)})
msp.add_spline([(0, 0), (1, 2), (3, 1), (4, 4)])
msp.add_polyline3d([(0, 0, 0), (1, 1, 1), (2, 0, 2)])
doc.blocks.new("MARK").add_circle((0, 0), 1)
msp.add_blockref("MARK", (40, 40))
doc.layout("Layout1").add_line((0, 0), (1, 1))
doc.saveas(sys.argv[1])
`

func writeWithEzdxf(t *testing.T, py, path string) {
	t.Helper()
	if out, err := exec.Command(py, "-c", ezdxfScript, path).CombinedOutput(); err != nil {
		t.Fatalf("ezdxf: %v\n%s", err, out)
	}
}

const ezdxfTestdata = "testdata/ezdxf_r2010.dxf"

func TestImportEzdxfFile(t *testing.T) {
	if *update {
		py := ezdxftest.Python(t)
		if py == "" {
			t.Fatal("-update needs a python3 with ezdxf")
		}
		writeWithEzdxf(t, py, ezdxfTestdata)
	}
	data, err := os.ReadFile(ezdxfTestdata)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, nil)
	f := importDXF(t, e, "ezdxf", string(data))
	info := f.info()
	// 13 native (the spline among them), the 3D polyline preserved, a
	// line on a layout.
	if info.Units != enginev1.Units_UNITS_MM || info.CurrentLayer != "walls" || info.EntityCount != 15 {
		t.Errorf("document = units %v, current %q, %d entities; want mm, walls, 15", info.Units, info.CurrentLayer, info.EntityCount)
	}
	layers := map[string]*enginev1.Layer{}
	for _, l := range info.Layers {
		layers[l.Name] = l
	}
	if l := layers["walls"]; l == nil || l.Color != 1 || l.Linetype != "DASHED" || l.Lineweight != 35 || !l.Locked || !l.On {
		t.Errorf("layer walls = %v, want colour 1, DASHED, 0.35 mm, locked", l)
	}
	if l := layers["hidden"]; l == nil || l.Color != 5 || l.On {
		t.Errorf("layer hidden = %v, want colour 5, off", l)
	}
	if l := layers["frozen"]; l == nil || !l.Frozen {
		t.Errorf("layer frozen = %v, want frozen", l)
	}

	ents := f.entities()
	byType := map[string][]obj{}
	for _, e := range ents {
		byType[e["type"].(string)] = append(byType[e["type"].(string)], e)
	}
	// The rounded rectangle: 10 × 6 with corners of radius 1.
	rr := byType["polyline"][0]
	m := f.ok(enginev1.ToolAnalysisMeasureEntity, obj{"handle": rr["handle"]})
	if wantA, wantP := 60-(4-math.Pi), 2*(8+4)+2*math.Pi; !near(m["area"].(float64), wantA) || !near(m["perimeter"].(float64), wantP) {
		t.Errorf("rounded rectangle area %v, perimeter %v; want %v, %v", m["area"], m["perimeter"], wantA, wantP)
	}
	if rr["layer"] != "walls" || rr["closed"] != true {
		t.Errorf("rounded rectangle = %s", js(rr))
	}
	if open := byType["polyline"][1]; open["linetype"] != "HIDDEN" || open["color"] != 2.0 || open["closed"] != false {
		t.Errorf("open polyline = %s", js(open))
	}
	if pl2d := byType["polyline"][2]; js(pl2d["points"]) != `[{"bulge":1,"x":0,"y":-5},{"x":4,"y":-5},{"x":4,"y":-8}]` {
		t.Errorf("2D polyline = %s", js(pl2d))
	}
	full, half := byType["ellipse"][0], byType["ellipse"][1]
	if !nearPt(pt(full["center"]), [2]float64{20, 0}) || !nearPt(pt(full["major_axis"]), [2]float64{3, 4}) || full["start_angle"] != 0.0 || full["end_angle"] != 360.0 {
		t.Errorf("full ellipse = %s", js(full))
	}
	if !near(half["start_angle"].(float64), 90) || !near(half["end_angle"].(float64), 270) || half["layer"] != "hidden" {
		t.Errorf("elliptical arc = %s, want 90° to 270°", js(half))
	}
	text := byType["text"][0]
	if text["text"] != "Ø 25 ° Ü" || text["height"] != 1.5 || text["rotation"] != 30.0 || !nearPt(pt(text["insertion"]), [2]float64{5, 20}) {
		t.Errorf("text = %s", js(text))
	}
	for typ, n := range map[string]int{"line": 1, "circle": 1, "arc": 1, "point": 1, "polyline": 3, "ellipse": 2, "text": 1, "mtext": 1, "insert": 1, "spline": 1, "foreign": 1} {
		if len(byType[typ]) != n {
			t.Errorf("%d %s entities, want %d", len(byType[typ]), typ, n)
		}
	}

	// In the report: the spline native, the 3D polyline preserved; the
	// paper-space line is kept on its layout.
	resp := callTool(t, e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": string(data)})
	report, _ := resultObj(resp.ResultJson)["report"].(obj)
	if !resp.Ok || resultObj(resp.ResultJson)["skipped"] != 0.0 || js(report["entities"].(obj)["SPLINE"]) != `{"dropped":0,"imported":1,"preserved":0}` ||
		js(report["entities"].(obj)["POLYLINE"]) != `{"dropped":0,"imported":1,"preserved":1}` || report["version"] != "AC1024" || report["writer"] != "ezdxf" {
		t.Errorf("document_import of the ezdxf file = %v, want the spline native and the 3D polyline preserved", resp)
	}

	// The engine's export of it reads back in ezdxf, in R12 (where the
	// multi-line text is a TEXT, and the spline, which R12 lacks, a
	// POLYLINE) and 2018, with the preserved entities written back as read.
	checkWithEzdxf(t, exportWith(t, f, "dxf", obj{"dxf_version": "r12"}), map[string]int{"LINE": 1, "CIRCLE": 1, "ARC": 1, "POINT": 1, "TEXT": 2, "POLYLINE": 7, "INSERT": 1})
	checkWithEzdxf(t, exportOf(t, f, "dxf"), map[string]int{"LINE": 1, "CIRCLE": 1, "ARC": 1, "POINT": 1, "TEXT": 1, "MTEXT": 1, "LWPOLYLINE": 3, "ELLIPSE": 2, "INSERT": 1, "SPLINE": 1, "POLYLINE": 1})

	t.Run("fresh", func(t *testing.T) {
		py := ezdxftest.Python(t)
		if py == "" {
			t.Skip("no python3 with ezdxf; the committed file was read above")
		}
		path := filepath.Join(t.TempDir(), "fresh.dxf")
		writeWithEzdxf(t, py, path)
		fresh, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g := importDXF(t, e, "fresh", string(fresh))
		if got, want := g.info().ContentHash, info.ContentHash; got != want {
			t.Errorf("content hash of a fresh ezdxf file = %s, want %s (the committed file's)", got, want)
		}
	})
}

func TestImportUnits(t *testing.T) {
	e := newEngine(t, nil)
	header := func(n string) string { return "0\nSECTION\n2\nHEADER\n9\n$INSUNITS\n70\n" + n + "\n0\nENDSEC\n" }
	for _, tt := range []struct {
		name, content string
		want          enginev1.Units
	}{
		{"neither", "0\nEOF\n", enginev1.Units_UNITS_MM},
		{"the engine's comment", "999\ncadbridge doc-1 (in)\n0\nEOF\n", enginev1.Units_UNITS_IN},
		{"$INSUNITS", header("5") + "0\nEOF\n", enginev1.Units_UNITS_CM},
		{"$INSUNITS wins", "999\ncadbridge doc-1 (in)\n" + header("2") + "0\nEOF\n", enginev1.Units_UNITS_FT},
		{"$INSUNITS before the comment", header("6") + "999\ncadbridge doc-1 (in)\n0\nEOF\n", enginev1.Units_UNITS_M},
		{"unitless $INSUNITS", "999\ncadbridge doc-1 (cm)\n" + header("0") + "0\nEOF\n", enginev1.Units_UNITS_CM},
		{"another program's comment", "999\ndxfrw 0.6.3\n0\nEOF\n", enginev1.Units_UNITS_MM},
	} {
		resp, err := e.ImportDocument(context.Background(), &enginev1.ImportDocumentRequest{Content: tt.content})
		info := resp.GetDocument()
		if err != nil || info.Units != tt.want {
			t.Errorf("%s: ImportDocument = %v, %v; want units %v", tt.name, info.GetUnits(), err, tt.want)
		}
	}
}

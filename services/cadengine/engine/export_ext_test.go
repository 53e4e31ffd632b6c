package engine_test

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// dxfPair is one group code and value of a DXF file.
type dxfPair struct {
	code  int
	value string
}

// parseDXF reads an ASCII DXF into pairs, failing on anything malformed.
func parseDXF(t *testing.T, s string) []dxfPair {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines)%2 != 0 {
		t.Fatalf("DXF has an odd number of lines (%d)", len(lines))
	}
	var out []dxfPair
	for i := 0; i < len(lines); i += 2 {
		code, err := strconv.Atoi(strings.TrimSpace(lines[i]))
		if err != nil {
			t.Fatalf("DXF line %d: group code %q is not an integer", i+1, lines[i])
		}
		out = append(out, dxfPair{code, lines[i+1]})
	}
	return out
}

func exportOf(t *testing.T, f *fixture, format string) string {
	t.Helper()
	return exportWith(t, f, format, nil)
}

// exportWith exports with options.
func exportWith(t *testing.T, f *fixture, format string, options obj) string {
	t.Helper()
	args := obj{"format": format}
	if options != nil {
		args["options"] = options
	}
	res := f.ok(enginev1.ToolDocumentExport, args)
	if res["format"] != format {
		t.Errorf("export format = %v, want %s", res["format"], format)
	}
	return res["content"].(string)
}

func TestExportDXF(t *testing.T) {
	f := newFixture(t)
	fillDocument(t, f)
	content := exportWith(t, f, "dxf", obj{"dxf_version": "r12"})
	pairs := parseDXF(t, content)

	var sections []string
	count := map[string]int{}
	section := ""
	handles := map[string]bool{}
	for i, p := range pairs {
		if p.code == 0 && p.value == "SECTION" {
			section = pairs[i+1].value
			sections = append(sections, section)
		}
		if section == "ENTITIES" && p.code == 0 && p.value != "SECTION" && p.value != "ENDSEC" {
			count[p.value]++
		}
		if p.code == 5 && section == "ENTITIES" {
			if handles[p.value] {
				t.Errorf("handle %s appears twice", p.value)
			}
			handles[p.value] = true
		}
	}
	if strings.Join(sections, ",") != "HEADER,TABLES,ENTITIES" {
		t.Errorf("sections = %v, want HEADER, TABLES, ENTITIES", sections)
	}
	if last := pairs[len(pairs)-1]; last.code != 0 || last.value != "EOF" {
		t.Errorf("last pair = %v, want 0 EOF", last)
	}
	if !strings.Contains(content, "$ACADVER\n  1\nAC1009\n") {
		t.Error("no $ACADVER AC1009 in the header")
	}
	// fillDocument leaves: point, line ×2, circle, arc, polyline, text,
	// elliptical arc (written as a polyline).
	want := map[string]int{"POINT": 1, "LINE": 2, "CIRCLE": 1, "ARC": 1, "TEXT": 1, "POLYLINE": 2, "SEQEND": 2}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s entities, want %d (all: %v)", count[k], k, n, count)
		}
	}
	if count["VERTEX"] < 3+64 {
		t.Errorf("%d VERTEX records, want the polyline's 3 and the ellipse's many", count["VERTEX"])
	}
	for _, layer := range []string{"0", "walls", "frozen"} {
		if !strings.Contains(content, "\n  0\nLAYER\n  2\n"+layer+"\n") {
			t.Errorf("layer %s missing from the LAYER table", layer)
		}
	}
	if !strings.Contains(content, "\\U+00DC") {
		t.Error("non-ASCII text is not escaped as \\U+XXXX")
	}
	checkWithEzdxf(t, content, map[string]int{"POINT": 1, "LINE": 2, "CIRCLE": 1, "ARC": 1, "TEXT": 1, "POLYLINE": 2})
}

// checkWithEzdxf opens the file with ezdxf, when python3 has it, and
// checks that it audits clean and has the expected entities.
func checkWithEzdxf(t *testing.T, content string, want map[string]int) {
	t.Helper()
	got := ezdxftest.Audit(t, content)
	if got == nil {
		return
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("ezdxf sees %d %s, want %d (all: %v)", got[k], k, n, got)
		}
	}
}

func TestExportSVG(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 5, "x2": 10, "y2": 5, "color": 1})
	f.ok(enginev1.ToolEntityCreateArc, obj{"cx": 5, "cy": 5, "radius": 5, "start_angle": 0, "end_angle": 180})
	f.ok(enginev1.ToolEntityCreateText, obj{"text": "a < b & c", "x": 0, "y": 0, "rotation": 90})
	f.ok(enginev1.ToolEntityCreateEllipse, obj{"cx": 0, "cy": 0, "major_x": 3, "major_y": 0, "ratio": 0.5})
	f.ok(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": 0, "y": 0, "bulge": 1}, obj{"x": 2, "y": 0}}, "closed": true})
	f.ok(enginev1.ToolLayerCreate, obj{"name": "hidden"})
	f.ok(enginev1.ToolEntityCreatePoint, obj{"x": 100, "y": 100, "layer": "hidden"})
	f.ok(enginev1.ToolLayerModify, obj{"name": "hidden", "frozen": true})
	content := exportOf(t, f, "svg")

	dec := xml.NewDecoder(strings.NewReader(content))
	elems := map[string]int{}
	var viewBox []float64
	var lineY string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, content)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		elems[se.Name.Local]++
		for _, a := range se.Attr {
			switch {
			case se.Name.Local == "svg" && a.Name.Local == "viewBox":
				for _, s := range strings.Fields(a.Value) {
					v, err := strconv.ParseFloat(s, 64)
					if err != nil {
						t.Fatalf("viewBox %q: %v", a.Value, err)
					}
					viewBox = append(viewBox, v)
				}
			case se.Name.Local == "line" && a.Name.Local == "y1":
				lineY = a.Value
			}
		}
	}
	if elems["svg"] != 1 || elems["line"] != 1 || elems["text"] != 1 || elems["ellipse"] != 1 || elems["path"] != 2 {
		t.Errorf("SVG elements = %v, want 1 line, 1 text, 1 ellipse, 2 paths (the frozen point left out)", elems)
	}
	if lineY != "-5" {
		t.Errorf("line y1 = %q, want -5 (y flipped)", lineY)
	}
	// Extents: x from -3 to 10, y from -1.5 (ellipse; the bulge reaches -1)
	// to 10 (arc top) plus the text's estimated box; 2% margin.
	if len(viewBox) != 4 || viewBox[0] > -3 || viewBox[1] > -10 || viewBox[0]+viewBox[2] < 10 || viewBox[1]+viewBox[3] < 1.5 {
		t.Errorf("viewBox = %v, want it to cover x -3..10 and flipped y -10..1.5", viewBox)
	}
}

func TestExportDocumentRPC(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	resp, err := f.e.ExportDocument(context.Background(), &enginev1.ExportDocumentRequest{DocumentId: f.doc, Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF})
	if err != nil || resp.MediaType != "image/vnd.dxf" || !strings.HasSuffix(resp.Content, "  0\nEOF\n") {
		t.Errorf("ExportDocument(dxf) = %v, %v", resp, err)
	}
	if _, err := f.e.ExportDocument(context.Background(), &enginev1.ExportDocumentRequest{DocumentId: f.doc}); err == nil {
		t.Error("ExportDocument without a format succeeded")
	}
	empty := newFixture(t)
	checkWithEzdxf(t, exportOf(t, empty, "dxf"), nil)
	parseDXF(t, exportOf(t, empty, "dxf"))
}

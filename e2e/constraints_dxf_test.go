package e2e_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// TestConstraintsDXF drives constraints through a DXF file with the built
// gateway and engine: a sloppy rectangle made exact by constraints, its
// width a driving dimension; the document exported (ezdxf audits the file
// clean) and imported into a new document, where the constraints and the
// driving dimension are back: sketch_solve says solved with 0 dof, and
// changing the dimension's value resizes the imported rectangle, the
// dimension showing the new width.
func TestConstraintsDXF(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	id := 10
	next := func() int { id++; return id }
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, next(), "document.create", map[string]any{"name": "plate"}, &doc)
	ok := func(docID, name string, args map[string]any) map[string]any {
		t.Helper()
		var a consAnswer
		mustCall(t, c, next(), "tools.call", map[string]any{"document_id": docID, "tool": name, "args": args}, &a)
		if !a.OK {
			t.Fatalf("%s(%v) = %+v, want ok", name, args, a.Error)
		}
		var res map[string]any
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}

	// The rectangle, roughly, with every constraint but its width.
	sides := []string{"bottom", "right", "top", "left"}
	sloppy := [4][4]float64{{0, 0, 119.7, 0.4}, {120.2, 0.3, 119.8, 80.6}, {120.1, 79.9, 0.2, 80.3}, {-0.3, 80.2, 0.1, 0.2}}
	var steps []map[string]any
	for i, l := range sloppy {
		steps = append(steps, map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": l[0], "y1": l[1], "x2": l[2], "y2": l[3]}, "bind": sides[i]})
	}
	at := func(side string, point ...string) map[string]any {
		r := map[string]any{"handle": "$" + side}
		if len(point) > 0 {
			r["point"] = point[0]
		}
		return r
	}
	add := func(kind string, value any, refs ...map[string]any) {
		args := map[string]any{"kind": kind, "refs": refs}
		if value != nil {
			args["value"] = value
		}
		steps = append(steps, map[string]any{"tool": "constraint_add", "args": args})
	}
	add("fixed", nil, at("bottom", "start"))
	for i := range sides {
		add("coincident", nil, at(sides[i], "end"), at(sides[(i+1)%4], "start"))
	}
	add("horizontal", nil, at("bottom"))
	add("horizontal", nil, at("top"))
	add("vertical", nil, at("right"))
	add("vertical", nil, at("left"))
	add("distance_y", 80, at("left", "end"), at("left", "start"))
	var batch struct {
		Status   string            `json:"status"`
		Bindings map[string]string `json:"bindings"`
	}
	mustCall(t, c, next(), "cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": steps, "on_error": "rollback"}, &batch)
	if batch.Status != "completed" {
		t.Fatalf("the sketch batch = %+v", batch)
	}
	bottom := batch.Bindings["bottom"]
	dim := ok(doc.DocumentID, "dimension_create_linear", map[string]any{
		"p1": map[string]any{"handle": bottom, "snap": "end", "x": 0, "y": 0}, "p2": map[string]any{"handle": bottom, "snap": "end", "x": 120, "y": 0},
		"angle": 0, "offset": -10, "driving": true, "value": 130,
	})
	if dim["constraint_id"] != 11.0 || math.Abs(dim["measurement"].(float64)-130) > 1e-9 {
		t.Errorf("the driving dimension = %v, want constraint 11 measuring 130", dim)
	}
	solved := ok(doc.DocumentID, "sketch_solve", map[string]any{"dry_run": true})
	if solved["status"] != "solved" || solved["dof"] != 0.0 {
		t.Errorf("sketch_solve = %v, want solved, 0 dof", solved)
	}
	var list struct {
		Constraints []map[string]any `json:"constraints"`
	}
	raw, _ := json.Marshal(ok(doc.DocumentID, "constraint_list", map[string]any{}))
	_ = json.Unmarshal(raw, &list)

	// Exported, the file opens as plain geometry in ezdxf.
	var export struct {
		Content string `json:"content"`
	}
	mustCall(t, c, next(), "document.export", map[string]any{"document_id": doc.DocumentID, "format": "dxf"}, &export)
	if counts := ezdxftest.Audit(t, export.Content); counts != nil && (counts["LINE"] != 4 || counts["DIMENSION"] != 1) {
		t.Errorf("ezdxf reads %v, want 4 lines and a dimension", counts)
	}

	// Imported into a new document: the same constraints, over the
	// imported lines.
	var imp struct {
		DocumentID string `json:"document_id"`
		Report     struct {
			Warnings []struct {
				Message string `json:"message"`
			} `json:"warnings"`
		} `json:"report"`
	}
	mustCall(t, c, next(), "document.import", map[string]any{"name": "plate again", "format": "dxf", "content": export.Content}, &imp)
	if imp.DocumentID == "" || imp.DocumentID == doc.DocumentID || len(imp.Report.Warnings) != 0 {
		t.Fatalf("document.import = %+v, want a new document without warnings", imp)
	}
	var again struct {
		Constraints []map[string]any `json:"constraints"`
	}
	raw, _ = json.Marshal(ok(imp.DocumentID, "constraint_list", map[string]any{}))
	_ = json.Unmarshal(raw, &again)
	shape := func(cs []map[string]any) string {
		var out []string
		for _, c := range cs {
			out = append(out, strings.Join([]string{c["kind"].(string), compactValue(c["value"]), itoa(len(c["refs"].([]any)))}, " "))
		}
		return strings.Join(out, "; ")
	}
	if shape(again.Constraints) != shape(list.Constraints) || len(again.Constraints) != 11 {
		t.Errorf("imported constraints %s, want %s", shape(again.Constraints), shape(list.Constraints))
	}
	solved = ok(imp.DocumentID, "sketch_solve", map[string]any{"dry_run": true})
	if solved["status"] != "solved" || solved["dof"] != 0.0 || solved["moved"] != nil {
		t.Errorf("sketch_solve on the import = %v, want solved, 0 dof, nothing moved", solved)
	}

	// The driving dimension's value changes in the imported document: the
	// rectangle resizes, the dimension shows it.
	ok(imp.DocumentID, "constraint_set_value", map[string]any{"constraint_id": 11, "value": 90})
	ents := ok(imp.DocumentID, "entity_list", map[string]any{})["entities"].([]any)
	var width, shown float64
	for _, e := range ents {
		m := e.(map[string]any)
		switch m["type"] {
		case "line":
			s, e := m["start"].(map[string]any), m["end"].(map[string]any)
			if math.Abs(s["y"].(float64)) < 1e-9 && math.Abs(e["y"].(float64)) < 1e-9 {
				width = e["x"].(float64) - s["x"].(float64)
			}
		case "dimension":
			g := ok(imp.DocumentID, "entity_get", map[string]any{"handle": m["handle"]})
			shown = g["dimension"].(map[string]any)["measurement"].(float64)
		}
	}
	if math.Abs(width-90) > 1e-9 || math.Abs(shown-90) > 1e-9 {
		t.Errorf("after constraint_set_value 90 the bottom is %v wide and the dimension shows %v, want 90 and 90", width, shown)
	}
	// The original document is as it was.
	if d := ok(doc.DocumentID, "constraint_list", map[string]any{})["constraints"].([]any); d[len(d)-1].(map[string]any)["value"] != 130.0 {
		t.Errorf("the original document's width changed: %v", d[len(d)-1])
	}
}

// compactValue is a constraint's value as text ("-" for none).
func compactValue(v any) string {
	if v == nil {
		return "-"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// itoa is n in decimal.
func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

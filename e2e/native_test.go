package e2e_test

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// nativeEntity is what entity_list answers for the types made native by
// issue #36: tolerances, multileaders and viewports.
type nativeEntity struct {
	Handle      string  `json:"handle"`
	Type        string  `json:"type"`
	DxfType     string  `json:"dxf_type"`
	Text        string  `json:"text"`
	Height      float64 `json:"height"`
	ArrowSize   float64 `json:"arrow_size"`
	Scale       float64 `json:"scale"`
	ViewHeight  float64 `json:"view_height"`
	ViewportID  int32   `json:"viewport_id"`
	LeaderLines []any   `json:"leader_lines"`
}

// TestNativeTypes imports real drawings with a TOLERANCE, a MULTILEADER
// and paper-space VIEWPORTs through the built gateway and engine: the
// report counts each as native; entity_list shows a tolerance and a
// multileader (a leader with its text) in model space and the viewports
// on their layout, not in model space; the DXF export writes each back
// as its type, and ezdxf audits it clean.
func TestNativeTypes(t *testing.T) {
	files := map[string][]byte{}
	for _, cf := range dxftest.CorpusFiles(t) {
		files[cf.Name] = cf.Data
	}
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}
	list := func(id int, doc string, args map[string]any) []nativeEntity {
		t.Helper()
		var out struct {
			Result struct {
				Entities []nativeEntity `json:"entities"`
			} `json:"result"`
		}
		args["page_size"] = 10000
		mustCall(t, c, id, "tools.call", map[string]any{"document_id": doc, "tool": "entity_list", "args": args}, &out)
		return out.Result.Entities
	}
	byType := func(es []nativeEntity, typ string) []nativeEntity {
		var out []nativeEntity
		for _, e := range es {
			if strings.EqualFold(strings.TrimPrefix(e.Type, "ENTITY_TYPE_"), typ) {
				out = append(out, e)
			}
		}
		return out
	}
	export := func(id int, doc string) string {
		t.Helper()
		var out struct {
			Content string `json:"content"`
		}
		mustCall(t, c, id, "document.export", map[string]any{"document_id": doc, "format": "dxf"}, &out)
		ezdxftest.Audit(t, out.Content)
		return out.Content
	}

	var leader importReport
	mustCall(t, c, 1, "document.import", map[string]any{"name": "leader", "format": "dxf", "content": dxftest.Text(files["LibreDWG__libredwg__test__test-data__2010__Leader.dxf"])}, &leader)
	for _, typ := range []string{"TOLERANCE", "MULTILEADER"} {
		if n := leader.Report.Entities[typ]; n.Imported != 1 || n.Preserved != 0 {
			t.Errorf("report %s = %+v, want 1 native", typ, n)
		}
	}
	model := list(2, leader.DocumentID, map[string]any{})
	if tol := byType(model, "tolerance"); len(tol) != 1 || !strings.Contains(tol[0].Text, `{\Fgdt;j}`) || !(tol[0].Height > 0) {
		t.Errorf("tolerances listed: %+v, want one with its position symbol and a height", tol)
	}
	var multi []nativeEntity
	for _, e := range byType(model, "leader") {
		if e.DxfType == "MULTILEADER" {
			multi = append(multi, e)
		}
	}
	if len(multi) != 1 || multi[0].Text != "LEADER" || multi[0].ArrowSize != 0.18 {
		t.Errorf("multileaders listed: %+v, want one leader carrying its text LEADER, its arrowhead 0.18", multi)
	}
	if out := export(3, leader.DocumentID); !strings.Contains(out, "\nTOLERANCE\n") || !strings.Contains(out, "\nMULTILEADER\n") {
		t.Error("the DXF export has no TOLERANCE or no MULTILEADER")
	}

	var vps importReport
	mustCall(t, c, 4, "document.import", map[string]any{"name": "viewports", "format": "dxf", "content": dxftest.Text(files["mozman__ezdxf__examples_dxf__text_in_viewports.dxf"])}, &vps)
	if n := vps.Report.Entities["VIEWPORT"]; n.Imported == 0 || n.Preserved != 0 {
		t.Errorf("report VIEWPORT = %+v, want all native", n)
	}
	if got := byType(list(5, vps.DocumentID, map[string]any{}), "viewport"); len(got) != 0 {
		t.Errorf("model space lists %d viewports, want none", len(got))
	}
	onLayout := byType(list(6, vps.DocumentID, map[string]any{"layout": "Layout1"}), "viewport")
	windows := 0
	for _, v := range onLayout {
		if v.ViewportID >= 2 {
			windows++
			if !(v.Scale > 0) || !(v.ViewHeight > 0) {
				t.Errorf("viewport %s: scale %g, view height %g", v.Handle, v.Scale, v.ViewHeight)
			}
		}
	}
	if windows == 0 {
		t.Errorf("Layout1 lists %+v, want windows (id 2 on)", onLayout)
	}
	if out := export(7, vps.DocumentID); strings.Count(out, "\nVIEWPORT\n") != len(onLayout) {
		t.Errorf("the DXF export has %d VIEWPORTs, want the %d on Layout1", strings.Count(out, "\nVIEWPORT\n"), len(onLayout))
	}
}

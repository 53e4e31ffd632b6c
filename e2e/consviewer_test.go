package e2e_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestViewerConstraintData drives, through the built gateway and engine,
// what the viewer marks constrained entities and fills their hover cards
// from: the page served by the gateway asks for them; the SVG export gives
// each constrained entity the ids of its constraints (data-constraints)
// and nothing else one; a constraint deleted takes a revision, announced
// to a subscribed session by document.changed, after which the export
// marks the entity without it; constraint_list of an entity lists what
// its card shows, its sketch's status and degrees of freedom included.
func TestViewerConstraintData(t *testing.T) {
	gateway, _ := startServices(t)
	c := &httpClient{url: "http://" + gateway + "/rpc"}

	for path, want := range map[string]string{
		"/viewer/":           `id="constraint-card"`,
		"/viewer/viewer.js":  `tool: "constraint_list"`,
		"/viewer/viewer.css": `#drawing [data-constraints]`,
	} {
		resp, err := http.Get("http://" + gateway + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s = %d (%d bytes), want 200 with %q", path, resp.StatusCode, len(body), want)
		}
	}

	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "marked"}, &doc)
	p := newPeer(t, gateway)
	p.call(1, "session.create", map[string]any{})
	var s sessionInfo
	if f := p.response(1); f.Error != nil || json.Unmarshal(f.Result, &s) != nil {
		t.Fatalf("session.create = %+v", f)
	}
	p.call(2, "session.subscribe", map[string]any{"session_id": s.SessionID, "document_ids": []string{doc.DocumentID}})
	if f := p.response(2); f.Error != nil {
		t.Fatalf("session.subscribe = %+v", f)
	}

	// A rough rectangle made exact (constraints 1–10) and a free circle.
	sides := []string{"bottom", "right", "top", "left"}
	rough := [4][4]float64{{0, 0, 99.6, 0.3}, {100.2, -0.2, 99.9, 50.4}, {100.1, 49.8, 0.3, 50.2}, {-0.2, 50.1, 0.2, 0.1}}
	var steps []map[string]any
	for i, l := range rough {
		steps = append(steps, map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": l[0], "y1": l[1], "x2": l[2], "y2": l[3]}, "bind": sides[i]})
	}
	steps = append(steps, map[string]any{"tool": "entity_create_circle", "args": map[string]any{"cx": 50, "cy": 25, "radius": 10}, "bind": "hole"})
	constrain := func(kind string, value any, refs ...map[string]any) {
		args := map[string]any{"kind": kind, "refs": refs}
		if value != nil {
			args["value"] = value
		}
		steps = append(steps, map[string]any{"tool": "constraint_add", "args": args})
	}
	ref := func(name, point string) map[string]any {
		if point == "" {
			return map[string]any{"handle": "$" + name}
		}
		return map[string]any{"handle": "$" + name, "point": point}
	}
	constrain("fixed", nil, ref("bottom", "start")) // 1
	for i := range sides {                          // 2–5
		constrain("coincident", nil, ref(sides[i], "end"), ref(sides[(i+1)%4], "start"))
	}
	constrain("horizontal", nil, ref("bottom", "")) // 6
	constrain("horizontal", nil, ref("top", ""))    // 7
	constrain("vertical", nil, ref("right", ""))    // 8
	constrain("vertical", nil, ref("left", ""))     // 9
	constrain("distance_x", 100, ref("bottom", "")) // 10
	constrain("distance_y", 50, ref("right", ""))   // 11
	var batch struct {
		Status   string            `json:"status"`
		Bindings map[string]string `json:"bindings"`
	}
	mustCall(t, c, 2, "cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": steps, "on_error": "rollback"}, &batch)
	if batch.Status != "completed" {
		t.Fatalf("the rectangle's batch = %+v, want completed", batch)
	}
	h := batch.Bindings

	marksOf := func(id int) map[string]*string {
		t.Helper()
		var ex struct {
			Content string `json:"content"`
		}
		mustCall(t, c, id, "document.export", map[string]any{"document_id": doc.DocumentID, "format": "svg"}, &ex)
		return svgDataConstraints(t, ex.Content)
	}
	check := func(marks map[string]*string, want map[string]string) {
		t.Helper()
		for name, handle := range h {
			w, marked := want[name]
			got := marks[handle]
			switch {
			case !marked && got != nil:
				t.Errorf("the export marks the %s (%s) with constraints %q, want none", name, handle, *got)
			case marked && (got == nil || *got != w):
				t.Errorf("the export marks the %s (%s) with constraints %v, want %q", name, handle, got, w)
			}
		}
	}
	check(marksOf(3), map[string]string{"bottom": "1 2 5 6 10", "right": "2 3 8 11", "top": "3 4 7", "left": "4 5 9"})

	// constraint_delete takes a revision, which the subscribed session
	// hears of; the export then marks the bottom without 6.
	var del struct {
		OK       bool  `json:"ok"`
		Revision int64 `json:"revision"`
	}
	mustCall(t, c, 4, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "constraint_delete", "args": map[string]any{"constraint_id": 6}}, &del)
	if !del.OK {
		t.Fatalf("constraint_delete 6 = %+v, want ok", del)
	}
	p.next("document.changed of the deletion", func(f frame) bool {
		var e struct {
			Type    string `json:"type"`
			Payload struct {
				DocumentID string `json:"document_id"`
				Revision   int64  `json:"revision"`
			} `json:"payload"`
		}
		return f.Method == "event" && json.Unmarshal(f.Params, &e) == nil && e.Type == "document.changed" &&
			e.Payload.DocumentID == doc.DocumentID && e.Payload.Revision == del.Revision
	})
	check(marksOf(5), map[string]string{"bottom": "1 2 5 10", "right": "2 3 8 11", "top": "3 4 7", "left": "4 5 9"})

	// What the bottom's card lists.
	var list struct {
		OK     bool `json:"ok"`
		Result struct {
			Constraints []struct {
				ID    int      `json:"constraint_id"`
				Kind  string   `json:"kind"`
				Value *float64 `json:"value"`
			} `json:"constraints"`
			Status string `json:"status"`
			DOF    *int   `json:"dof"`
		} `json:"result"`
	}
	mustCall(t, c, 6, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "constraint_list", "args": map[string]any{"handle": h["bottom"]}}, &list)
	var got []string
	for _, con := range list.Result.Constraints {
		got = append(got, con.Kind)
		if (con.Value != nil) != (con.Kind == "distance_x") || con.Value != nil && *con.Value != 100 {
			t.Errorf("constraint_list: %d %s has value %v, want 100 for the distance_x only", con.ID, con.Kind, con.Value)
		}
	}
	if want := []string{"fixed", "coincident", "coincident", "distance_x"}; !list.OK || !slices.Equal(got, want) {
		t.Errorf("constraint_list of the bottom = %v (ok %v), want %v", got, list.OK, want)
	}
	// Without the bottom's horizontal its right end slides up and down.
	if list.Result.Status != "under_constrained" || list.Result.DOF == nil || *list.Result.DOF != 1 {
		t.Errorf("constraint_list of the bottom: sketch %q with %v dof, want under_constrained with 1", list.Result.Status, list.Result.DOF)
	}
}

// svgDataConstraints maps each element of an SVG export with data-handle
// to its data-constraints (nil when it has none).
func svgDataConstraints(t *testing.T, content string) map[string]*string {
	t.Helper()
	out := map[string]*string{}
	dec := xml.NewDecoder(strings.NewReader(content))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the SVG export is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var handle string
		var cons *string
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "data-handle":
				handle = a.Value
			case "data-constraints":
				cons = &a.Value
			}
		}
		if handle != "" {
			out[handle] = cons
		}
	}
}

package viewer_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestServesThePage checks GET /viewer/ and its files without a browser.
func TestServesThePage(t *testing.T) {
	s := startStack(t)
	for _, tc := range []struct {
		path, contentType, contains string
	}{
		{"/viewer/", "text/html", `<script type="module" src="viewer.js">`},
		{"/viewer/viewer.js", "text/javascript", "session.attach"},
		{"/viewer/rpc.js", "text/javascript", "class RpcConnection"},
		{"/viewer/drawing.js", "text/javascript", "class Drawing"},
		{"/viewer/viewer.css", "text/css", "#drawing"},
	} {
		resp, err := http.Get(s.url(tc.path))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) || !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s = %d %q (%d bytes), want 200 %s containing %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), tc.contentType, tc.contains)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy = %q, want connect-src 'self'", tc.path, csp)
		}
	}
	resp, err := http.Get(s.url("/viewer"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/viewer/" {
		t.Errorf("GET /viewer ended at %s, want a redirect to /viewer/", resp.Request.URL.Path)
	}
}

// bracketSteps are a batch that draws a small bracket on two layers: 2
// layers and 12 entities.
func bracketSteps() []map[string]any {
	step := func(tool string, args map[string]any) map[string]any {
		return map[string]any{"tool": tool, "args": args}
	}
	steps := []map[string]any{
		step("layer_create", map[string]any{"name": "outline", "color": 5}),
		step("layer_create", map[string]any{"name": "holes", "color": 1}),
		step("entity_create_polyline", map[string]any{"layer": "outline", "closed": true, "points": []map[string]any{
			{"x": 0, "y": 0}, {"x": 120, "y": 0}, {"x": 120, "y": 80}, {"x": 0, "y": 80},
		}}),
	}
	for i, c := range [][2]float64{{20, 20}, {100, 20}, {100, 60}, {20, 60}} {
		steps = append(steps, step("entity_create_circle", map[string]any{"layer": "holes", "cx": c[0], "cy": c[1], "radius": 6 + float64(i%2)}))
	}
	steps = append(steps,
		step("entity_create_circle", map[string]any{"layer": "holes", "cx": 60, "cy": 40, "radius": 18}),
		step("entity_create_line", map[string]any{"layer": "outline", "x1": 60, "y1": 0, "x2": 60, "y2": 80}),
		step("entity_create_line", map[string]any{"layer": "outline", "x1": 0, "y1": 40, "x2": 120, "y2": 40}),
		step("entity_create_arc", map[string]any{"layer": "outline", "cx": 60, "cy": 40, "radius": 30, "start_angle": 0, "end_angle": 180}),
		step("entity_create_text", map[string]any{"layer": "outline", "text": "BRACKET", "x": 4, "y": 84, "height": 6}),
		step("entity_create_point", map[string]any{"layer": "outline", "x": 60, "y": 40}),
		step("entity_create_ellipse", map[string]any{"layer": "outline", "cx": 60, "cy": 100, "major_x": 20, "major_y": 0, "ratio": 0.4}),
	)
	return steps
}

// TestViewerDrawsAnotherClientsBatch: a batch run by another client
// appears in the drawing within a second, entity by entity (data-handle),
// hovering names an entity, and a layer hides.
func TestViewerDrawsAnotherClientsBatch(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	doc := a.createDocument("bracket")
	p := openPage(t, s, "/viewer/?document="+doc)
	p.waitFor("the empty document drawn", `document.body.dataset.revision === "0"`)
	if n := p.count("[data-handle]"); n != 0 {
		t.Fatalf("an empty document shows %d [data-handle] elements, want 0", n)
	}
	p.waitFor("the document listed", fmt.Sprintf(`!!document.querySelector('#document-list li[data-document-id=%q]')`, doc))

	var res struct {
		Status string `json:"status"`
	}
	a.call("cad.batch", map[string]any{"document_id": doc, "steps": bracketSteps()}, &res)
	if res.Status != "completed" {
		t.Fatalf("cad.batch status = %q, want completed", res.Status)
	}
	took := p.waitFor("the batch drawn", `document.querySelectorAll("[data-handle]").length === 12`)
	t.Logf("the batch appeared %v after its result", took)
	if got := eval[string](p, `[...new Set([...document.querySelectorAll("[data-handle]")].map(e => e.dataset.type))].sort().join(",")`); got != "arc,circle,ellipse,line,point,polyline,text" {
		t.Errorf("drawn entity types = %s, want arc,circle,ellipse,line,point,polyline,text", got)
	}
	p.waitFor("the layers listed", `document.querySelectorAll("#layer-list li").length === 3`)

	// Hover the big circle (centre 60, 40, radius 18) at 45°.
	x, y := p.clientPoint(60+18*math.Sqrt2/2, 40+18*math.Sqrt2/2)
	p.do(chromedp.MouseEvent(chromedp.MouseMoved, x, y))
	p.waitFor("the tooltip", `!document.querySelector("#tooltip").hidden`)
	tip := eval[string](p, `document.querySelector("#tooltip").textContent`)
	handle := eval[string](p, `document.querySelector('[data-type="circle"][r="18"]').dataset.handle`)
	if want := handle + " · circle · layer holes"; tip != want {
		t.Errorf("hovering the circle of radius 18: tooltip %q, want %q", tip, want)
	}
	p.screenshot("drawn")

	// Hide the layer "holes": its five circles go, the rest stays.
	p.clickSelector(`#layer-list li[data-layer="holes"] input`)
	p.waitFor("holes hidden", `getComputedStyle(document.querySelector('g[data-layer="holes"]')).display === "none"`)
	visible := eval[int](p, `[...document.querySelectorAll("[data-handle]")].filter(e => e.getClientRects().length > 0).length`)
	if visible != 7 {
		t.Errorf("with layer holes hidden, %d entities are shown, want 7", visible)
	}
}

// near reports whether a and b differ by at most tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// attachedPage opens the viewer on doc, attached to the agent's session
// through the URL fragment, and waits until the attachment is open and
// the document drawn.
func attachedPage(t *testing.T, s *stack, doc string, ses session) *page {
	t.Helper()
	frag := url.Values{"session": {ses.SessionID}, "token": {ses.ResumeToken}}
	if s.token != "" {
		frag.Set("bearer", s.token)
	}
	p := openPage(t, s, fmt.Sprintf("/viewer/?document=%s#%s", doc, frag.Encode()))
	p.waitFor("the attachment", `document.body.dataset.attached === "open"`)
	p.waitFor("the document drawn", `Number(document.body.dataset.revision) >= 0`)
	return p
}

// batchResult is the part of a cad.batch result the tests read.
type batchResult struct {
	Status  string `json:"status"`
	Results []struct {
		Status string `json:"status"`
		Error  *struct {
			Kind string `json:"kind"`
		} `json:"error"`
	} `json:"results"`
}

// createHandles runs a batch that creates entities and returns their
// handles.
func (a *agent) createHandles(doc string, steps ...map[string]any) []string {
	a.t.Helper()
	var res struct {
		Results []struct {
			Handle string `json:"handle"`
		} `json:"results"`
	}
	a.call("cad.batch", map[string]any{"document_id": doc, "steps": steps}, &res)
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Handle)
	}
	return out
}

func circle(cx, cy, r float64) map[string]any {
	return map[string]any{"tool": "entity_create_circle", "args": map[string]any{"cx": cx, "cy": cy, "radius": r}}
}

func line(x1, y1, x2, y2 float64) map[string]any {
	return map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": x1, "y1": y1, "x2": x2, "y2": y2}}
}

// cardOf is the CSS selector of a request's card.
func cardOf(r *serverRequest) string {
	return fmt.Sprintf(`[data-request-id=%q][data-method=%q]`, r.ID.Raw(), r.Method)
}

// TestViewerApproval: the agent's approval shows as a card in the attached
// viewer as well as on the agent's connection, with the tool, the summary
// and the affected entities highlighted; Approve lets the batch finish and
// the agent is told the request was resolved; Deny makes the step denied.
//
// It runs against a gateway in open mode and against one run with
// --tokens, where the page takes the bearer token from its fragment and
// presents it as a WebSocket subprotocol on both of its sockets.
func TestViewerApproval(t *testing.T) {
	t.Run("open", func(t *testing.T) { testViewerApproval(t, startStack(t)) })
	t.Run("tokens", func(t *testing.T) {
		s := startStackWithToken(t, "viewer/secret+token")
		testViewerApproval(t, s)
	})
}

func testViewerApproval(t *testing.T, s *stack) {
	a := dialAgent(t, s)
	ses := a.createSession("approval")
	doc := a.createDocument("bracket")
	h := a.createHandles(doc, bracketSteps()...) // h[3] to h[6] are the four small holes
	p := attachedPage(t, s, doc, ses)
	p.waitFor("the bracket drawn", `document.querySelectorAll("[data-handle]").length === 12`)

	wait := a.start("cad.batch", map[string]any{"session_id": ses.SessionID, "document_id": doc, "operation_id": "op-approve",
		"steps": []map[string]any{{"tool": "entity_delete_many", "args": map[string]any{"handles": []string{h[3], h[6]}}}}})
	req := a.request("approval")
	card := cardOf(req)
	p.waitFor("the approval card", fmt.Sprintf(`!!document.querySelector(%q)`, card))
	text := eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, card))
	for _, want := range []string{"entity_delete_many", "Delete 2 entities.", h[3], h[6]} {
		if !strings.Contains(text, want) {
			t.Errorf("the approval card says %q, want it to name %q", text, want)
		}
	}
	p.waitFor("the affected entities highlighted", fmt.Sprintf(`[...document.querySelectorAll("[data-handle].highlight")].map(e => e.dataset.handle).sort().join() === %q`, h[3]+","+h[6]))
	if s.token == "" {
		p.screenshot("approval")
	} else if hash := eval[string](p, `location.hash`); strings.Contains(hash, "bearer") {
		t.Errorf("location.hash = %q after the page read the token, want the token out of the address bar", hash)
	}

	p.clickSelector(card + ` [data-decision="approve"]`)
	raw, err := wait()
	var res batchResult
	if err != nil || json.Unmarshal(raw, &res) != nil || res.Status != "completed" || res.Results[0].Status != "ok" {
		t.Fatalf("cad.batch approved in the viewer = %s, %v; want completed, step ok", raw, err)
	}
	if reason := a.cancelled(fmt.Sprint(req.ID.Raw())); reason != "resolved" {
		t.Errorf("the agent's request.cancel reason = %q, want resolved", reason)
	}
	p.waitFor("the card gone", fmt.Sprintf(`!document.querySelector(%q)`, card))
	p.waitFor("the two holes gone from the drawing", `document.querySelectorAll("[data-handle]").length === 10`)
	if n := p.count(".highlight"); n != 0 {
		t.Errorf("after the approval %d elements are highlighted, want none", n)
	}

	wait = a.start("cad.batch", map[string]any{"session_id": ses.SessionID, "document_id": doc, "operation_id": "op-deny",
		"steps": []map[string]any{{"tool": "entity_delete_many", "args": map[string]any{"handles": []string{h[4]}}}}})
	req = a.request("approval")
	card = cardOf(req)
	p.waitFor("the second approval card", fmt.Sprintf(`!!document.querySelector(%q)`, card))
	p.clickSelector(card + ` [data-decision="deny"]`)
	raw, err = wait()
	res = batchResult{}
	if err != nil || json.Unmarshal(raw, &res) != nil || res.Results[0].Error == nil || res.Results[0].Error.Kind != "denied" {
		t.Fatalf("cad.batch denied in the viewer = %s, %v; want the step denied", raw, err)
	}
	p.waitFor("the denied card gone", fmt.Sprintf(`!document.querySelector(%q)`, card))
	if n := p.count("[data-handle]"); n != 10 {
		t.Errorf("after the denial the drawing has %d entities, want 10 (nothing deleted)", n)
	}
}

// pickResult is a tools.call result of point_pick or entity_pick.
type pickResult struct {
	OK     bool `json:"ok"`
	Result struct {
		X, Y    float64
		Handles []string `json:"handles"`
	} `json:"result"`
}

func (a *agent) pick(wait func() (json.RawMessage, error)) pickResult {
	a.t.Helper()
	raw, err := wait()
	var res pickResult
	if err != nil || json.Unmarshal(raw, &res) != nil || !res.OK {
		a.t.Fatalf("the pick = %s, %v; want ok", raw, err)
	}
	return res
}

// TestViewerPicks: pick.point is answered by a click in the drawing, at
// the clicked document coordinates, or snapped to an entity's snap point
// near the click; pick.entities by clicking entities and confirming.
func TestViewerPicks(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	ses := a.createSession("pick.point", "pick.entities")
	doc := a.createDocument("picks")
	h := a.createHandles(doc, line(10, 10, 90, 10), circle(50, 50, 20))
	p := attachedPage(t, s, doc, ses)
	p.waitFor("2 entities drawn", `document.querySelectorAll("[data-handle]").length === 2`)
	upp := eval[float64](p, `cadViewer.unitsPerPixel()`)

	pickPoint := func(prompt string, x, y float64) pickResult {
		t.Helper()
		wait := a.start("tools.call", map[string]any{"session_id": ses.SessionID, "document_id": doc, "tool": "point_pick", "args": map[string]any{"prompt": prompt}})
		req := a.request("pick.point")
		p.waitFor("the pick.point card", fmt.Sprintf(`!!document.querySelector(%q)`, cardOf(req)))
		p.do(chromedp.MouseClickXY(x, y))
		res := a.pick(wait)
		p.waitFor("the card gone", fmt.Sprintf(`!document.querySelector(%q)`, cardOf(req)))
		return res
	}

	// Far from every snap point: the point under the cursor.
	x, y := p.clientPoint(22.5, 70)
	res := pickPoint("somewhere", x, y)
	if !near(res.Result.X, 22.5, upp) || !near(res.Result.Y, 70, upp) {
		t.Errorf("a click at (22.5, 70) picked (%v, %v), want it within a pixel (%v)", res.Result.X, res.Result.Y, upp)
	}
	// 3 px from the line's end (90, 10): snapped exactly.
	x, y = p.clientPoint(90, 10)
	res = pickPoint("the end", x+3, y-2)
	if res.Result.X != 90 || res.Result.Y != 10 {
		t.Errorf("a click 3 px from the line's end picked (%v, %v), want (90, 10) exactly", res.Result.X, res.Result.Y)
	}
	// 4 px from the circle's top quadrant (50, 70).
	x, y = p.clientPoint(50, 70)
	res = pickPoint("the top", x-4, y)
	if res.Result.X != 50 || res.Result.Y != 70 {
		t.Errorf("a click 4 px from the circle's top picked (%v, %v), want (50, 70) exactly", res.Result.X, res.Result.Y)
	}

	wait := a.start("tools.call", map[string]any{"session_id": ses.SessionID, "document_id": doc, "tool": "entity_pick", "args": map[string]any{"prompt": "two please", "max": 2}})
	req := a.request("pick.entities")
	card := cardOf(req)
	p.waitFor("the pick.entities card", fmt.Sprintf(`!!document.querySelector(%q)`, card))
	x, y = p.clientPoint(30, 10) // on the line
	p.do(chromedp.MouseClickXY(x, y+2))
	x, y = p.clientPoint(50, 30) // on the circle, at its bottom
	p.do(chromedp.MouseClickXY(x+1, y))
	p.waitFor("both picked", `document.querySelectorAll("[data-handle].selected").length === 2`)
	p.screenshot("pick-entities")
	p.clickSelector(card + ` [data-action="confirm"]`)
	res = a.pick(wait)
	if strings.Join(res.Result.Handles, ",") != h[0]+","+h[1] {
		t.Errorf("entity_pick answered in the viewer = %v, want [%s %s]", res.Result.Handles, h[0], h[1])
	}
}

// TestViewerCancelledRequest: a request withdrawn by request.cancel (the
// agent interrupts its session) disappears from the viewer.
func TestViewerCancelledRequest(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	ses := a.createSession("pick.point")
	doc := a.createDocument("cancel")
	p := attachedPage(t, s, doc, ses)
	wait := a.start("tools.call", map[string]any{"session_id": ses.SessionID, "document_id": doc, "tool": "point_pick", "args": map[string]any{"prompt": "never mind"}})
	req := a.request("pick.point")
	p.waitFor("the card", fmt.Sprintf(`!!document.querySelector(%q)`, cardOf(req)))
	var interrupted struct{ Interrupted bool }
	a.call("session.interrupt", map[string]any{"session_id": ses.SessionID}, &interrupted)
	p.waitFor("the withdrawn card gone", fmt.Sprintf(`!document.querySelector(%q)`, cardOf(req)))
	if n := p.count("[data-request-id]"); n != 0 {
		t.Errorf("after request.cancel the viewer shows %d request cards, want 0", n)
	}
	wait()
}

// TestViewerReconnects: after the gateway restarts, the page reconnects by
// itself, resumes its session and attachment, and shows the request that is
// still open, once; answering it there reaches the engine.
func TestViewerReconnects(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	ses := a.createSession("approval")
	doc := a.createDocument("restart")
	h := a.createHandles(doc, circle(0, 0, 5), circle(20, 0, 5))
	p := attachedPage(t, s, doc, ses)
	p.waitFor("2 entities drawn", `document.querySelectorAll("[data-handle]").length === 2`)
	a.start("cad.batch", map[string]any{"session_id": ses.SessionID, "document_id": doc, "operation_id": "op-restart",
		"steps": []map[string]any{{"tool": "entity_delete_many", "args": map[string]any{"handles": []string{h[0]}}}}})
	req := a.request("approval")
	card := cardOf(req)
	p.waitFor("the card", fmt.Sprintf(`!!document.querySelector(%q)`, card))
	ownBefore := eval[string](p, `cadViewer.state().own.session_id`)

	s.restartGateway()
	p.waitFor("the page to see the gateway go", `document.body.dataset.connection !== "open" || document.body.dataset.attached !== "open"`)
	p.waitForWithin("the page back", `document.body.dataset.connection === "open" && document.body.dataset.attached === "open"`, 15*time.Second)
	if own := eval[string](p, `cadViewer.state().own.session_id`); own != ownBefore {
		t.Errorf("after the restart the page's own session is %s, want %s resumed", own, ownBefore)
	}
	if n := p.count(card); n != 1 {
		t.Fatalf("after the restart the viewer shows the open request %d times, want once", n)
	}
	if n := p.count("[data-request-id]"); n != 1 {
		t.Errorf("after the restart the viewer shows %d request cards, want 1", n)
	}
	p.screenshot("after-restart")

	// The agent's connection went with the gateway; its batch goes on in
	// the engine, waiting for this answer.
	p.clickSelector(card + ` [data-decision="approve"]`)
	b := dialAgent(t, s)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var op struct {
			Status string `json:"status"`
		}
		b.call("operations.get", map[string]any{"operation_id": "op-restart"}, &op)
		if op.Status == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("operations.get(op-restart).status = %q 10 s after the approval, want succeeded", op.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.waitFor("the circle gone", `document.querySelectorAll("[data-handle]").length === 1`)
}

// sameAsFullJS compares the live drawing with a fresh parse of the
// document's export (the viewer's own attributes and classes, and the
// whitespace between elements, left out) and returns the first
// difference, or "".
const sameAsFullJS = `(async (documentId) => {
  const ws = new WebSocket("ws://" + location.host + "/rpc");
  await new Promise((resolve) => (ws.onopen = resolve));
  const m = await new Promise((resolve) => {
    ws.onmessage = (e) => resolve(JSON.parse(e.data));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "document.export", params: { document_id: documentId, format: "svg" } }));
  });
  ws.close();
  const tpl = document.createElement("template");
  tpl.innerHTML = m.result.content;
  const clean = (svg) => {
    const c = svg.cloneNode(true);
    for (const el of [c, ...c.querySelectorAll("*")]) {
      el.removeAttribute("class");
      for (const n of [...el.childNodes]) if (n.nodeType === Node.TEXT_NODE && n.data.trim() === "") n.remove();
    }
    for (const a of ["viewBox", "width", "height", "id", "preserveAspectRatio", "data-extent"]) c.removeAttribute(a);
    return [...c.children].map((e) => e.outerHTML);
  };
  const want = clean(tpl.content.querySelector("svg"));
  const got = clean(document.querySelector("#drawing"));
  const extent = document.querySelector("#drawing").getAttribute("data-extent");
  if (extent !== tpl.content.querySelector("svg").getAttribute("viewBox")) return "extent " + extent;
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i] !== got[i]) return "got " + got[i] + "\nwant " + want[i];
  }
  return "";
})`

// TestViewerIncrementalRedraw: after changes of every kind (entities added,
// moved, recoloured, moved to another layer, deleted; a layer recoloured,
// added, turned off; the extents grown) the incrementally patched drawing
// is exactly a fresh drawing of the export.
func TestViewerIncrementalRedraw(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	doc := a.createDocument(`incremental "&" <test>`)
	h := a.createHandles(doc, line(0, 0, 10, 0), circle(5, 5, 2), circle(8, 8, 1))
	p := openPage(t, s, "/viewer/?document="+doc)
	p.waitFor("3 entities drawn", `document.querySelectorAll("[data-handle]").length === 3`)
	tool := func(name string, args map[string]any) {
		t.Helper()
		var res struct {
			OK       bool  `json:"ok"`
			Revision int64 `json:"revision"`
		}
		a.call("tools.call", map[string]any{"document_id": doc, "tool": name, "args": args}, &res)
		if !res.OK {
			t.Fatalf("%s(%v) failed", name, args)
		}
		p.waitFor("revision "+fmt.Sprint(res.Revision)+" drawn", fmt.Sprintf(`Number(document.body.dataset.revision) >= %d`, res.Revision))
		if diff := eval[string](p, fmt.Sprintf("%s(%q)", sameAsFullJS, doc)); diff != "" {
			t.Fatalf("after %s(%v) the drawing differs from the export:\n%s", name, args, diff)
		}
	}
	tool("layer_create", map[string]any{"name": "a&b", "color": 3})
	tool("entity_create_text", map[string]any{"text": `x < y & "z"`, "x": 1, "y": 1, "layer": "a&b"})
	tool("entity_move", map[string]any{"handle": h[1], "dx": 1, "dy": 1})
	tool("entity_set_properties", map[string]any{"handle": h[2], "color": 1})
	tool("entity_set_properties", map[string]any{"handle": h[0], "layer": "a&b"})
	tool("layer_modify", map[string]any{"name": "a&b", "color": 4})
	tool("entity_delete", map[string]any{"handle": h[1]})
	tool("entity_create_circle", map[string]any{"cx": 500, "cy": -300, "radius": 50})
	tool("layer_modify", map[string]any{"name": "a&b", "on": false})
	tool("layer_modify", map[string]any{"name": "a&b", "on": true})
	redraws := eval[[]struct{ Mode string }](p, `cadViewer.redraws`)
	for i, r := range redraws[1:] {
		if r.Mode != "incremental" {
			t.Errorf("redraw %d was %s, want incremental", i+1, r.Mode)
		}
	}
}

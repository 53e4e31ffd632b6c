package viewer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// constrainedRectangle draws a rectangle roughly (bottom, right, top and
// left lines, bound by those names), a circle and a loose line, and
// constrains the rectangle exact, 120 × 80 with its bottom-left corner
// fixed, and the loose line horizontal: constraints 1 to 12 in this
// order.
//
//	1 fixed bottom:start        7 horizontal top
//	2 coincident bottom–right   8 vertical right
//	3 coincident right–top      9 vertical left
//	4 coincident top–left      10 distance_x 120 bottom
//	5 coincident left–bottom   11 distance_y 80 left
//	6 horizontal bottom        12 horizontal loose
func constrainedRectangle() []map[string]any {
	sides := []string{"bottom", "right", "top", "left"}
	sloppy := [4][4]float64{{0, 0, 119.7, 0.4}, {120.2, 0.3, 119.8, 80.6}, {120.1, 79.9, 0.2, 80.3}, {-0.3, 80.2, 0.1, 0.2}}
	var steps []map[string]any
	for i, l := range sloppy {
		steps = append(steps, map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": l[0], "y1": l[1], "x2": l[2], "y2": l[3]}, "bind": sides[i]})
	}
	steps = append(steps,
		map[string]any{"tool": "entity_create_circle", "args": map[string]any{"cx": 60, "cy": 40, "radius": 15}, "bind": "hole"},
		map[string]any{"tool": "entity_create_line", "args": map[string]any{"x1": 10, "y1": 100, "x2": 110, "y2": 103}, "bind": "loose"},
	)
	add := func(kind string, value any, refs ...map[string]any) {
		args := map[string]any{"kind": kind, "refs": refs}
		if value != nil {
			args["value"] = value
		}
		steps = append(steps, map[string]any{"tool": "constraint_add", "args": args})
	}
	at := func(name string, point ...string) map[string]any {
		r := map[string]any{"handle": "$" + name}
		if len(point) > 0 {
			r["point"] = point[0]
		}
		return r
	}
	add("fixed", nil, at("bottom", "start"))
	for i := range sides {
		add("coincident", nil, at(sides[i], "end"), at(sides[(i+1)%4], "start"))
	}
	add("horizontal", nil, at("bottom"))
	add("horizontal", nil, at("top"))
	add("vertical", nil, at("right"))
	add("vertical", nil, at("left"))
	add("distance_x", 120, at("bottom"))
	add("distance_y", 80, at("left", "end"), at("left", "start"))
	add("horizontal", nil, at("loose"))
	return steps
}

// TestViewerMarksConstrainedEntities: the four sides of a constrained
// rectangle are marked (data-constraints from the export, drawn with a
// heavier stroke) and an unconstrained circle is not; hovering a side
// shows a card of its constraints (ids, kinds, the driving value, the
// other entities named, which are marked related) and of its sketch's
// state, which follows a value changed meanwhile; deleting constraints
// updates the marks and the card.
func TestViewerMarksConstrainedEntities(t *testing.T) {
	s := startStack(t)
	a := dialAgent(t, s)
	doc := a.createDocument("constrained")
	var batch struct {
		Status   string            `json:"status"`
		Bindings map[string]string `json:"bindings"`
	}
	a.call("cad.batch", map[string]any{"document_id": doc, "steps": constrainedRectangle(), "on_error": "rollback"}, &batch)
	if batch.Status != "completed" {
		t.Fatalf("the constrained rectangle's batch = %+v, want completed", batch)
	}
	h := batch.Bindings
	p := openPage(t, s, "/viewer/?document="+doc)
	p.waitFor("6 entities drawn", `document.querySelectorAll("[data-handle]").length === 6`)

	marks := func() map[string]string {
		t.Helper()
		return eval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll("[data-handle]")].map(e => [e.dataset.handle, e.dataset.constraints || ""]))`)
	}
	strokeOf := func(handle string) string {
		t.Helper()
		return eval[string](p, fmt.Sprintf(`getComputedStyle(document.querySelector('[data-handle=%q]')).strokeWidth`, handle))
	}
	want := map[string]string{
		h["bottom"]: "1 2 5 6 10", h["right"]: "2 3 8", h["top"]: "3 4 7", h["left"]: "4 5 9 11",
		h["hole"]: "", h["loose"]: "12",
	}
	got := marks()
	for name, handle := range h {
		if got[handle] != want[handle] {
			t.Errorf("the %s (%s) is marked with constraints %q, want %q", name, handle, got[handle], want[handle])
		}
	}
	plain := strokeOf(h["hole"])
	for _, side := range []string{"bottom", "right", "top", "left"} {
		if w := strokeOf(h[side]); w == plain {
			t.Errorf("the constrained %s is drawn %s wide, as the unconstrained circle; want a heavier stroke", side, w)
		}
	}

	// Hover the bottom at (60, 0), away from its ends.
	x, y := p.clientPoint(60, 0)
	p.do(chromedp.MouseEvent(chromedp.MouseMoved, x, y+1))
	ready := fmt.Sprintf(`(() => { const c = document.querySelector("#constraint-card"); return !c.hidden && c.dataset.entity === %q && c.dataset.state === "ready"; })()`, h["bottom"])
	p.waitFor("the bottom's constraint card", ready)
	type row struct {
		ID, Kind, Text string
	}
	rows := func() []row {
		t.Helper()
		return eval[[]row](p, `[...document.querySelectorAll("#constraint-card [data-constraint-id]")].map(li => ({id: li.dataset.constraintId, kind: li.dataset.kind, text: li.textContent}))`)
	}
	summary := func(rs []row) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID+" "+r.Kind)
		}
		return strings.Join(out, ", ")
	}
	rs := rows()
	if got, want := summary(rs), "1 fixed, 2 coincident, 5 coincident, 6 horizontal, 10 distance_x"; got != want {
		t.Fatalf("the bottom's card lists %s, want %s", got, want)
	}
	for i, want := range []string{
		h["bottom"] + ":start",
		h["bottom"] + ":end " + h["right"] + ":start",
		h["left"] + ":end " + h["bottom"] + ":start",
		"horizontal " + h["bottom"],
		"distance_x = 120 " + h["bottom"],
	} {
		if !strings.Contains(rs[i].Text, want) {
			t.Errorf("the card's constraint %s reads %q, want it to say %q", rs[i].ID, rs[i].Text, want)
		}
	}
	sketch := func() string {
		t.Helper()
		return eval[string](p, `document.querySelector("#constraint-card .sketch")?.textContent || ""`)
	}
	if got := sketch(); got != "sketch solved" {
		t.Errorf("the bottom's card says %q of its sketch, want \"sketch solved\"", got)
	}
	related := func() string {
		return eval[string](p, `[...document.querySelectorAll("[data-handle].related")].map(e => e.dataset.handle).sort().join(",")`)
	}
	if got, want := related(), strings.Join(slices.Sorted(slices.Values([]string{h["right"], h["left"]})), ","); got != want {
		t.Errorf("while the bottom is hovered the related entities are %q, want %q (the right and left sides)", got, want)
	}
	p.screenshot("constraint card")

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
		p.waitFor(fmt.Sprintf("revision %d drawn", res.Revision), fmt.Sprintf(`Number(document.body.dataset.revision) >= %d`, res.Revision))
	}

	// The width changes while the card is shown: the card follows.
	tool("constraint_set_value", map[string]any{"constraint_id": 10, "value": 150})
	p.waitFor("the card to show 150", `[...document.querySelectorAll('#constraint-card [data-constraint-id="10"]')].some(li => li.textContent.includes("= 150"))`)

	// Deleting the bottom's horizontal takes it off the mark and the card.
	tool("constraint_delete", map[string]any{"constraint_id": 6})
	p.waitFor("the bottom's mark without 6", fmt.Sprintf(`document.querySelector('[data-handle=%q]').dataset.constraints === "1 2 5 10"`, h["bottom"]))
	p.waitFor("the card without 6", ready+` && !document.querySelector('#constraint-card [data-constraint-id="6"]')`)
	if got, want := summary(rows()), "1 fixed, 2 coincident, 5 coincident, 10 distance_x"; got != want {
		t.Errorf("after constraint_delete 6 the bottom's card lists %s, want %s", got, want)
	}
	// The bottom's right end may now slide up and down the right side.
	if got, want := sketch(), "sketch under-constrained, 1 degree of freedom left"; got != want {
		t.Errorf("after constraint_delete 6 the bottom's card says %q of its sketch, want %q", got, want)
	}

	// The loose line's only constraint goes: it is marked no more.
	tool("constraint_delete", map[string]any{"constraint_id": 12})
	p.waitFor("the loose line unmarked", fmt.Sprintf(`!document.querySelector('[data-handle=%q]').hasAttribute("data-constraints")`, h["loose"]))
	if w := strokeOf(h["loose"]); w != plain {
		t.Errorf("the line without constraints is drawn %s wide, want %s as other unconstrained entities", w, plain)
	}
	got = marks()
	want[h["bottom"]], want[h["loose"]] = "1 2 5 10", ""
	for name, handle := range h {
		if got[handle] != want[handle] {
			t.Errorf("after the deletions the %s (%s) is marked %q, want %q", name, handle, got[handle], want[handle])
		}
	}

	// The unconstrained circle has a tooltip but no card.
	x, y = p.clientPoint(60, 40+15) // its top
	p.do(chromedp.MouseEvent(chromedp.MouseMoved, x, y))
	p.waitFor("the circle hovered", fmt.Sprintf(`document.querySelector("#tooltip").textContent.startsWith(%q)`, h["hole"]+" · circle"))
	if !eval[bool](p, `document.querySelector("#constraint-card").hidden`) {
		t.Errorf("hovering the unconstrained circle shows a constraint card: %q", eval[string](p, `document.querySelector("#constraint-card").textContent`))
	}
	if got := related(); got != "" {
		t.Errorf("hovering the unconstrained circle marks %q related, want none", got)
	}
}

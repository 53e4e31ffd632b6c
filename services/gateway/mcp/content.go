package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// What a tool result's content is over MCP (DESIGN §13): a one-line
// summary as text, the result as structuredContent only, and never image
// or file bytes in either: a picture is image content, any other file a
// resource link (or, when the client asks with _meta
// "cadbridge/embed_resources", an embedded resource).

// metaEmbed is the request _meta key by which a client asks for exported
// files embedded in the result rather than linked.
const metaEmbed = "cadbridge/embed_resources"

// embedAsked reports whether a request's _meta asks for embedded files.
func embedAsked(meta mcpsdk.Meta) bool {
	v, _ := meta[metaEmbed].(bool)
	return v
}

// Tools whose results carry a file's bytes.
const (
	toolExport = enginev1.ToolDocumentExport
	toolView   = enginev1.ToolViewRender
)

// media takes the file out of an export's or a view's result: the result
// with its bytes blanked (the output schema keeps the fields, empty), and
// the content that stands for them: a PNG as image content, another file
// a link to its resource at revision rev (or the file embedded when the
// call asked). Any other result is returned as it is.
func media(tool string, rc *relayCall, rev int64, result json.RawMessage) (json.RawMessage, []mcpsdk.Content) {
	if tool != toolExport && tool != toolView {
		return result, nil
	}
	var r struct {
		Format    string `json:"format"`
		MediaType string `json:"media_type"`
		Content   string `json:"content"`
		Data      []byte `json:"data"`
	}
	if json.Unmarshal(result, &r) != nil {
		return result, nil
	}
	blanked := blank(result)
	if r.MediaType == "image/png" {
		return blanked, []mcpsdk.Content{&mcpsdk.ImageContent{Data: r.Data, MIMEType: r.MediaType}}
	}
	uri := DrawingURIAt(rc.documentID, r.Format, rev, exportQuery(rc))
	mime := resourceMIME(r.Format, r.MediaType)
	if rc.embed {
		rcont := &mcpsdk.ResourceContents{URI: uri, MIMEType: mime}
		if r.Content != "" {
			rcont.Text = r.Content
		} else {
			rcont.Blob = r.Data
		}
		return blanked, []mcpsdk.Content{&mcpsdk.EmbeddedResource{Resource: rcont}}
	}
	return blanked, []mcpsdk.Content{&mcpsdk.ResourceLink{URI: uri, Name: "drawing." + r.Format, Title: fmt.Sprintf("%s at revision %d", rc.documentID, rev), MIMEType: mime}}
}

// fileMembers are the members of an export's or a view's result that
// hold the file.
var fileMembers = []string{"content", "data"}

// blankFiles sets the file members of a decoded result to "".
func blankFiles(m map[string]json.RawMessage) {
	for _, n := range fileMembers {
		if _, ok := m[n]; ok {
			m[n] = json.RawMessage(`""`)
		}
	}
}

// blank is a JSON result with its file members set to "" (see
// blankFiles).
func blank(obj json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj
	}
	blankFiles(m)
	out, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return out
}

// exportQuery is the query of an export's resource: the export options
// of the call's arguments (an engine tool's args are literal values).
func exportQuery(rc *relayCall) map[string]string {
	var args struct {
		Options map[string]any `json:"options"`
	}
	json.Unmarshal(rc.params["args"], &args)
	return optionsQuery(args.Options)
}

// optionsQuery is the query that carries export options.
func optionsQuery(opts map[string]any) map[string]string {
	q := map[string]string{}
	for _, k := range exportOptionKeys {
		switch v := opts[k].(type) {
		case string:
			q[k] = v
		case float64:
			q[k] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return q
}

// batchMedia rewrites a batch result so that no step result carries a
// file: each export or view step's bytes are blanked and its result gets
// "resource", the URI of that file at the revision the step saw (the
// batch's final revision less the mutating steps that succeeded after
// it), and the batch's content a link to each. A batch rolled back keeps
// no revision that a step saw: its steps' bytes are blanked, unlinked.
func batchMedia(rc *relayCall, raw json.RawMessage, status enginev1.BatchStatus, after int64) (json.RawMessage, []mcpsdk.Content) {
	if !bytes.Contains(raw, []byte(toolExport)) && !bytes.Contains(raw, []byte(toolView)) {
		return raw, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw, nil
	}
	var results []map[string]json.RawMessage
	if json.Unmarshal(top["results"], &results) != nil {
		return raw, nil
	}
	var params struct {
		DocumentID string `json:"document_id"`
		Steps      []struct {
			Args map[string]any `json:"args"`
		} `json:"steps"`
	}
	json.Unmarshal(rc.encoded, &params)
	var links []mcpsdk.Content
	changed := false
	for i, r := range results {
		var tool, st string
		json.Unmarshal(r["tool"], &tool)
		json.Unmarshal(r["status"], &st)
		if (tool != toolExport && tool != toolView) || st != "ok" || r["result"] == nil {
			continue
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(r["result"], &res) != nil {
			continue
		}
		blankFiles(res)
		if status != enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK && params.DocumentID != "" {
			rev := after - laterChanges(results[i+1:])
			var args map[string]any
			if idx := stepIndex(r); idx >= 0 && idx < len(params.Steps) {
				args = params.Steps[idx].Args
			}
			var uri, name, mime string
			if tool == toolView {
				uri, name, mime = ViewURIAt(params.DocumentID, rev, viewQuery(args, res)), "view.png", "image/png"
			} else {
				var format, mt string
				json.Unmarshal(res["format"], &format)
				json.Unmarshal(res["media_type"], &mt)
				opts, _ := args["options"].(map[string]any)
				uri, name, mime = DrawingURIAt(params.DocumentID, format, rev, optionsQuery(literal(opts))), "drawing."+format, resourceMIME(format, mt)
			}
			res["resource"], _ = json.Marshal(uri)
			links = append(links, &mcpsdk.ResourceLink{URI: uri, Name: name, Title: fmt.Sprintf("step %d: %s at revision %d", stepIndex(r), params.DocumentID, rev), MIMEType: mime})
		}
		results[i]["result"], _ = json.Marshal(res)
		changed = true
	}
	if !changed {
		return raw, nil
	}
	top["results"], _ = json.Marshal(results)
	out, err := json.Marshal(top)
	if err != nil {
		return raw, nil
	}
	return out, links
}

// stepIndex is a step result's index (its "i").
func stepIndex(r map[string]json.RawMessage) int {
	i := -1
	json.Unmarshal(r["i"], &i)
	return i
}

// laterChanges counts the steps that changed the document: those of a
// tool that is not read-only (checkpoints aside) that succeeded.
func laterChanges(results []map[string]json.RawMessage) int64 {
	var n int64
	for _, r := range results {
		var tool, st string
		json.Unmarshal(r["tool"], &tool)
		json.Unmarshal(r["status"], &st)
		a := annotationsOf(tool)
		if st == "ok" && a != nil && !a.GetReadOnly() && !strings.HasPrefix(tool, "transaction_") {
			n++
		}
	}
	return n
}

// literal is args without the values that are $references (which the
// batch resolved, but its result does not say to what).
func literal(args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "$$") {
			continue
		}
		out[k] = v
	}
	return out
}

// viewQuery is the query of a view step's resource: the window and size
// the view had (from its result), and its layout, layers and highlighted
// handles (from its arguments, those that are not $references).
func viewQuery(args map[string]any, res map[string]json.RawMessage) map[string]string {
	q := map[string]string{}
	var r struct {
		Width, Height int
		Window        map[string]float64
	}
	json.Unmarshal(res["width"], &r.Width)
	json.Unmarshal(res["height"], &r.Height)
	json.Unmarshal(res["window"], &r.Window)
	q["width"], q["height"] = strconv.Itoa(r.Width), strconv.Itoa(r.Height)
	for _, k := range []string{"x1", "y1", "x2", "y2"} {
		q[k] = strconv.FormatFloat(r.Window[k], 'g', -1, 64)
	}
	if s, ok := args["layout"].(string); ok && !strings.HasPrefix(s, "$") {
		q["layout"] = s
	}
	for _, k := range []string{"layers", "highlight"} {
		list, _ := args[k].([]any)
		var vals []string
		for _, v := range list {
			if s, ok := v.(string); ok && !strings.HasPrefix(s, "$") {
				vals = append(vals, s)
			}
		}
		if len(vals) > 0 {
			q[k] = strings.Join(vals, ",")
		}
	}
	return q
}

// ---- summaries ----

// summary is the one line of text that says what a tool's result is:
// what was made or changed and the revision, how many entities, what a
// picture shows; never the result's JSON, which is structuredContent.
func summary(tool string, result json.RawMessage, rev int64, mutating, replayed bool) string {
	var m map[string]json.RawMessage
	json.Unmarshal(result, &m)
	s := summarize(tool, m, rev, mutating)
	if replayed {
		s += " (replayed)"
	}
	return s
}

func summarize(tool string, m map[string]json.RawMessage, rev int64, mutating bool) string {
	at := ""
	if mutating {
		at = fmt.Sprintf(" at revision %d", rev)
	}
	str := func(k string) string {
		var s string
		json.Unmarshal(m[k], &s)
		return s
	}
	num := func(k string) float64 {
		var f float64
		json.Unmarshal(m[k], &f)
		return f
	}
	// What a create tool makes: entity_create_line a line,
	// dimension_create_aligned a dimension aligned, hatch_create a hatch.
	created, isCreate := strings.CutPrefix(tool, "entity_create_")
	if !isCreate && strings.Contains(tool, "_create") {
		created, isCreate = strings.Replace(tool, "_create", "", 1), true
	}
	switch {
	case tool == toolView:
		return viewSummary(m, str, num)
	case tool == toolExport:
		size := len(str("content"))
		if d := str("data"); d != "" {
			size = base64.StdEncoding.DecodedLen(len(d))
		}
		how := "linked as a resource"
		if str("media_type") == "image/png" {
			how = "shown as an image"
		}
		return fmt.Sprintf("%s export of revision %d, %s (about %d bytes)", strings.ToUpper(str("format")), rev, how, size)
	case m["document"] != nil:
		var d struct {
			DocumentID  string `json:"document_id"`
			Name        string `json:"name"`
			EntityCount int64  `json:"entity_count"`
		}
		json.Unmarshal(m["document"], &d)
		return fmt.Sprintf("document %s %q: %d entities at revision %d", d.DocumentID, d.Name, d.EntityCount, rev)
	case m["document_id"] != nil && m["content_hash"] != nil:
		return fmt.Sprintf("document %s %q: revision %d, %d entities, current layer %s", str("document_id"), str("name"), int64(num("revision")), int64(num("entity_count")), str("current_layer"))
	case str("handle") != "" && isCreate:
		return fmt.Sprintf("created %s %s%s", strings.ReplaceAll(created, "_", " "), str("handle"), at)
	case str("handle") != "":
		return fmt.Sprintf("%s: %s%s", tool, str("handle"), at)
	case m["handles"] != nil:
		var hs []string
		json.Unmarshal(m["handles"], &hs)
		verb := tool + ":"
		if isCreate {
			verb = "created"
		}
		return fmt.Sprintf("%s %s%s", verb, countedHandles(hs), at)
	case m["entities"] != nil && m["entities"][0] == '[':
		var es []json.RawMessage
		json.Unmarshal(m["entities"], &es)
		s := plural(len(es), "entity", "entities")
		if t := int(num("total")); m["total"] != nil && t != len(es) {
			s += fmt.Sprintf(" of %d", t)
		}
		if str("next_page_token") != "" {
			s += ", more on the next page"
		}
		return s
	}
	return fmt.Sprintf("%s: %s%s", tool, scalars(m), at)
}

// viewSummary says what a view shows.
func viewSummary(m map[string]json.RawMessage, str func(string) string, num func(string) float64) string {
	var w struct{ X1, Y1, X2, Y2 float64 }
	json.Unmarshal(m["window"], &w)
	s := fmt.Sprintf("PNG %d×%d px of (%s, %s)–(%s, %s), %s units a pixel; %s drawn",
		int(num("width")), int(num("height")), short(w.X1), short(w.Y1), short(w.X2), short(w.Y2), short(num("units_per_pixel")),
		plural(int(num("entities")), "entity", "entities"))
	if h := int(num("highlighted")); h > 0 {
		s += fmt.Sprintf(", %d highlighted in orange", h)
	}
	var clamped bool
	json.Unmarshal(m["clamped"], &clamped)
	if clamped {
		s += "; the size asked for was clamped to 2048 px"
	}
	return s
}

// countedHandles is "3 entities: 1A, 1B, 1C", the first few handles.
func countedHandles(hs []string) string {
	s := plural(len(hs), "entity", "entities")
	if len(hs) == 0 {
		return s
	}
	const shown = 5
	list := strings.Join(hs[:min(len(hs), shown)], ", ")
	if len(hs) > shown {
		list += ", …"
	}
	return s + ": " + list
}

// scalars lists a result's top-level numbers, strings and booleans as
// "key value", a list as its length, in key order, within a line.
func scalars(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		v := bytes.TrimSpace(m[k])
		if len(v) == 0 {
			continue
		}
		switch v[0] {
		case '{':
			continue
		case '[':
			var l []json.RawMessage
			json.Unmarshal(v, &l)
			parts = append(parts, fmt.Sprintf("%s %d", k, len(l)))
		case '"':
			var s string
			json.Unmarshal(v, &s)
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			parts = append(parts, k+" "+s)
		default:
			var f float64
			if json.Unmarshal(v, &f) == nil {
				parts = append(parts, k+" "+short(f))
			} else {
				parts = append(parts, k+" "+string(v))
			}
		}
	}
	if len(parts) == 0 {
		return "ok"
	}
	s := strings.Join(parts, ", ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "")
}

// short is a number with at most 6 significant digits.
func short(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

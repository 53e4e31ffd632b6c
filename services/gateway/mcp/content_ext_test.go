package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"regexp"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

// noBytes fails the test when a result carries a file's bytes in its text
// or structuredContent: a base64 run of 200 characters or more, or a
// PNG's or PDF's signature.
func noBytes(t *testing.T, what string, res *mcpsdk.CallToolResult) {
	t.Helper()
	sc, _ := json.Marshal(res.StructuredContent)
	for name, s := range map[string]string{"text": text(res), "structuredContent": string(sc)} {
		if base64Run.MatchString(s) || strings.Contains(s, "PNG") && strings.Contains(s, "IHDR") || strings.Contains(s, "%PDF") || strings.Contains(s, "<svg") || strings.Contains(s, "SECTION") {
			t.Errorf("%s: %s carries a file: %.300s", what, name, s)
		}
	}
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{200,}`)

// oneLine fails the test when a result's text is not one short line.
func oneLine(t *testing.T, what string, res *mcpsdk.CallToolResult) {
	t.Helper()
	if s := text(res); strings.Contains(s, "\n") || len(s) > 300 || strings.Contains(s, "{") {
		t.Errorf("%s: text %q, want one short line without JSON", what, s)
	}
}

func contentOf[T mcpsdk.Content](res *mcpsdk.CallToolResult) []T {
	var out []T
	for _, c := range res.Content {
		if x, ok := c.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// TestViewRenderImage: view_render over MCP is image content (a PNG 768
// px wide by default, clamped to 2048 with the text saying so) and a
// one-line text of what it shows; its structuredContent has the size and
// window but no bytes.
func TestViewRenderImage(t *testing.T) {
	c := connect(t, startMCP(t, mcp.Config{}), versions[0], nil)
	doc := newDocument(t, c)
	line := call(t, c, "entity_create_line", map[string]any{"document_id": doc, "x1": 0, "y1": 0, "x2": 100, "y2": 50})
	oneLine(t, "entity_create_line", line)
	var h struct{ Handle string }
	structured(t, line, &h)
	if want := "created line " + h.Handle + " at revision 1"; text(line) != want {
		t.Errorf("entity_create_line text = %q, want %q", text(line), want)
	}

	for _, tc := range []struct {
		args    map[string]any
		width   int
		clamped bool
	}{
		{map[string]any{"document_id": doc, "highlight": []any{h.Handle}}, 768, false},
		{map[string]any{"document_id": doc, "width": 3000}, 2048, true},
	} {
		res := call(t, c, "view_render", tc.args)
		if res.IsError {
			t.Fatalf("view_render(%v) = %s", tc.args, text(res))
		}
		imgs := contentOf[*mcpsdk.ImageContent](res)
		if len(imgs) != 1 || imgs[0].MIMEType != "image/png" {
			t.Fatalf("view_render content = %v, want one image/png", res.Content)
		}
		img, err := png.Decode(bytes.NewReader(imgs[0].Data))
		if err != nil || img.Bounds().Dx() != tc.width {
			t.Fatalf("view_render(%v) image: %v, width %d; want a PNG %d px wide", tc.args, err, img.Bounds().Dx(), tc.width)
		}
		var out struct {
			Width  int               `json:"width"`
			Data   string            `json:"data"`
			Window map[string]any    `json:"window"`
			Extra  map[string]string `json:"-"`
		}
		structured(t, res, &out)
		if out.Width != tc.width || out.Data != "" || out.Window == nil {
			t.Errorf("view_render structuredContent: width %d, data %d bytes, window %v; want %d, none, the window", out.Width, len(out.Data), out.Window, tc.width)
		}
		noBytes(t, "view_render", res)
		oneLine(t, "view_render", res)
		if s := text(res); !strings.Contains(s, "1 entity") || strings.Contains(s, "clamped") != tc.clamped {
			t.Errorf("view_render text %q: want the entity count, and clamped said %v", s, tc.clamped)
		}
	}
}

// TestExportContent: document_export's PNG is image content; its PDF and
// DXF are links to the drawing resource of that revision (with the
// export's options), which read as the file; with
// _meta cadbridge/embed_resources the DXF comes embedded; a read once the
// document has moved on fails; a cad_batch step that exports or renders
// has a link in its result, not bytes.
func TestExportContent(t *testing.T) {
	c := connect(t, startMCP(t, mcp.Config{}), versions[0], nil)
	doc := newDocument(t, c)
	call(t, c, "entity_create_circle", map[string]any{"document_id": doc, "cx": 0, "cy": 0, "radius": 5})

	pngRes := call(t, c, "document_export", map[string]any{"document_id": doc, "format": "png"})
	if imgs := contentOf[*mcpsdk.ImageContent](pngRes); len(imgs) != 1 || !bytes.HasPrefix(imgs[0].Data, []byte("\x89PNG")) {
		t.Errorf("document_export png content = %v, want a PNG image", pngRes.Content)
	}
	noBytes(t, "document_export png", pngRes)
	oneLine(t, "document_export png", pngRes)

	pdfRes := call(t, c, "document_export", map[string]any{"document_id": doc, "format": "pdf", "options": map[string]any{"paper": "a3", "scale": 10}})
	noBytes(t, "document_export pdf", pdfRes)
	oneLine(t, "document_export pdf", pdfRes)
	links := contentOf[*mcpsdk.ResourceLink](pdfRes)
	if len(links) != 1 || links[0].MIMEType != "application/pdf" || !strings.HasPrefix(links[0].URI, mcp.DrawingURI(doc, "pdf")+"?") ||
		!strings.Contains(links[0].URI, "revision=1") || !strings.Contains(links[0].URI, "paper=a3") || !strings.Contains(links[0].URI, "scale=10") {
		t.Fatalf("document_export pdf content = %v, want a link to the PDF of revision 1 on A3 at 1:10", pdfRes.Content)
	}
	read, err := c.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: links[0].URI})
	if err != nil || len(read.Contents) != 1 || !bytes.HasPrefix(read.Contents[0].Blob, []byte("%PDF")) || read.Contents[0].MIMEType != "application/pdf" {
		t.Fatalf("read %s = %v, %v; want the PDF", links[0].URI, read, err)
	}

	dxfRes := call(t, c, "document_export", map[string]any{"document_id": doc, "format": "dxf"})
	if l := contentOf[*mcpsdk.ResourceLink](dxfRes); len(l) != 1 || l[0].URI != mcp.DrawingURIAt(doc, "dxf", 1, nil) {
		t.Errorf("document_export dxf content = %v, want a link to %s", dxfRes.Content, mcp.DrawingURIAt(doc, "dxf", 1, nil))
	}
	embedded, err := c.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "document_export", Arguments: map[string]any{"document_id": doc, "format": "dxf"}, Meta: mcpsdk.Meta{"cadbridge/embed_resources": true}})
	if err != nil {
		t.Fatal(err)
	}
	if e := contentOf[*mcpsdk.EmbeddedResource](embedded); len(e) != 1 || !strings.Contains(e[0].Resource.Text, "CIRCLE") {
		t.Errorf("document_export dxf, embedded: content %v, want the DXF embedded", embedded.Content)
	}
	noBytes(t, "document_export dxf embedded", embedded)

	batch := call(t, c, "cad_batch", map[string]any{"document_id": doc, "steps": []any{
		map[string]any{"tool": "document_export", "args": map[string]any{"format": "svg"}},
		map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": 1, "y": 1}, "bind": "p"},
		map[string]any{"tool": "view_render", "args": map[string]any{"width": 100, "highlight": []any{"$p"}}},
	}})
	noBytes(t, "cad_batch", batch)
	oneLine(t, "cad_batch", batch)
	var out struct {
		Results []struct {
			Result map[string]any `json:"result"`
		} `json:"results"`
	}
	structured(t, batch, &out)
	if len(out.Results) != 3 {
		t.Fatalf("cad_batch = %s, want 3 step results", text(batch))
	}
	svgURI, _ := out.Results[0].Result["resource"].(string)
	viewURI, _ := out.Results[2].Result["resource"].(string)
	if svgURI != mcp.DrawingURIAt(doc, "svg", 1, nil) || !strings.Contains(viewURI, "/view.png?") || !strings.Contains(viewURI, "revision=2") || !strings.Contains(viewURI, "width=100") {
		t.Fatalf("cad_batch step resources: %q, %q; want the SVG of revision 1 and a view of revision 2", svgURI, viewURI)
	}
	if l := contentOf[*mcpsdk.ResourceLink](batch); len(l) < 2 {
		t.Errorf("cad_batch content = %v, want links to the step files", batch.Content)
	}
	view, err := c.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: viewURI})
	if err != nil || len(view.Contents) != 1 {
		t.Fatalf("read %s = %v", viewURI, err)
	}
	if img, err := png.Decode(bytes.NewReader(view.Contents[0].Blob)); err != nil || img.Bounds().Dx() != 100 {
		t.Errorf("read %s: %v, want a PNG 100 px wide", viewURI, err)
	}
	if _, err := c.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: svgURI}); err == nil || !strings.Contains(err.Error(), "revision 2") {
		t.Errorf("read %s at revision 2 = %v, want an error naming the current revision", svgURI, err)
	}
}

// TestShortText: a failure's text is its error line, without the JSON
// (the typed error is in _meta); a list's is a count.
func TestShortText(t *testing.T) {
	c := connect(t, startMCP(t, mcp.Config{}), versions[0], nil)
	doc := newDocument(t, c)
	for i := range 3 {
		call(t, c, "entity_create_point", map[string]any{"document_id": doc, "x": i, "y": 0})
	}
	if s := text(call(t, c, "entity_list", map[string]any{"document_id": doc})); s != "3 entities" {
		t.Errorf("entity_list text = %q, want \"3 entities\"", s)
	}
	bad := call(t, c, "entity_move", map[string]any{"document_id": doc, "handle": "zz", "dx": 1, "dy": 0})
	oneLine(t, "entity_move failure", bad)
	if s := text(bad); !strings.HasPrefix(s, "entity_move failed: invalid_args: ") || !strings.HasSuffix(s, "(at /handle)") {
		t.Errorf("entity_move failure text = %q, want its error line", s)
	}
	toolError(t, bad)
}

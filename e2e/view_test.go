package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// TestView: through the built binaries, view_render over /mcp with the Go
// SDK's client is image content, a PNG 768 px wide with nothing of it in
// the text or structuredContent; "cadctl view" writes a PNG of the
// window and size asked for.
func TestView(t *testing.T) {
	gw, _ := startServices(t)
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "e2e-view", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: "http://" + gw + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	defer cs.Close()
	callMCP := func(name string, args map[string]any) (*mcpsdk.CallToolResult, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s(%v) = %v, %v", name, args, res, err)
		}
		var out map[string]any
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &out)
		return res, out
	}
	_, created := callMCP("document_create", map[string]any{"name": "view"})
	doc := created["document"].(map[string]any)["document_id"].(string)
	callMCP("entity_create_circle", map[string]any{"document_id": doc, "cx": 0, "cy": 0, "radius": 10})
	callMCP("entity_create_line", map[string]any{"document_id": doc, "x1": -20, "y1": 0, "x2": 20, "y2": 0})

	res, out := callMCP("view_render", map[string]any{"document_id": doc})
	var img *mcpsdk.ImageContent
	var text string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcpsdk.ImageContent:
			img = c
		case *mcpsdk.TextContent:
			text += c.Text
		}
	}
	if img == nil || img.MIMEType != "image/png" {
		t.Fatalf("view_render content = %v, want image/png content", res.Content)
	}
	pic, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil || pic.Bounds().Dx() != 768 {
		t.Fatalf("view_render image: %v, want a PNG 768 px wide", err)
	}
	if out["data"] != "" || out["width"] != 768.0 || strings.Contains(text, "\n") || !strings.Contains(text, "2 entities") {
		t.Errorf("view_render: structuredContent data %.40v, width %v, text %q; want no bytes, 768, one line counting 2 entities", out["data"], out["width"], text)
	}

	file := filepath.Join(t.TempDir(), "window.png")
	cmd := exec.Command(proctest.Bin("cadctl"), "--url", gw, "view", doc, "-o", file, "--window", "-10,-10,10,10", "--width", "300")
	stderr, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cadctl view: %v\n%s", err, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pic, err = png.Decode(bytes.NewReader(data))
	if err != nil || pic.Bounds().Dx() != 300 || pic.Bounds().Dy() != 300 {
		t.Fatalf("cadctl view wrote %d bytes: %v, want a PNG of 300 × 300 px", len(data), err)
	}
	if !strings.Contains(string(stderr), "300 × 300 px of (-10, -10)–(10, 10)") {
		t.Errorf("cadctl view said %q, want what the picture shows", stderr)
	}
	// The line through the middle is drawn; a corner of the window is
	// blank.
	if r, g, b, _ := pic.At(150, 150).RGBA(); r>>8 >= 0xf0 && g>>8 >= 0xf0 && b>>8 >= 0xf0 {
		t.Errorf("pixel at the centre = %d, %d, %d; want the line's ink, not the white page", r>>8, g>>8, b>>8)
	}
	if r, g, b, _ := pic.At(5, 5).RGBA(); r>>8 < 0xf0 || g>>8 < 0xf0 || b>>8 < 0xf0 {
		t.Errorf("pixel at a corner = %d, %d, %d; want the white page", r>>8, g>>8, b>>8)
	}
	if out, err := exec.Command(proctest.Bin("cadctl"), "--url", gw, "view", doc, "--layers", "nope", "-o", file).CombinedOutput(); err == nil || !strings.Contains(string(out), "invalid_args") {
		t.Errorf("cadctl view --layers nope = %v, %s; want a failure naming invalid_args", err, out)
	}
}

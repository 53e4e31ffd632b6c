package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// cmdView writes a PNG of a view of a document (the view_render tool): all
// of model space or a window of it, or a paper-space layout, some layers,
// some entities highlighted; it says on stderr what the picture shows.
func cmdView(ctx context.Context, a *app, args []string) int {
	fs := a.flags("view")
	out := fs.String("o", "", "output file; - for stdout (default D.png)")
	window := fs.String("window", "", "the part to show, x1,y1,x2,y2 in document units (default: the extents)")
	width := fs.Int("width", 0, "width in pixels (768 by default, at most 2048)")
	height := fs.Int("height", 0, "height in pixels (default: from the width and the window's proportions)")
	layout := fs.String("layout", "", "a paper-space layout (default model space)")
	layers := fs.String("layers", "", "only these layers, comma-separated")
	highlight := fs.String("highlight", "", "handles of entities to highlight, comma-separated")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 1 {
		return a.failUsage("view D [-o FILE.png] [--window x1,y1,x2,y2] [--width N] [--height N] [--layout L] [--layers A,B] [--highlight H,H]")
	}
	doc := pos[0]
	toolArgs := map[string]any{}
	if *window != "" {
		parts := strings.Split(*window, ",")
		if len(parts) != 4 {
			return a.failUsage("--window %q: want x1,y1,x2,y2", *window)
		}
		w := map[string]float64{}
		for i, k := range []string{"x1", "y1", "x2", "y2"} {
			v, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
			if err != nil {
				return a.failUsage("--window %q: %s is not a number", *window, parts[i])
			}
			w[k] = v
		}
		toolArgs["window"] = w
	}
	if *width > 0 {
		toolArgs["width"] = *width
	}
	if *height > 0 {
		toolArgs["height"] = *height
	}
	if *layout != "" {
		toolArgs["layout"] = *layout
	}
	if *layers != "" {
		toolArgs["layers"] = strings.Split(*layers, ",")
	}
	if *highlight != "" {
		toolArgs["highlight"] = strings.Split(*highlight, ",")
	}
	params := map[string]any{"document_id": doc, "tool": enginev1.ToolViewRender, "args": toolArgs}
	raw, err := a.simpleCall(ctx, gatewayv1.MethodToolsCall, params, true)
	if err != nil {
		return a.fail(err)
	}
	var resp enginev1.CallToolResponse
	if err := decodeResult(raw, &resp); err != nil {
		return a.fail(err)
	}
	if !resp.GetOk() {
		fmt.Fprintf(a.stderr, "cadctl: view_render: %s\n", formatError(resp.GetError()))
		return exitFailure
	}
	var view enginev1.ViewRenderResult
	if err := contract.UnmarshalPartial(resp.GetResultJson(), &view); err != nil {
		return a.fail(fmt.Errorf("view_render result: %w", err))
	}
	if *out == "" {
		*out = doc + ".png"
	}
	if *out == "-" {
		a.stdout.Write(view.GetData())
	} else if err := os.WriteFile(*out, view.GetData(), 0o644); err != nil {
		return a.fail(err)
	}
	w := view.GetWindow()
	note := ""
	if view.GetClamped() {
		note = ", clamped to 2048 px"
	}
	fmt.Fprintf(a.stderr, "wrote %s: %d × %d px of (%g, %g)–(%g, %g), %.4g units a pixel, %d entities (%d highlighted)%s\n",
		*out, view.GetWidth(), view.GetHeight(), w.GetX1(), w.GetY1(), w.GetX2(), w.GetY2(), view.GetUnitsPerPixel(), view.GetEntities(), view.GetHighlighted(), note)
	return exitOK
}

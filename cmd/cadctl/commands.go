package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// simpleCall dials, sends one call (sent again after a reconnect when
// retry says it is safe) and returns its raw result.
func (a *app) simpleCall(ctx context.Context, method string, params any, retry bool) (json.RawMessage, error) {
	con := a.console()
	c, err := a.dial(ctx, con, nil, nil)
	if err != nil {
		return nil, err
	}
	defer c.close()
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw, retry); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
}

// cmdTools lists the catalog, or shows one tool with its schemas.
func cmdTools(ctx context.Context, a *app, args []string) int {
	fs := a.flags("tools")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) > 1 {
		return a.failUsage("tools takes at most one tool name")
	}
	raw, err := a.simpleCall(ctx, gatewayv1.MethodToolsList, nil, true)
	if err != nil {
		return a.fail(err)
	}
	var list enginev1.ListToolsResponse
	if err := decodeResult(raw, &list); err != nil {
		return a.fail(err)
	}
	if len(pos) == 0 {
		if a.cfg.json {
			a.printJSON(raw)
			return exitOK
		}
		tw, tb := newTable()
		fmt.Fprintln(tw, "TOOL\tANNOTATIONS\tDESCRIPTION")
		for _, t := range list.Tools {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.GetName(), annotations(t), t.GetDescription())
		}
		flushTable(a.stdout, tw, tb)
		return exitOK
	}
	for _, t := range list.Tools {
		if t.GetName() != pos[0] {
			continue
		}
		if a.cfg.json {
			a.printJSON(wireJSON(t))
			return exitOK
		}
		fmt.Fprintf(a.stdout, "%s: %s\nannotations: %s\n\ninput schema:\n%s\n\noutput schema:\n%s\n", t.GetName(), t.GetDescription(), annotations(t), indentJSON(json.RawMessage(t.GetInputSchemaJson()), "  "), indentJSON(json.RawMessage(t.GetOutputSchemaJson()), "  "))
		return exitOK
	}
	return a.fail(fmt.Errorf("no tool %q in the catalog (cadctl tools lists them)", pos[0]))
}

func annotations(t *enginev1.Tool) string {
	var as []string
	an := t.GetAnnotations()
	for _, f := range []struct {
		on   bool
		name string
	}{
		{an.GetReadOnly(), "read_only"},
		{an.GetDestructive(), "destructive"},
		{an.GetIdempotent(), "idempotent"},
		{an.GetBatchable(), "batchable"},
		{an.GetInteractive(), "interactive"},
	} {
		if f.on {
			as = append(as, f.name)
		}
	}
	if len(as) == 0 {
		return "-"
	}
	return strings.Join(as, ",")
}

// indentJSON renders raw indented, every line starting with prefix.
func indentJSON(raw json.RawMessage, prefix string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, prefix, "  "); err != nil {
		return prefix + string(raw)
	}
	return prefix + buf.String()
}

// cmdDoc creates, lists or describes documents.
func cmdDoc(ctx context.Context, a *app, args []string) int {
	fs := a.flags("doc")
	name := fs.String("name", "", "doc create: the document's name")
	units := fs.String("units", "", "doc create: mm, cm, m, in or ft (default mm)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) == 0 {
		return a.failUsage("doc needs a subcommand: create, list or info")
	}
	switch sub := pos[0]; sub {
	case "create":
		if len(pos) > 2 {
			return a.failUsage("doc create [NAME] [--name N] [--units U]")
		}
		if len(pos) == 2 {
			*name = pos[1]
		}
		params := map[string]any{}
		if *name != "" {
			params["name"] = *name
		}
		if *units != "" {
			params["units"] = *units
		}
		raw, err := a.simpleCall(ctx, gatewayv1.MethodDocumentCreate, params, false)
		if err != nil {
			return a.fail(err)
		}
		return a.printDocumentResult(raw)
	case "info":
		if len(pos) != 2 {
			return a.failUsage("doc info D")
		}
		raw, err := a.simpleCall(ctx, gatewayv1.MethodDocumentGet, map[string]any{"document_id": pos[1]}, true)
		if err != nil {
			return a.fail(err)
		}
		return a.printDocumentResult(raw)
	case "list":
		if len(pos) != 1 {
			return a.failUsage("doc list takes no arguments")
		}
		return a.listDocuments(ctx)
	default:
		return a.failUsage("doc %q: want create, list or info", sub)
	}
}

func (a *app) printDocumentResult(raw json.RawMessage) int {
	if a.cfg.json {
		a.printJSON(raw)
		return exitOK
	}
	var d enginev1.DocumentInfo
	if err := decodeResult(raw, &d); err != nil {
		return a.fail(err)
	}
	printDocument(a.stdout, &d)
	return exitOK
}

// listDocuments reads every page of document.list.
func (a *app) listDocuments(ctx context.Context) int {
	con := a.console()
	c, err := a.dial(ctx, con, nil, nil)
	if err != nil {
		return a.fail(err)
	}
	defer c.close()
	var docs []*enginev1.DocumentInfo
	token := ""
	for {
		params := map[string]any{"page_size": 1000}
		if token != "" {
			params["page_token"] = token
		}
		var page enginev1.ListDocumentsResponse
		if err := c.call(ctx, gatewayv1.MethodDocumentList, params, &page, true); err != nil {
			return a.fail(fmt.Errorf("document.list: %w", err))
		}
		docs = append(docs, page.Documents...)
		if page.GetNextPageToken() == "" {
			break
		}
		token = page.GetNextPageToken()
	}
	if a.cfg.json {
		// Every page's documents, each as the gateway sent it.
		var raws []json.RawMessage
		for _, d := range docs {
			raws = append(raws, wireJSON(d))
		}
		data, _ := json.Marshal(map[string]any{"documents": raws})
		a.printJSON(data)
		return exitOK
	}
	tw, tb := newTable()
	fmt.Fprintln(tw, "DOCUMENT\tNAME\tUNITS\tREVISION\tENTITIES")
	for _, d := range docs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", d.GetDocumentId(), d.GetName(), wireName(d.GetUnits()), d.GetRevision(), d.GetEntityCount())
	}
	flushTable(a.stdout, tw, tb)
	return exitOK
}

// cmdExport writes a document as SVG, DXF, PNG or PDF, on a paper and at
// a plot scale when asked, or a layout plotted on its paper.
func cmdExport(ctx context.Context, a *app, args []string) int {
	fs := a.flags("export")
	format := fs.String("format", "", "svg, dxf, png or pdf (default: from the -o file's extension)")
	out := fs.String("o", "-", "output file; - for stdout")
	paper := fs.String("paper", "", "plot on a paper: a4, a3, a2, a1, a0, letter or tabloid (svg, png, pdf)")
	scale := fs.Float64("scale", 0, "plot scale N of 1:N (svg, png, pdf)")
	version := fs.String("dxf-version", "", "r2018 (the default) or r12 (dxf)")
	dpi := fs.Int("dpi", 0, "pixels per inch of paper (png; 96 by default, 150 for a layout)")
	layout := fs.String("layout", "", "plot this paper-space layout 1:1 on its paper (svg, png, pdf)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 1 {
		return a.failUsage("export D [--format svg|dxf|png|pdf] [--paper P] [--scale N] [--layout L] [--dxf-version V] -o FILE")
	}
	if *format == "" {
		*format = strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	}
	switch *format {
	case "svg", "dxf", "png", "pdf":
	default:
		return a.failUsage("--format %q: want svg, dxf, png or pdf", *format)
	}
	params := map[string]any{"document_id": pos[0], "format": *format}
	opts := map[string]any{}
	if *paper != "" {
		opts["paper"] = *paper
	}
	if *scale > 0 {
		opts["scale"] = *scale
	}
	if *version != "" {
		opts["dxf_version"] = *version
	}
	if *dpi > 0 {
		opts["dpi"] = *dpi
	}
	if len(opts) > 0 {
		params["options"] = opts
	}
	var res interface {
		GetContent() string
		GetData() []byte
		GetMediaType() string
	}
	if *layout != "" {
		// A layout is plotted by the document_export tool.
		delete(params, "document_id")
		params["layout"] = *layout
		raw, err := a.simpleCall(ctx, gatewayv1.MethodToolsCall, map[string]any{"document_id": pos[0], "tool": enginev1.ToolDocumentExport, "args": params}, true)
		if err != nil {
			return a.fail(err)
		}
		if a.cfg.json {
			a.printJSON(raw)
			return exitOK
		}
		var resp enginev1.CallToolResponse
		if err := decodeResult(raw, &resp); err != nil {
			return a.fail(err)
		}
		if !resp.GetOk() {
			fmt.Fprintf(a.stderr, "cadctl: document_export: %s\n", formatError(resp.GetError()))
			return exitFailure
		}
		var x enginev1.DocumentExportResult
		if err := contract.UnmarshalPartial(resp.GetResultJson(), &x); err != nil {
			return a.fail(fmt.Errorf("document_export result: %w", err))
		}
		res = &x
	} else {
		raw, err := a.simpleCall(ctx, gatewayv1.MethodDocumentExport, params, true)
		if err != nil {
			return a.fail(err)
		}
		if a.cfg.json {
			a.printJSON(raw)
			return exitOK
		}
		var x enginev1.ExportDocumentResponse
		if err := decodeResult(raw, &x); err != nil {
			return a.fail(err)
		}
		res = &x
	}
	body := []byte(res.GetContent())
	if len(res.GetData()) > 0 {
		body = res.GetData()
	}
	if *out == "-" {
		a.stdout.Write(body)
		return exitOK
	}
	if err := os.WriteFile(*out, body, 0o644); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.stderr, "wrote %s (%s, %d bytes)\n", *out, res.GetMediaType(), len(body))
	return exitOK
}

// cmdWatch subscribes to documents and prints their events until
// interrupted, resuming the session (and so missing none) if the
// connection drops.
func cmdWatch(ctx context.Context, a *app, args []string) int {
	fs := a.flags("watch")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) == 0 {
		return a.failUsage("watch D [D...]")
	}
	con := a.console()
	print := func(ev event) {
		if a.cfg.json {
			data, _ := json.Marshal(ev)
			a.printJSON(data)
			return
		}
		fmt.Fprintf(a.stdout, "#%d %s %s\n", ev.Seq, ev.Type, describeEvent(ev))
	}
	c, err := a.dial(ctx, con, nil, print)
	if err != nil {
		return a.fail(err)
	}
	defer c.close()
	sess, err := c.createSession(ctx, nil, "")
	if err != nil {
		return a.fail(fmt.Errorf("session.create: %w", err))
	}
	defer c.closeSession(ctx)
	if err := c.call(ctx, gatewayv1.MethodSessionSubscribe, map[string]any{"session_id": sess.ID, "document_ids": pos}, nil, true); err != nil {
		return a.fail(fmt.Errorf("session.subscribe: %w", err))
	}
	con.printf("watching %s (Ctrl-C to stop)", strings.Join(pos, " "))
	if link, err := viewerURL(a.cfg.url, pos[0], sess, a.token()); err == nil {
		con.printf("viewer: %s", link)
	}
	for {
		if _, err := c.current(ctx); err != nil {
			if ctx.Err() != nil {
				return exitOK
			}
			return a.fail(err)
		}
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return exitOK
		case <-changed:
		}
	}
}

// describeEvent renders an event's payload on one line.
func describeEvent(ev event) string {
	var p struct {
		DocumentID  string `json:"document_id"`
		Revision    *int64 `json:"revision"`
		OperationID string `json:"operation_id"`
		Step        *int   `json:"step"`
		Total       *int   `json:"total"`
		Status      string `json:"status"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return string(ev.Payload)
	}
	switch ev.Type {
	case gatewayv1.EventDocumentChanged:
		if p.Revision != nil {
			return fmt.Sprintf("%s revision %d by %s", p.DocumentID, *p.Revision, p.OperationID)
		}
	case gatewayv1.EventBatchProgress:
		if p.Step != nil && p.Total != nil {
			return fmt.Sprintf("%s %d/%d", p.OperationID, *p.Step, *p.Total)
		}
	case gatewayv1.EventOperationFinished:
		return fmt.Sprintf("%s %s", p.OperationID, p.Status)
	}
	return compactJSON(ev.Payload, 200)
}

// cmdOp shows a recorded operation.
func cmdOp(ctx context.Context, a *app, args []string) int {
	fs := a.flags("op")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 1 {
		return a.failUsage("op ID")
	}
	raw, err := a.simpleCall(ctx, gatewayv1.MethodOperationsGet, map[string]any{"operation_id": pos[0]}, true)
	if err != nil {
		return a.fail(err)
	}
	if a.cfg.json {
		a.printJSON(raw)
		return exitOK
	}
	var op enginev1.Operation
	if err := decodeResult(raw, &op); err != nil {
		return a.fail(err)
	}
	w := a.stdout
	fmt.Fprintf(w, "operation %s: %s %s\n", op.GetOperationId(), op.GetKind(), wireName(op.GetStatus()))
	fmt.Fprintf(w, "document %s at revision %d, by %s\n", op.GetDocumentId(), op.GetRevision(), op.GetPrincipal())
	fmt.Fprintf(w, "started %s", wireTime(op.GetStartedAt()))
	if op.FinishedAt != nil {
		fmt.Fprintf(w, ", finished %s", wireTime(op.GetFinishedAt()))
	}
	fmt.Fprintln(w)
	if len(op.CommittedSteps) > 0 {
		fmt.Fprintf(w, "committed steps: %s\n", strings.Trim(fmt.Sprint(op.CommittedSteps), "[]"))
	}
	if op.Result != nil {
		printBatch(w, op.Result, nil)
	}
	return exitOK
}

// cmdStatus shows the engine's and the gateway's status.
func cmdStatus(ctx context.Context, a *app, args []string) int {
	fs := a.flags("status")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 0 {
		return a.failUsage("status takes no arguments")
	}
	raw, err := a.simpleCall(ctx, gatewayv1.MethodSystemStatus, nil, true)
	if err != nil {
		return a.fail(err)
	}
	if a.cfg.json {
		a.printJSON(raw)
		return exitOK
	}
	var st gatewayv1.SystemStatusResult
	if err := decodeResult(raw, &st); err != nil {
		return a.fail(err)
	}
	ready := func(b bool) string {
		if b {
			return "ready"
		}
		return "not ready"
	}
	w := a.stdout
	e, g := st.GetEngine(), st.GetGateway()
	fmt.Fprintf(w, "gateway %s  %s  version %s  %d %s  (%s)\n", g.GetGatewayId(), ready(g.GetReady()), g.GetVersion(), g.GetConnections(), plural(int(g.GetConnections()), "connection", "connections"), a.cfg.url)
	fmt.Fprintf(w, "engine  %s  version %s  store %s  epoch %s  %d %s  %d %s\n", ready(e.GetReady()), e.GetVersion(), e.GetStore(), e.GetEpoch(), e.GetDocuments(), plural(int(e.GetDocuments()), "document", "documents"), e.GetSessions(), plural(int(e.GetSessions()), "session", "sessions"))
	if len(e.GetRecentOperations()) > 0 {
		fmt.Fprintln(w, "recent operations:")
		tw, tb := newTable()
		fmt.Fprintln(tw, "  OPERATION\tKIND\tDOCUMENT\tSTATUS\tREVISION\tSTARTED")
		for _, op := range e.GetRecentOperations() {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", op.GetOperationId(), op.GetKind(), op.GetDocumentId(), wireName(op.GetStatus()), op.GetRevision(), wireTime(op.GetStartedAt()))
		}
		flushTable(w, tw, tb)
	}
	return exitOK
}

// cmdCall sends any method with params given as JSON, answering server
// requests at the terminal, and prints the result.
func cmdCall(ctx context.Context, a *app, args []string) int {
	fs := a.flags("call")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) < 1 || len(pos) > 2 {
		return a.failUsage("call METHOD [PARAMS_JSON]")
	}
	var params any
	if len(pos) == 2 {
		if !json.Valid([]byte(pos[1])) {
			return a.failUsage("params %q are not JSON", pos[1])
		}
		params = json.RawMessage(pos[1])
	}
	con := a.console()
	pr := newPrompter(con, a.stdinTTY, "")
	c, err := a.dial(ctx, con, pr.answer, nil)
	if err != nil {
		return a.fail(err)
	}
	defer c.close()
	var raw json.RawMessage
	if err := c.call(ctx, pos[0], params, &raw, false); err != nil {
		return a.fail(err)
	}
	if a.cfg.json {
		a.printJSON(raw)
		return exitOK
	}
	fmt.Fprintln(a.stdout, indentJSON(raw, ""))
	return exitOK
}

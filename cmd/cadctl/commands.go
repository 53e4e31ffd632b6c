package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return a.fail(err)
	}
	if len(pos) == 0 {
		if a.cfg.json {
			a.printJSON(raw)
			return exitOK
		}
		tw, tb := newTable()
		fmt.Fprintln(tw, "TOOL\tANNOTATIONS\tDESCRIPTION")
		for _, r := range list.Tools {
			var t tool
			json.Unmarshal(r, &t)
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, annotations(&t), t.Description)
		}
		flushTable(a.stdout, tw, tb)
		return exitOK
	}
	for _, r := range list.Tools {
		var t tool
		json.Unmarshal(r, &t)
		if t.Name != pos[0] {
			continue
		}
		if a.cfg.json {
			a.printJSON(r)
			return exitOK
		}
		fmt.Fprintf(a.stdout, "%s: %s\nannotations: %s\n\ninput schema:\n%s\n\noutput schema:\n%s\n", t.Name, t.Description, annotations(&t), indentJSON(t.InputSchema, "  "), indentJSON(t.OutputSchema, "  "))
		return exitOK
	}
	return a.fail(fmt.Errorf("no tool %q in the catalog (cadctl tools lists them)", pos[0]))
}

func annotations(t *tool) string {
	var as []string
	an := t.Annotations
	for _, f := range []struct {
		on   bool
		name string
	}{
		{an.ReadOnly, "read_only"},
		{an.Destructive, "destructive"},
		{an.Idempotent, "idempotent"},
		{an.Batchable, "batchable"},
		{an.Interactive, "interactive"},
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
	var d documentInfo
	if err := json.Unmarshal(raw, &d); err != nil {
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
	var docs []json.RawMessage
	token := ""
	for {
		params := map[string]any{"page_size": 1000}
		if token != "" {
			params["page_token"] = token
		}
		var page struct {
			Documents     []json.RawMessage `json:"documents"`
			NextPageToken string            `json:"next_page_token"`
		}
		if err := c.call(ctx, gatewayv1.MethodDocumentList, params, &page, true); err != nil {
			return a.fail(fmt.Errorf("document.list: %w", err))
		}
		docs = append(docs, page.Documents...)
		if page.NextPageToken == "" {
			break
		}
		token = page.NextPageToken
	}
	if a.cfg.json {
		data, _ := json.Marshal(map[string]any{"documents": docs})
		a.printJSON(data)
		return exitOK
	}
	tw, tb := newTable()
	fmt.Fprintln(tw, "DOCUMENT\tNAME\tUNITS\tREVISION\tENTITIES")
	for _, r := range docs {
		var d documentInfo
		json.Unmarshal(r, &d)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", d.DocumentID, d.Name, d.Units, d.Revision, d.EntityCount)
	}
	flushTable(a.stdout, tw, tb)
	return exitOK
}

// cmdExport writes a document as SVG or DXF.
func cmdExport(ctx context.Context, a *app, args []string) int {
	fs := a.flags("export")
	format := fs.String("format", "", "svg or dxf (default: from the -o file's extension)")
	out := fs.String("o", "-", "output file; - for stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 1 {
		return a.failUsage("export D [--format svg|dxf] -o FILE")
	}
	if *format == "" {
		*format = strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	}
	if *format != "svg" && *format != "dxf" {
		return a.failUsage("--format %q: want svg or dxf", *format)
	}
	raw, err := a.simpleCall(ctx, gatewayv1.MethodDocumentExport, map[string]any{"document_id": pos[0], "format": *format}, true)
	if err != nil {
		return a.fail(err)
	}
	if a.cfg.json {
		a.printJSON(raw)
		return exitOK
	}
	var res exportResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return a.fail(err)
	}
	if *out == "-" {
		fmt.Fprint(a.stdout, res.Content)
		return exitOK
	}
	if err := os.WriteFile(*out, []byte(res.Content), 0o644); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.stderr, "wrote %s (%s, %d bytes)\n", *out, res.MediaType, len(res.Content))
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
	var op operation
	if err := json.Unmarshal(raw, &op); err != nil {
		return a.fail(err)
	}
	w := a.stdout
	fmt.Fprintf(w, "operation %s: %s %s\n", op.OperationID, op.Kind, op.Status)
	fmt.Fprintf(w, "document %s at revision %d, by %s\n", op.DocumentID, op.Revision, op.Principal)
	fmt.Fprintf(w, "started %s", op.StartedAt)
	if op.FinishedAt != "" {
		fmt.Fprintf(w, ", finished %s", op.FinishedAt)
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
	var st systemStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		return a.fail(err)
	}
	ready := func(b bool) string {
		if b {
			return "ready"
		}
		return "not ready"
	}
	w := a.stdout
	e, g := st.Engine, st.Gateway
	fmt.Fprintf(w, "gateway %s  %s  version %s  %d %s  (%s)\n", g.GatewayID, ready(g.Ready), g.Version, g.Connections, plural(int(g.Connections), "connection", "connections"), a.cfg.url)
	fmt.Fprintf(w, "engine  %s  version %s  store %s  epoch %s  %d %s  %d %s\n", ready(e.Ready), e.Version, e.Store, e.Epoch, e.Documents, plural(int(e.Documents), "document", "documents"), e.Sessions, plural(int(e.Sessions), "session", "sessions"))
	if len(e.RecentOperations) > 0 {
		fmt.Fprintln(w, "recent operations:")
		tw, tb := newTable()
		fmt.Fprintln(tw, "  OPERATION\tKIND\tDOCUMENT\tSTATUS\tREVISION\tSTARTED")
		for _, op := range e.RecentOperations {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", op.OperationID, op.Kind, op.DocumentID, op.Status, op.Revision, op.StartedAt)
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

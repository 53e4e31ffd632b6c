package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// cmdBatch runs a batch file: the params object of cad.batch, which the
// flags override. Without a document (flag or file) it creates one, named
// after the file. It exits 0 when the batch succeeded (or validated, for a
// dry run) and 1 otherwise.
func cmdBatch(ctx context.Context, a *app, args []string) int {
	fs := a.flags("batch")
	document := fs.String("document", "", "document id (default: the file's document_id, else a new document)")
	name := fs.String("name", "", "name of the document created when none is given (default: the file's base name)")
	units := fs.String("units", "", "units of the document created when none is given (default mm)")
	dryRun := fs.Bool("dry-run", false, "validate and preview only; nothing executes")
	verbose := fs.Bool("verbose", false, "report every step's whole result, not only its handle")
	onError := fs.String("on-error", "", "stop, continue or rollback (default: the file's, else stop)")
	operationID := fs.String("operation-id", "", "operation id, for a safe retry (default: the file's, else a new one)")
	yes := fs.Bool("yes", false, "approve every approval request without asking")
	no := fs.Bool("no", false, "deny every approval request without asking")
	pos, err := parse(fs, args)
	if err != nil {
		return usageCode(err)
	}
	if len(pos) != 1 {
		return a.failUsage("batch needs one file (- for stdin), got %d arguments", len(pos))
	}
	if *yes && *no {
		return a.failUsage("--yes and --no exclude each other")
	}
	switch *onError {
	case "", "stop", "continue", "rollback":
	default:
		return a.failUsage("--on-error %q: want stop, continue or rollback", *onError)
	}
	file := pos[0]
	params, steps, err := readBatchFile(file, a.stdin)
	if err != nil {
		return a.fail(err)
	}
	set := func(key string, v any) {
		data, _ := json.Marshal(v)
		params[key] = data
	}
	if *document != "" {
		set("document_id", *document)
	}
	if *dryRun {
		set("dry_run", true)
	}
	if *verbose {
		set("verbose", true)
	}
	if *onError != "" {
		set("on_error", *onError)
	}
	if *operationID != "" {
		set("operation_id", *operationID)
	}
	// An operation id makes the call safe to send again after a dropped
	// connection: a retry replays the recorded result.
	opID := stringParam(params, "operation_id")
	if opID == "" {
		opID = newOperationID()
		set("operation_id", opID)
	}

	decision := ""
	if *yes {
		decision = "approve"
	} else if *no {
		decision = "deny"
	}
	con := a.console()
	pr := newPrompter(con, a.stdinTTY && file != "-", decision)
	prog := newProgress(con, steps)
	finished := make(chan struct{}, 1)
	onEvent := func(ev event) {
		switch ev.Type {
		case gatewayv1.EventBatchProgress:
			var p struct {
				OperationID string `json:"operation_id"`
				Step        int    `json:"step"`
				Total       int    `json:"total"`
			}
			if json.Unmarshal(ev.Payload, &p) == nil && p.OperationID == opID {
				prog.update(p.Step, p.Total)
			}
		case gatewayv1.EventOperationFinished:
			var p struct {
				OperationID string `json:"operation_id"`
			}
			if json.Unmarshal(ev.Payload, &p) == nil && p.OperationID == opID {
				select {
				case finished <- struct{}{}:
				default:
				}
			}
		}
	}
	c, err := a.dial(ctx, con, pr.answer, onEvent)
	if err != nil {
		return a.fail(err)
	}
	defer c.close()
	sess, err := c.createSession(ctx, pr.methods(), pr.approvalPolicy())
	if err != nil {
		return a.fail(fmt.Errorf("session.create: %w", err))
	}
	defer c.closeSession(ctx)
	set("session_id", sess.ID)

	docID := stringParam(params, "document_id")
	if docID == "" {
		if *name == "" {
			*name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			if file == "-" {
				*name = "batch"
			}
		}
		doc, err := createDocument(ctx, c, *name, *units)
		if err != nil {
			return a.fail(fmt.Errorf("document.create: %w", err))
		}
		docID = doc.GetDocumentId()
		set("document_id", docID)
		con.printf("created document %s (%q)", docID, doc.GetName())
	}

	if link, err := viewerURL(a.cfg.url, docID, sess, a.token()); err == nil {
		con.printf("viewer: %s", link)
	}

	raw, err := runBatch(ctx, c, con, params, finished, a.cfg.reconnect)
	c.flushEvents(ctx) // the progress the gateway sent before the result
	prog.finish()
	if err != nil {
		return a.fail(fmt.Errorf("cad.batch: %w", err))
	}
	var res enginev1.ExecuteBatchResponse
	if err := decodeResult(raw, &res); err != nil {
		return a.fail(fmt.Errorf("cad.batch %w", err))
	}
	if a.cfg.json {
		a.printJSON(raw)
	} else {
		fmt.Fprintf(a.stdout, "document %s\n", docID)
		printBatch(a.stdout, &res, steps)
	}
	if !res.GetOk() {
		return exitFailure
	}
	return exitOK
}

// runBatch sends cad.batch and returns its raw result. The params carry an
// operation id, so the call is sent again when the connection dropped, or
// the engine was unavailable, before the answer came: the engine runs it
// once and replays the recorded result. While the first run is still going
// (kind busy), it waits for operation.finished or retry_after_ms.
func runBatch(ctx context.Context, c *client, con *console, params map[string]json.RawMessage, finished <-chan struct{}, unavailableFor time.Duration) (json.RawMessage, error) {
	deadline := time.Now().Add(unavailableFor)
	waited := false
	for {
		var raw json.RawMessage
		err := c.call(ctx, gatewayv1.MethodCadBatch, params, &raw, true)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr) && (rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE) || rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED)):
			if time.Now().After(deadline) {
				return nil, err
			}
			con.printf("cadctl: %s; retrying", describeError(err))
			if err := sleep(ctx, retryAfter(rpcErr.Data, 500*time.Millisecond), nil); err != nil {
				return nil, err
			}
			continue
		case err != nil:
			return nil, err
		}
		var res enginev1.ExecuteBatchResponse
		if decodeResult(raw, &res) == nil && res.GetStatus() == enginev1.BatchStatus_BATCH_STATUS_REFUSED && res.GetError().GetKind() == enginev1.ErrorKind_ERROR_KIND_BUSY {
			if !waited {
				con.printf("cadctl: operation %s is still running; waiting for it", stringParam(params, "operation_id"))
				waited = true
			}
			d := 500 * time.Millisecond
			if ms := res.GetError().RetryAfterMs; ms != nil {
				d = time.Duration(*ms) * time.Millisecond
			}
			if err := sleep(ctx, d, finished); err != nil {
				return nil, err
			}
			continue
		}
		return raw, nil
	}
}

// retryAfter reads retry_after_ms from a JSON-RPC error's data.
func retryAfter(data json.RawMessage, def time.Duration) time.Duration {
	var d struct {
		RetryAfterMs int64 `json:"retry_after_ms"`
	}
	if json.Unmarshal(data, &d) == nil && d.RetryAfterMs > 0 {
		return time.Duration(d.RetryAfterMs) * time.Millisecond
	}
	return def
}

// sleep waits for d, or until wake fires, or ctx ends.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	t := time.NewTimer(min(d, 10*time.Second))
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// readBatchFile reads the params object of cad.batch from path (- for r).
// It keeps every member as it is, for the gateway to validate; steps are
// read leniently, for the labels of the progress bar and the summary.
func readBatchFile(path string, r io.Reader) (map[string]json.RawMessage, []stepSpec, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(r)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var params map[string]json.RawMessage
	if err := dec.Decode(&params); err != nil {
		return nil, nil, fmt.Errorf("%s: not a JSON object: %w", path, err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("%s: data after the JSON object", path)
	}
	if params == nil {
		return nil, nil, fmt.Errorf("%s: not a JSON object", path)
	}
	var steps []stepSpec
	json.Unmarshal(params["steps"], &steps)
	return params, steps, nil
}

func stringParam(params map[string]json.RawMessage, key string) string {
	var s string
	json.Unmarshal(params[key], &s)
	return s
}

func newOperationID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "cadctl-" + hex.EncodeToString(b)
}

func createDocument(ctx context.Context, c *client, name, units string) (*enginev1.DocumentInfo, error) {
	params := map[string]any{}
	if name != "" {
		params["name"] = name
	}
	if units != "" {
		params["units"] = units
	}
	var doc enginev1.DocumentInfo
	if err := c.call(ctx, gatewayv1.MethodDocumentCreate, params, &doc, false); err != nil {
		return nil, err
	}
	return &doc, nil
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// mrtrVersion is the first protocol revision whose clients answer
// server requests as multi-round-trip input requests (SEP-2322) instead of
// elicitation requests sent during the call.
const mrtrVersion = "2026-07-28"

// Keys of the _meta of cadbridge's tool results.
const (
	metaOperationID = "cadbridge/operation_id"
	metaRevision    = "cadbridge/revision"
	metaReplayed    = "cadbridge/replayed"
	metaError       = "cadbridge/error"
)

// engineAnnotations are every engine tool's annotations by name (a batch
// may hold tools the surface does not serve).
var engineAnnotations = func() map[string]*enginev1.ToolAnnotations {
	m := map[string]*enginev1.ToolAnnotations{}
	for _, t := range enginev1.Tools {
		m[t.Name] = t.Annotations
	}
	return m
}()

func annotationsOf(name string) *enginev1.ToolAnnotations { return engineAnnotations[name] }

// relayCall is one MCP tool call as the gateway's method it is relayed
// as: the method, its params (without session_id), and what the result
// needs to know.
type relayCall struct {
	method     string
	params     map[string]json.RawMessage
	encoded    json.RawMessage // params, encoded once
	arguments  json.RawMessage // the MCP arguments, as they came
	documentID string          // "" when the call names none
	// embed says that the client asked for exported files embedded in
	// the result (_meta "cadbridge/embed_resources"), not linked.
	embed bool
}

// encode is the call's params, with session_id when the call runs in a
// session.
func (rc *relayCall) encode(sessionID string) json.RawMessage {
	if sessionID == "" {
		return rc.encoded
	}
	p := make(map[string]json.RawMessage, len(rc.params)+1)
	for k, v := range rc.params {
		p[k] = v
	}
	p["session_id"], _ = json.Marshal(sessionID)
	data, _ := json.Marshal(p) // raw values that parsed as JSON
	return data
}

// digest is the digest of the call's arguments that a round state is
// bound to: only calls that may park need it.
func (rc *relayCall) digest() string { return argsDigest(canonical(rc.arguments)) }

// operationID is the call's operation id, if it names one.
func (rc *relayCall) operationID() string {
	var id string
	if raw, ok := rc.params["operation_id"]; ok {
		json.Unmarshal(raw, &id)
	}
	return id
}

// buildCall turns an MCP call of t into the gateway call it is: for an
// engine tool, tools.call with document_id and operation_id taken from
// the arguments and the rest as args; for cad_batch, cad.batch with the
// arguments as params. meta, the request's _meta keys the gateway knows
// (see [relayMeta]), goes along. A bad argument is a tool error.
func buildCall(t *tool, arguments json.RawMessage, meta json.RawMessage) (*relayCall, *enginev1.ToolError) {
	arguments = bytes.TrimSpace(arguments)
	if len(arguments) == 0 || string(arguments) == "null" {
		arguments = json.RawMessage("{}")
	}
	if !t.batch {
		if rc, ok := buildToolsCall(t, arguments, meta); ok {
			return rc, nil
		}
	}
	return buildCallMap(t, arguments, meta)
}

// buildCallMap is buildCall through a map of the arguments' members.
func buildCallMap(t *tool, arguments json.RawMessage, meta json.RawMessage) (*relayCall, *enginev1.ToolError) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(arguments, &args); err != nil {
		return nil, invalidArgs("", "the arguments must be a JSON object: "+err.Error())
	}
	rc := &relayCall{params: map[string]json.RawMessage{}, arguments: arguments}
	if raw, ok := args["document_id"]; ok {
		json.Unmarshal(raw, &rc.documentID)
	}
	if t.batch {
		rc.method = gatewayv1.MethodCadBatch
		for _, k := range []string{"session_id", "_meta"} {
			if _, ok := args[k]; ok {
				return nil, invalidArgs("/"+k, k+" is not an argument of cad_batch")
			}
		}
		rc.params = args
	} else {
		rc.method = gatewayv1.MethodToolsCall
		for _, k := range []string{"document_id", "operation_id"} {
			if raw, ok := args[k]; ok {
				rc.params[k] = raw
				delete(args, k)
			}
		}
		rest, _ := json.Marshal(args)
		rc.params["tool"], _ = json.Marshal(t.name)
		rc.params["args"] = rest
	}
	if meta != nil {
		rc.params["_meta"] = meta
	}
	rc.encoded, _ = json.Marshal(rc.params) // raw values that parsed as JSON
	return rc, nil
}

// buildToolsCall is buildCall for an engine tool, in one pass over the
// arguments: their members are copied, not decoded and encoded again, in
// the order and with the keys json.Marshal of buildCall's map would give
// them (the values keep their spelling, which means the same JSON). It
// reports false for what it does not read as plainly valid (not UTF-8,
// a key with escapes, a key twice at any depth, not an object), for
// buildCall to judge as before.
func buildToolsCall(t *tool, arguments, meta json.RawMessage) (*relayCall, bool) {
	if !utf8.Valid(arguments) {
		return nil, false
	}
	type member struct {
		key string
		raw []byte
	}
	var buf [8]member
	members := buf[:0]
	sc := &scanner{b: arguments}
	if !sc.openObject() {
		return nil, false
	}
	for first := true; ; first = false {
		key, end, ok := sc.member(first)
		if !ok {
			return nil, false
		}
		if end {
			break
		}
		for _, m := range members {
			if m.key == string(key) {
				return nil, false
			}
		}
		start := sc.i
		if !sc.value() {
			return nil, false
		}
		members = append(members, member{string(key), sc.b[start:sc.i]})
	}
	if !sc.end() {
		return nil, false
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	rc := &relayCall{method: gatewayv1.MethodToolsCall, params: make(map[string]json.RawMessage, 5), arguments: arguments}
	rest := make([]byte, 0, len(arguments)+2)
	rest = append(rest, '{')
	for _, m := range members {
		if m.key == "document_id" || m.key == "operation_id" {
			rc.params[m.key] = m.raw
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(append(append(append(rest, '"'), m.key...), `":`...), m.raw...)
	}
	rest = append(rest, '}')
	if raw, ok := rc.params["document_id"]; ok {
		if id, plain := plainString(raw); plain {
			rc.documentID = id
		} else {
			json.Unmarshal(raw, &rc.documentID)
		}
	}
	rc.params["tool"] = t.nameJSON
	rc.params["args"] = rest
	if meta != nil {
		rc.params["_meta"] = meta
	}
	// The keys in json.Marshal's order: _meta, args, document_id,
	// operation_id, tool.
	b := make([]byte, 0, len(rest)+len(meta)+len(t.nameJSON)+96)
	b = append(b, '{')
	for _, k := range [...]string{"_meta", "args", "document_id", "operation_id", "tool"} {
		if v, ok := rc.params[k]; ok {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(append(append(append(b, '"'), k...), `":`...), v...)
		}
	}
	rc.encoded = append(b, '}')
	return rc, true
}

// relayMeta is the part of an MCP request's _meta that the gateway's
// RequestMeta declares; nil when there is none.
func relayMeta(meta mcpsdk.Meta) json.RawMessage {
	out := map[string]string{}
	for _, k := range []string{"operation_id", "traceparent", "tracestate"} {
		if v, ok := meta[k].(string); ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	data, _ := json.Marshal(out)
	return data
}

// canonical re-encodes JSON with sorted keys, so that a retry that
// encodes the same arguments differently has the same digest.
func canonical(data []byte) []byte {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return data
	}
	out, _ := json.Marshal(v)
	return out
}

// toolHandler answers the MCP calls of t.
func (s *Server) toolHandler(t *tool) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		principal := principalOf(req.Extra)
		rc, bad := buildCall(t, req.Params.Arguments, relayMeta(req.Params.Meta))
		if bad != nil {
			return failure(t.name, bad, nil), nil
		}
		rc.embed = embedAsked(req.Params.Meta)
		if req.Params.RequestState != "" {
			return s.resume(ctx, req, t, rc, principal)
		}
		caps := req.ClientCapabilities()
		canElicit := caps != nil && caps.Elicitation != nil
		if s.runsPlain(t, rc, canElicit, req.Params.GetProgressToken() != nil) {
			return s.callPlain(ctx, req, t, rc, principal)
		}
		x, err := s.startExchange(ctx, req, t, rc, principal, canElicit)
		if err != nil {
			return s.result(t, rc, nil, err)
		}
		return x.drive(ctx, req)
	}
}

// callPlain makes a call that needs no session on the principal's shared
// relay; a step that needs the client then fails unsupported.
func (s *Server) callPlain(ctx context.Context, req *mcpsdk.CallToolRequest, t *tool, rc *relayCall, principal string) (*mcpsdk.CallToolResult, error) {
	r, err := s.plainRelay(principal)
	if err != nil {
		return nil, err
	}
	cctx, stop := cancelling(ctx)
	defer stop()
	raw, err := r.Call(cctx, rc.method, rc.encode(""))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return s.result(t, rc, raw, err)
}

// cancelling returns a context that ends when ctx does, and then with
// cause jsonrpc.ErrCancelledByPeer, so that the relay cancels the call's
// work in the engine as $/cancelRequest does: an MCP request that ends
// before its result (cancelled, or its client gone) cannot be resumed,
// so its work is cancelled; a retry with the same operation_id tells
// exactly what it did.
func cancelling(ctx context.Context) (context.Context, func()) {
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { cancel(jsonrpc.ErrCancelledByPeer) })
	return cctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// result turns the gateway's answer to a call into the MCP result: the
// tool's result as structuredContent (what its output schema declares;
// cad_batch's is the whole batch result), a one-line summary as text
// (see [summary]), the operation id and revision in _meta, a picture as
// image content and another file as a link (see [media]), and a link to
// the drawing when the call changed it. A tool failure, and any error the gateway answered, is a result
// with isError and the typed error (kind, path, operation id); only a
// cancelled call is an error.
func (s *Server) result(t *tool, rc *relayCall, raw json.RawMessage, callErr error) (*mcpsdk.CallToolResult, error) {
	if callErr != nil {
		var rpcErr *jsonrpc.Error
		if !errors.As(callErr, &rpcErr) {
			rpcErr = jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), callErr.Error())
		}
		if rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED) {
			return nil, context.Canceled
		}
		return failure(t.name, toolErrorOf(rpcErr, rc), nil), nil
	}
	if t.batch {
		return s.batchResult(rc, raw)
	}
	var resp enginev1.CallToolResponse
	if err := contract.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decode tools.call result: %w", err)
	}
	meta := mcpsdk.Meta{metaOperationID: resp.GetOperationId(), metaRevision: resp.GetRevision(), metaReplayed: resp.GetReplayed()}
	if !resp.GetOk() {
		return failure(t.name, resp.GetError(), meta), nil
	}
	result := json.RawMessage(resp.GetResultJson())
	if len(result) == 0 {
		result = json.RawMessage("{}")
	}
	text := summary(t.name, result, resp.GetRevision(), !t.annotations.GetReadOnly(), resp.GetReplayed())
	structured, files := media(t.name, rc, resp.GetRevision(), result)
	res := &mcpsdk.CallToolResult{Meta: meta, StructuredContent: structured, Content: append([]mcpsdk.Content{&mcpsdk.TextContent{Text: text}}, files...)}
	if !t.annotations.GetReadOnly() {
		doc := rc.documentID
		if doc == "" {
			doc = createdDocument(result)
		}
		if doc != "" {
			res.Content = append(res.Content, drawingLink(doc))
		}
	}
	return res, nil
}

// batchResult is cad_batch's result: the batch result as structuredContent
// (it matches the output schema whatever the status; export and view
// steps carry a link to their file instead of its bytes, see
// [batchMedia]), a one-line summary, isError unless the batch completed
// or was validated.
func (s *Server) batchResult(rc *relayCall, raw json.RawMessage) (*mcpsdk.CallToolResult, error) {
	var resp enginev1.ExecuteBatchResponse
	if err := contract.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decode cad.batch result: %w", err)
	}
	status := contract.EnumName(resp.GetStatus().Descriptor().Values().ByNumber(resp.GetStatus().Number()))
	c := resp.GetCounts()
	text := fmt.Sprintf("cad_batch %s: %d of %d steps ok", status, c.GetSucceeded(), c.GetExecuted()+c.GetSkipped())
	if resp.GetStatus() == enginev1.BatchStatus_BATCH_STATUS_VALIDATED {
		text = fmt.Sprintf("cad_batch validated: %d steps, none run", c.GetExecuted()+c.GetSkipped())
	} else if n := c.GetFailed(); n > 0 {
		text += fmt.Sprintf(", %d failed", n)
	}
	if n := c.GetSkipped(); n > 0 {
		text += fmt.Sprintf(", %d skipped", n)
	}
	text += fmt.Sprintf(", revision %d", resp.GetRevision().GetAfter())
	if resp.GetReplayed() {
		text += " (replayed)"
	}
	if e := firstError(&resp); e != nil {
		text += "; " + errorLine(e)
	}
	structured, files := batchMedia(rc, raw, resp.GetStatus(), resp.GetRevision().GetAfter())
	res := &mcpsdk.CallToolResult{
		Meta:              mcpsdk.Meta{metaOperationID: resp.GetOperationId(), metaRevision: resp.GetRevision().GetAfter(), metaReplayed: resp.GetReplayed()},
		StructuredContent: structured,
		Content:           append([]mcpsdk.Content{&mcpsdk.TextContent{Text: text}}, files...),
		IsError: resp.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_COMPLETED &&
			resp.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_VALIDATED,
	}
	if e := firstError(&resp); e != nil {
		res.Meta[metaError] = json.RawMessage(mustMarshal(e))
	}
	if c.GetExecuted() > 0 && rc.documentID != "" {
		res.Content = append(res.Content, drawingLink(rc.documentID))
	}
	return res, nil
}

// firstError is the error a batch result leads with: the refusal's, else
// the first failed step's.
func firstError(resp *enginev1.ExecuteBatchResponse) *enginev1.ToolError {
	if e := resp.GetError(); e != nil {
		return e
	}
	for _, r := range resp.GetResults() {
		if e := r.GetError(); e != nil {
			return e
		}
	}
	return nil
}

// failure is a tool failure of tool: isError, the error's line as the
// text, the typed error in _meta, and no structuredContent (which would
// have to match the tool's output schema, and clients check it even on
// errors).
func failure(tool string, e *enginev1.ToolError, meta mcpsdk.Meta) *mcpsdk.CallToolResult {
	if meta == nil {
		meta = mcpsdk.Meta{}
	}
	if e.OperationId != nil {
		meta[metaOperationID] = e.GetOperationId()
	}
	meta[metaError] = json.RawMessage(mustMarshal(e))
	return &mcpsdk.CallToolResult{
		Meta:    meta,
		IsError: true,
		Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: tool + " failed: " + errorLine(e)}},
	}
}

// errorLine is an error on one line: its kind, message and path.
func errorLine(e *enginev1.ToolError) string {
	line := kindName(e.GetKind()) + ": " + strings.Join(strings.Fields(e.GetMessage()), " ")
	if e.Path != nil {
		line += " (at " + e.GetPath() + ")"
	}
	return line
}

func kindName(k enginev1.ErrorKind) string {
	return contract.EnumName(k.Descriptor().Values().ByNumber(k.Number()))
}

func mustMarshal(e *enginev1.ToolError) []byte {
	data, err := contract.Marshal(e)
	if err != nil {
		return []byte(`{}`)
	}
	return data
}

func invalidArgs(path, msg string) *enginev1.ToolError {
	e := &enginev1.ToolError{Kind: enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, Message: msg}
	if path != "" {
		e.Path = &path
	}
	return e
}

// toolErrorOf is the typed error of a call the gateway answered with a
// JSON-RPC error: the kind that error means, and its path (made relative
// to the MCP arguments, where a tool's args are at the top level) or
// operation id.
func toolErrorOf(e *jsonrpc.Error, rc *relayCall) *enginev1.ToolError {
	te := &enginev1.ToolError{Kind: enginev1.ErrorKind_ERROR_KIND_FAILED, Message: e.Message}
	switch gatewayv1.ErrorCode(e.Code) {
	case gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_SESSION_REQUIRED:
		te.Kind = enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS
		var data gatewayv1.InvalidParamsData
		if len(e.Data) > 0 && contract.UnmarshalPartial(e.Data, &data) == nil && data.GetPath() != "" {
			p := data.GetPath()
			if rc != nil && rc.method == gatewayv1.MethodToolsCall {
				if rest, ok := strings.CutPrefix(p, "/args"); ok {
					p = rest
				}
			}
			te.Path = &p
			te.Reason = data.GetReason().Enum()
		} else if gatewayv1.ErrorCode(e.Code) == gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND {
			te.Path = new("/document_id")
		}
	case gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN:
		te.Kind = enginev1.ErrorKind_ERROR_KIND_REFUSED
	case gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED:
		te.Kind = enginev1.ErrorKind_ERROR_KIND_BUSY
		var data gatewayv1.OverloadedData
		if len(e.Data) > 0 && contract.UnmarshalPartial(e.Data, &data) == nil {
			te.RetryAfterMs = new(data.GetRetryAfterMs())
		}
	case gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE:
		te.Kind = enginev1.ErrorKind_ERROR_KIND_REQUIRES_RECONCILE
	}
	if rc != nil {
		if id := rc.operationID(); id != "" {
			te.OperationId = &id
		}
	}
	return te
}

// createdDocument is the document a document_create or document_import
// result names.
func createdDocument(result json.RawMessage) string {
	var r struct {
		DocumentID string `json:"document_id"`
		Document   struct {
			DocumentID string `json:"document_id"`
		} `json:"document"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	if r.Document.DocumentID != "" {
		return r.Document.DocumentID
	}
	return r.DocumentID
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// Resource URIs: a document's info, its drawing (SVG, DXF, PNG, PDF,
// with export options in the query) and views of it (view_render's
// arguments in the query). A query's revision pins the file to that
// revision: reading it once the document has moved on fails, rather than
// answer with a file of another revision.
const (
	documentPrefix = "cad://documents/"
	drawingPart    = "/drawing."
	viewSuffix     = "/view.png"
)

// drawingFormats are the formats of a drawing resource.
var drawingFormats = []string{"svg", "dxf", "png", "pdf"}

// exportOptionKeys are the query keys of a drawing resource besides
// revision: document_export's options.
var exportOptionKeys = []string{"paper", "scale", "dpi", "dxf_version"}

// viewKeys are the query keys of a view resource besides revision:
// view_render's arguments (layers and highlight comma-separated).
var viewKeys = []string{"layout", "x1", "y1", "x2", "y2", "width", "height", "layers", "highlight"}

// DocumentURI is the resource of a document's info.
func DocumentURI(id string) string { return documentPrefix + id }

// DrawingURI is the resource of a document's drawing in format ("svg",
// "dxf", "png" or "pdf"), as it is now.
func DrawingURI(id, format string) string { return documentPrefix + id + drawingPart + format }

// DrawingURIAt is the resource of a document's drawing in format at
// revision rev, exported with the options in query (keys of
// exportOptionKeys).
func DrawingURIAt(id, format string, rev int64, query map[string]string) string {
	return withQuery(DrawingURI(id, format), rev, query)
}

// ViewURIAt is the resource of a view of a document at revision rev, the
// view given by query (keys of viewKeys).
func ViewURIAt(id string, rev int64, query map[string]string) string {
	return withQuery(documentPrefix+id+viewSuffix, rev, query)
}

func withQuery(uri string, rev int64, query map[string]string) string {
	v := url.Values{"revision": {strconv.FormatInt(rev, 10)}}
	for k, x := range query {
		v.Set(k, x)
	}
	return uri + "?" + v.Encode()
}

// resourceMIME is the media type a drawing resource is served as.
func resourceMIME(format, media string) string {
	if format == "dxf" {
		return "application/dxf"
	}
	return media
}

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "document", Title: "CAD document", URITemplate: documentPrefix + "{id}", MIMEType: "application/json",
		Description: "A document's info: revision, content hash, entity count, layers (document.get).",
	}, s.readResource)
	exportQuery := "{?revision," + strings.Join(exportOptionKeys, ",") + "}"
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.svg", Title: "Drawing (SVG)", URITemplate: documentPrefix + "{id}" + drawingPart + "svg" + exportQuery, MIMEType: "image/svg+xml",
		Description: "The document drawn as SVG, for people and for agents that look at pictures.",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.dxf", Title: "Drawing (DXF)", URITemplate: documentPrefix + "{id}" + drawingPart + "dxf" + exportQuery, MIMEType: "application/dxf",
		Description: "The document as a DXF file (AutoCAD 2018) for CAD programs.",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.png", Title: "Drawing (PNG)", URITemplate: documentPrefix + "{id}" + drawingPart + "png" + exportQuery, MIMEType: "image/png",
		Description: "The document plotted as a PNG (document_export's).",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.pdf", Title: "Drawing (PDF)", URITemplate: documentPrefix + "{id}" + drawingPart + "pdf" + exportQuery, MIMEType: "application/pdf",
		Description: "The document plotted as a PDF, at a scale on a paper when the query says.",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "view.png", Title: "View (PNG)", URITemplate: documentPrefix + "{id}" + viewSuffix + "{?revision," + strings.Join(viewKeys, ",") + "}", MIMEType: "image/png",
		Description: "A view of the document as view_render draws it, its arguments in the query.",
	}, s.readResource)
}

// resourceRef is a parsed resource URI.
type resourceRef struct {
	doc string
	// kind is "" for the document's info, a format for its drawing,
	// "view" for a view.
	kind  string
	query url.Values
}

// parseURI parses a resource URI.
func parseURI(uri string) (resourceRef, bool) {
	rest, ok := strings.CutPrefix(uri, documentPrefix)
	if !ok {
		return resourceRef{}, false
	}
	var ref resourceRef
	if path, raw, has := strings.Cut(rest, "?"); has {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return resourceRef{}, false
		}
		rest, ref.query = path, q
	}
	ref.doc = rest
	if doc, ok := strings.CutSuffix(rest, viewSuffix); ok {
		ref.doc, ref.kind = doc, "view"
	} else if doc, format, ok := strings.Cut(rest, drawingPart); ok && slices.Contains(drawingFormats, format) {
		ref.doc, ref.kind = doc, format
	}
	if ref.doc == "" || strings.Contains(ref.doc, "/") || ref.kind == "" && ref.query != nil {
		return resourceRef{}, false
	}
	return ref, true
}

// drawingLink is the resource link a call that changed a document's
// drawing returns.
func drawingLink(doc string) *mcpsdk.ResourceLink {
	return &mcpsdk.ResourceLink{URI: DrawingURI(doc, "svg"), Name: "drawing.svg", Title: "The drawing of " + doc, MIMEType: "image/svg+xml"}
}

// readResource reads a document's info (document.get), drawing
// (document.export) or view (view_render) as the caller. A URI with a
// revision is read only while the document is at that revision.
func (s *Server) readResource(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
	uri := req.Params.URI
	ref, ok := parseURI(uri)
	if !ok {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	r, err := s.plainRelay(principalOf(req.Extra))
	if err != nil {
		return nil, err
	}
	cctx, stop := cancelling(ctx)
	defer stop()
	call := func(method string, params any) (json.RawMessage, error) {
		data, _ := json.Marshal(params)
		raw, err := r.Call(cctx, method, data)
		if err != nil {
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) && (rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND) || rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS)) {
				return nil, mcpsdk.ResourceNotFoundError(uri)
			}
			return nil, err
		}
		return raw, nil
	}
	if ref.kind == "" || ref.query.Has("revision") {
		raw, err := call(gatewayv1.MethodDocumentGet, map[string]string{"document_id": ref.doc})
		if err != nil {
			return nil, err
		}
		if ref.kind == "" {
			return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(raw)}}}, nil
		}
		var info enginev1.DocumentInfo
		if err := contract.UnmarshalPartial(raw, &info); err != nil {
			return nil, fmt.Errorf("decode document.get result: %w", err)
		}
		if want := ref.query.Get("revision"); want != strconv.FormatInt(info.GetRevision(), 10) {
			return nil, &sdkjsonrpc.Error{Code: codeResourceNotFound, Message: fmt.Sprintf("%s is of revision %s; the document is at revision %d now (drop the revision from the URI to read the current drawing)", uri, want, info.GetRevision())}
		}
	}
	if ref.kind == "view" {
		return s.readView(uri, ref, call)
	}
	params := map[string]any{"document_id": ref.doc, "format": ref.kind}
	opts := map[string]any{}
	for _, k := range exportOptionKeys {
		v := ref.query.Get(k)
		if v == "" {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && k != "dxf_version" && k != "paper" {
			opts[k] = f
		} else {
			opts[k] = v
		}
	}
	if len(opts) > 0 {
		params["options"] = opts
	}
	raw, err := call(gatewayv1.MethodDocumentExport, params)
	if err != nil {
		return nil, err
	}
	var export enginev1.ExportDocumentResponse
	if err := contract.UnmarshalPartial(raw, &export); err != nil {
		return nil, fmt.Errorf("decode document.export result: %w", err)
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: resourceMIME(ref.kind, export.GetMediaType()), Text: export.GetContent(), Blob: export.GetData()}}}, nil
}

// codeResourceNotFound is MCP's error code for a resource that is not
// there.
const codeResourceNotFound = -32002

// readView renders a view resource with view_render.
func (s *Server) readView(uri string, ref resourceRef, call func(string, any) (json.RawMessage, error)) (*mcpsdk.ReadResourceResult, error) {
	args := map[string]any{}
	q := ref.query
	if v := q.Get("layout"); v != "" {
		args["layout"] = v
	}
	num := func(k string) (float64, bool) {
		f, err := strconv.ParseFloat(q.Get(k), 64)
		return f, err == nil
	}
	x1, ok1 := num("x1")
	y1, ok2 := num("y1")
	x2, ok3 := num("x2")
	y2, ok4 := num("y2")
	if ok1 && ok2 && ok3 && ok4 {
		args["window"] = map[string]float64{"x1": x1, "y1": y1, "x2": x2, "y2": y2}
	}
	for _, k := range []string{"width", "height"} {
		if n, err := strconv.Atoi(q.Get(k)); err == nil {
			args[k] = n
		}
	}
	for _, k := range []string{"layers", "highlight"} {
		if v := q.Get(k); v != "" {
			args[k] = strings.Split(v, ",")
		}
	}
	raw, err := call(gatewayv1.MethodToolsCall, map[string]any{"document_id": ref.doc, "tool": enginev1.ToolViewRender, "args": args})
	if err != nil {
		return nil, err
	}
	var resp enginev1.CallToolResponse
	if err := contract.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decode tools.call result: %w", err)
	}
	if !resp.GetOk() {
		return nil, &sdkjsonrpc.Error{Code: codeResourceNotFound, Message: uri + ": " + errorLine(resp.GetError())}
	}
	var view enginev1.ViewRenderResult
	if err := contract.UnmarshalPartial(resp.GetResultJson(), &view); err != nil {
		return nil, fmt.Errorf("decode view_render result: %w", err)
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: view.GetMediaType(), Blob: view.GetData()}}}, nil
}

// subscribe takes a resources/subscribe (or a subscriptions/listen's
// resource): the document must exist for the caller; its watcher then has
// the engine tell it of the document's changes. The SDK keeps who
// subscribed to what and sends the notifications.
func (s *Server) subscribe(ctx context.Context, req *mcpsdk.SubscribeRequest) error {
	ref, ok := parseURI(req.Params.URI)
	if !ok {
		return mcpsdk.ResourceNotFoundError(req.Params.URI)
	}
	doc := ref.doc
	principal := principalOf(req.Extra)
	r, err := s.plainRelay(principal)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(map[string]string{"document_id": doc})
	if _, err := r.Call(ctx, gatewayv1.MethodDocumentGet, data); err != nil {
		return mcpsdk.ResourceNotFoundError(req.Params.URI)
	}
	w, err := s.watcher(principal)
	if err != nil {
		return err
	}
	return w.watch(ctx, doc)
}

// watcher is one principal's engine session that subscribes to the
// documents the principal's MCP clients subscribed to; its loop turns each
// document.changed into resource update notifications.
type watcher struct {
	s       *Server
	relay   *gateway.Relay
	events  chan *enginev1.Event
	stopped chan struct{}

	mu        sync.Mutex // guards sessionID and docs
	sessionID string
	docs      []string
}

func (s *Server) watcher(principal string) (*watcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if w := s.watchers[principal]; w != nil {
		return w, nil
	}
	w := &watcher{s: s, events: make(chan *enginev1.Event, 256), stopped: make(chan struct{})}
	w.relay = s.gw.NewRelay(principal, nil, gateway.RelayHooks{Event: w.onEvent})
	s.watchers[principal] = w
	s.wg.Add(1)
	go w.loop()
	return w, nil
}

func (w *watcher) onEvent(ev *enginev1.Event) {
	if ev.GetType() != gatewayv1.EventDocumentChanged {
		return
	}
	select {
	case w.events <- ev:
	default:
		w.s.log.Warn("document.changed dropped: subscribers read too slowly")
	}
}

// watch subscribes the watcher's session, made on first use, to doc.
func (w *watcher) watch(ctx context.Context, doc string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Contains(w.docs, doc) {
		return nil
	}
	if w.sessionID == "" {
		raw, err := w.relay.Call(ctx, gatewayv1.MethodSessionCreate, json.RawMessage(`{"client":{"name":"cadbridge mcp resource subscriptions"}}`))
		if err != nil {
			return err
		}
		var created enginev1.CreateSessionResponse
		if err := contract.UnmarshalPartial(raw, &created); err != nil {
			return err
		}
		w.sessionID = created.GetSessionId()
	}
	docs := append(slices.Clone(w.docs), doc)
	data, _ := json.Marshal(map[string]any{"session_id": w.sessionID, "document_ids": docs})
	if _, err := w.relay.Call(ctx, gatewayv1.MethodSessionSubscribe, data); err != nil {
		return err
	}
	w.docs = docs
	return nil
}

// loop notifies the subscribers of each changed document's resources.
func (w *watcher) loop() {
	defer w.s.wg.Done()
	for {
		select {
		case <-w.stopped:
			return
		case ev := <-w.events:
			var p enginev1.DocumentChangedPayload
			if contract.UnmarshalPartial(ev.GetPayloadJson(), &p) != nil {
				continue
			}
			ctx := context.Background()
			for _, uri := range []string{DocumentURI(p.GetDocumentId()), DrawingURI(p.GetDocumentId(), "svg"), DrawingURI(p.GetDocumentId(), "dxf"), DrawingURI(p.GetDocumentId(), "png"), DrawingURI(p.GetDocumentId(), "pdf")} {
				w.s.sdk.ResourceUpdated(ctx, &mcpsdk.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
	}
}

// stop ends the loop and closes the watcher's session and relay.
func (w *watcher) stop() {
	close(w.stopped)
	w.mu.Lock()
	id := w.sessionID
	w.mu.Unlock()
	if id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		data, _ := json.Marshal(map[string]string{"session_id": id})
		w.relay.Call(ctx, gatewayv1.MethodSessionClose, data)
	}
	w.relay.Close()
}

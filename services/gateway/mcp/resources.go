package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// Resource URIs: a document's info and its drawing, as SVG and DXF.
const (
	documentPrefix = "cad://documents/"
	svgSuffix      = "/drawing.svg"
	dxfSuffix      = "/drawing.dxf"
)

// DocumentURI is the resource of a document's info; DrawingURI that of its
// drawing in format ("svg" or "dxf").
func DocumentURI(id string) string { return documentPrefix + id }

// DrawingURI is the resource of a document's drawing in format ("svg" or
// "dxf").
func DrawingURI(id, format string) string { return documentPrefix + id + "/drawing." + format }

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "document", Title: "CAD document", URITemplate: documentPrefix + "{id}", MIMEType: "application/json",
		Description: "A document's info: revision, content hash, entity count, layers (document.get).",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.svg", Title: "Drawing (SVG)", URITemplate: documentPrefix + "{id}" + svgSuffix, MIMEType: "image/svg+xml",
		Description: "The document drawn as SVG, for people and for agents that look at pictures.",
	}, s.readResource)
	s.sdk.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		Name: "drawing.dxf", Title: "Drawing (DXF)", URITemplate: documentPrefix + "{id}" + dxfSuffix, MIMEType: "application/dxf",
		Description: "The document as a DXF file (AutoCAD 2018) for CAD programs.",
	}, s.readResource)
}

// parseURI splits a resource URI into its document and format ("" for the
// document's info).
func parseURI(uri string) (doc, format string, ok bool) {
	rest, ok := strings.CutPrefix(uri, documentPrefix)
	if !ok {
		return "", "", false
	}
	switch {
	case strings.HasSuffix(rest, svgSuffix):
		doc, format = strings.TrimSuffix(rest, svgSuffix), "svg"
	case strings.HasSuffix(rest, dxfSuffix):
		doc, format = strings.TrimSuffix(rest, dxfSuffix), "dxf"
	default:
		doc = rest
	}
	if doc == "" || strings.Contains(doc, "/") {
		return "", "", false
	}
	return doc, format, true
}

// drawingLink is the resource link a call that changed a document's
// drawing returns.
func drawingLink(doc string) *mcpsdk.ResourceLink {
	return &mcpsdk.ResourceLink{URI: DrawingURI(doc, "svg"), Name: "drawing.svg", Title: "The drawing of " + doc, MIMEType: "image/svg+xml"}
}

// readResource reads a document's info (document.get) or drawing
// (document.export) as the caller.
func (s *Server) readResource(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
	uri := req.Params.URI
	doc, format, ok := parseURI(uri)
	if !ok {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	r, err := s.plainRelay(principalOf(req.Extra))
	if err != nil {
		return nil, err
	}
	method, params := gatewayv1.MethodDocumentGet, map[string]string{"document_id": doc}
	if format != "" {
		method, params["format"] = gatewayv1.MethodDocumentExport, format
	}
	data, _ := json.Marshal(params)
	cctx, stop := cancelling(ctx)
	defer stop()
	raw, err := r.Call(cctx, method, data)
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && (rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND) || rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS)) {
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	if format == "" {
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(raw)}}}, nil
	}
	var export enginev1.ExportDocumentResponse
	if err := contract.UnmarshalPartial(raw, &export); err != nil {
		return nil, fmt.Errorf("decode document.export result: %w", err)
	}
	mime := export.GetMediaType()
	if format == "dxf" {
		mime = "application/dxf"
	}
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: mime, Text: export.GetContent()}}}, nil
}

// subscribe takes a resources/subscribe (or a subscriptions/listen's
// resource): the document must exist for the caller; its watcher then has
// the engine tell it of the document's changes. The SDK keeps who
// subscribed to what and sends the notifications.
func (s *Server) subscribe(ctx context.Context, req *mcpsdk.SubscribeRequest) error {
	doc, _, ok := parseURI(req.Params.URI)
	if !ok {
		return mcpsdk.ResourceNotFoundError(req.Params.URI)
	}
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
			for _, uri := range []string{DocumentURI(p.GetDocumentId()), DrawingURI(p.GetDocumentId(), "svg"), DrawingURI(p.GetDocumentId(), "dxf")} {
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

package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// clientConn is one client connection (a WebSocket, stdio, or one HTTP
// request): it serves the client's JSON-RPC calls by relaying them over
// its own Session stream to the engine, opened on first use.
type clientConn struct {
	gw        *Gateway
	principal string
	// parent is the trace context of the HTTP request that opened the
	// connection (its traceparent header), read once: the parent of the
	// calls that carry none of their own.
	parent trace.SpanContext

	// rpc is the JSON-RPC connection, for server requests and events; nil
	// on HTTP POST, where none are possible.
	rpc atomic.Pointer[jsonrpc.Conn]
	// hooks, for a [Relay], receive what the engine sends the client
	// instead of rpc; nil otherwise.
	hooks *RelayHooks

	inFlight atomic.Int64 // calls running

	mu     sync.Mutex // guards closed, stream, home, others, relays and replayed
	closed bool       // no stream is opened any more
	stream *engineStream
	// home is the address of the engine of stream, "" for the gateway's
	// first; others are the streams to other engines, by address (see
	// routeCall).
	home   string
	others map[string]*engineStream
	// relays cancels the relay of each server request in flight, by id.
	relays map[string]context.CancelFunc
	// replayed names the method of each open request a resume returned, so
	// that an answer to it on this connection reaches the engine; nil
	// until one did.
	replayed map[string]string
	wg       sync.WaitGroup // server-request relays and the early stream open
}

func (gw *Gateway) newClientConn(principal string, headers http.Header) *clientConn {
	return &clientConn{gw: gw, principal: principal, parent: parentOf(headers), relays: map[string]context.CancelFunc{}}
}

// overloadRetryMs is the retry hint of a 4029 answer.
const overloadRetryMs = 100

// Handle implements jsonrpc.Handler: one traced JSON-RPC call.
func (c *clientConn) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if n := c.inFlight.Add(1); n > int64(c.gw.cfg.MaxInFlight) && req.IsCall() {
		c.inFlight.Add(-1)
		return nil, overloaded("overloaded: too many calls in flight on this connection", overloadRetryMs)
	}
	if c.gw.memory.over() && req.IsCall() {
		c.inFlight.Add(-1)
		return nil, overloaded("overloaded: the gateway holds too much for its clients", overloadRetryMs)
	}
	defer c.inFlight.Add(-1)
	ctx, span := c.gw.obs.startCall(ctx, c.parent, req)
	start := time.Now()
	result, err := c.handle(ctx, req)
	c.gw.obs.endCall(ctx, span, req.Method, start, err)
	c.gw.log.DebugContext(ctx, "call", "method", req.Method, "principal", c.principal, "duration", time.Since(start), "error", err)
	return result, err
}

func (c *clientConn) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	r := c.gw.routes.byName[req.Method]
	if r == nil {
		return nil, methodNotFound(req.Method)
	}
	params, meta, err := c.gw.routes.decode(r, req.Params)
	if err != nil {
		return nil, err
	}
	return r.handle(c, ctx, params, meta)
}

// relay sends params as a SessionCall and returns the engine's response
// as its wire JSON, which the engine encodes (SessionCall.wire_json): the
// gateway passes it on without decoding it. The wire JSON of a large
// answer is in the codec's buffer: release gives it back, once nothing
// uses the bytes any more.
func (c *clientConn) relay(ctx context.Context, r *route, params proto.Message) (_ json.RawMessage, release func(), _ error) {
	result, release, err := c.sendCall(ctx, r.relay, params, true)
	if err != nil {
		return nil, nil, err
	}
	wire, ok := result.GetResponse().(*enginev1.SessionCallResult_WireJson)
	if !ok {
		release()
		return nil, nil, fmt.Errorf("engine answered %s without its wire JSON", r.info.Name)
	}
	c.rememberOpenRequests(result.GetOpenRequests())
	if c.gw.check != nil {
		if err := c.gw.check.result(r.info.Name, wire.WireJson); err != nil {
			release()
			c.gw.log.ErrorContext(ctx, "contract violation", "method", r.info.Name, "error", err)
			return nil, nil, err
		}
	}
	return wire.WireJson, release, nil
}

// callEngine sends one call on the connection's stream and returns the
// message of the result's response field.
func (c *clientConn) callEngine(ctx context.Context, field protoreflect.FieldDescriptor, params proto.Message) (proto.Message, error) {
	result, release, err := c.sendCall(ctx, field, params, false)
	if err != nil {
		return nil, err
	}
	release() // no wire JSON asked for: nothing in the codec's buffer
	set := result.ProtoReflect().WhichOneof(result.ProtoReflect().Descriptor().Oneofs().ByName("response"))
	if set == nil || set.Message() == nil {
		return nil, fmt.Errorf("engine sent an empty result")
	}
	return result.ProtoReflect().Get(set).Message().Interface(), nil
}

// sendCall sends params, the request of SessionCall field, on the
// connection's stream and returns the result, asking for the response's
// wire JSON if wireJSON, and the release of the wire JSON's buffer (see
// engineStream.call); a result that is an error is returned as the
// error.
func (c *clientConn) sendCall(ctx context.Context, field protoreflect.FieldDescriptor, params proto.Message, wireJSON bool) (*enginev1.SessionCallResult, func(), error) {
	ctx, span, carrier := c.gw.obs.startFrame(ctx, string(field.Name()))
	defer span.End()
	call := &enginev1.SessionCall{TraceContext: carrier, WireJson: wireJSON}
	call.ProtoReflect().Set(field, protoreflect.ValueOfMessage(params.ProtoReflect()))
	result, release, err := c.routeCall(ctx, params, call)
	if err != nil {
		span.SetStatus(otelcodes.Error, err.Error())
		return nil, nil, err
	}
	if e := result.GetError(); e != nil {
		release()
		return nil, nil, status.FromProto(e).Err()
	}
	return result, release, nil
}

func (c *clientConn) engineStream(ctx context.Context) (*engineStream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errConnClosed
	}
	if c.stream != nil {
		select {
		case <-c.stream.done:
			c.stream = nil // broken: the client resumes its session on a new one
		default:
			return c.stream, nil
		}
	}
	client, err := c.homeClientLocked()
	if err != nil {
		return nil, err
	}
	s, err := openEngineStream(context.WithoutCancel(ctx), client, c.principal, c.gw.id, c.onEngineFrame)
	if err != nil {
		return nil, err
	}
	c.stream = s
	return s, nil
}

// errConnClosed is what a stream asked for after the connection closed
// gets.
var errConnClosed = errors.New("the connection is closed")

// openStreamEarly opens the connection's home stream in the background,
// so that the first call does not wait for it: most first calls need it,
// and a session.resume on a new connection, the one a reconnecting client
// waits for, needs it most. If it fails, the first call tries again and
// reports what it meets.
func (c *clientConn) openStreamEarly(ctx context.Context) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if _, err := c.engineStream(ctx); err != nil {
			c.gw.log.Debug("open the session stream early", "error", err)
		}
	}()
}

// onEngineFrame forwards the engine's server requests, cancels and events
// to the client.
func (c *clientConn) onEngineFrame(resp *enginev1.SessionResponse) {
	if c.hooks != nil {
		c.deliverHooked(resp)
		return
	}
	if c.rpc.Load() == nil {
		return
	}
	ctx := context.Background()
	switch f := resp.GetFrame().(type) {
	case *enginev1.SessionResponse_Event:
		c.notify(ctx, gatewayv1.MethodEvent, f.Event)
	case *enginev1.SessionResponse_ServerRequest:
		id := f.ServerRequest.GetId()
		rctx, cancel := context.WithCancel(ctx)
		c.mu.Lock()
		c.relays[id] = cancel
		c.mu.Unlock()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer c.endRelay(id)
			c.relayServerRequest(rctx, f.ServerRequest)
		}()
	case *enginev1.SessionResponse_ServerRequestCancel:
		c.endRelay(f.ServerRequestCancel.GetId())
		c.notify(ctx, gatewayv1.MethodRequestCancel, f.ServerRequestCancel)
	}
}

// endRelay stops relaying a server request (answered or withdrawn).
func (c *clientConn) endRelay(id string) {
	c.mu.Lock()
	cancel := c.relays[id]
	delete(c.relays, id)
	delete(c.replayed, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// rememberOpenRequests records the open requests a resume or events.since
// result lists, so that the client may answer them on this connection.
func (c *clientConn) rememberOpenRequests(open []*enginev1.OpenServerRequest) {
	if len(open) == 0 {
		return // most results list none: no lock, no map
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.replayed) == 0 {
		c.replayed = make(map[string]string, len(open)) // a resume on a new connection: sized once
	}
	for _, o := range open {
		c.replayed[o.GetId()] = o.GetMethod()
	}
}

// unmatchedResponse takes a client's answer to a request this connection did
// not send: one that a resume replayed. Anything else changes nothing.
func (c *clientConn) unmatchedResponse(resp *jsonrpc.Response) {
	id, ok := resp.ID.Raw().(string)
	if !ok {
		return
	}
	c.mu.Lock()
	method, ok := c.replayed[id]
	delete(c.replayed, id)
	c.mu.Unlock()
	m := c.gw.serverMethods[method]
	if !ok || m == nil {
		return
	}
	var err error
	if resp.Error != nil {
		err = resp.Error
	}
	c.answer(id, m, resp.Result, err)
}

func (c *clientConn) notify(ctx context.Context, method string, params proto.Message) {
	data, err := contract.Marshal(params)
	if err != nil {
		c.gw.log.Error("encode notification", "method", method, "error", err)
		return
	}
	if c.gw.check != nil {
		ev, _ := params.(*enginev1.Event)
		if err := c.gw.check.sent(method, data, ev); err != nil {
			c.gw.log.Error("contract violation", "method", method, "error", err)
			return // the client misses it: a test waiting for it fails
		}
	}
	if err := c.rpc.Load().Notify(ctx, method, json.RawMessage(data)); err != nil {
		c.gw.log.Debug("notify", "method", method, "error", err)
	}
}

// close detaches the connection's stream; the session stays with the engine.
func (c *clientConn) close(reason string) {
	c.mu.Lock()
	c.closed = true
	s := c.stream
	c.stream = nil
	for _, cancel := range c.relays {
		cancel()
	}
	c.mu.Unlock()
	if s != nil {
		s.close(reason)
	}
	c.closeOthers(reason)
	c.wg.Wait()
}

// operationID is the call's operation id, from params or _meta.
func operationID(params proto.Message, meta map[string]any) string {
	if params != nil {
		m := params.ProtoReflect()
		if fd := m.Descriptor().Fields().ByName("operation_id"); fd != nil && m.Has(fd) {
			return m.Get(fd).String()
		}
	}
	if id, ok := meta["operation_id"].(string); ok {
		return id
	}
	return ""
}

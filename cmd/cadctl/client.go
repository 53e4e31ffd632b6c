package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// errConnectionLost is returned, wrapped, by a call whose connection broke
// before it was answered, when the call is not one that may be sent again.
var errConnectionLost = errors.New("connection to the gateway lost")

// clientOptions configure a client.
type clientOptions struct {
	// URL is the gateway (ws://host:port/rpc, http://host:port or host:port).
	URL string
	// Token is sent as a bearer credential; empty means none.
	Token string
	// Answer answers a server request (approval, pick.point,
	// pick.entities). It runs in its own goroutine, once per request id,
	// and ctx is cancelled when the gateway withdraws the request (with
	// a withdrawnError as the cause) or the client closes. A result is
	// marshalled as the response; an *jsonrpc.Error is sent as is. Nil
	// answers every server request with -32601.
	Answer func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// OnEvent receives the session's events in seq order, each once, from
	// one goroutine. Nil ignores them.
	OnEvent func(ev event)
	// Notice tells the user what the connection is doing (lost,
	// reconnected, events lost). Nil is silent.
	Notice func(format string, args ...any)
	// ReconnectTimeout is how long to keep trying to reconnect after the
	// connection drops; zero means not to reconnect.
	ReconnectTimeout time.Duration
}

// client is a JSON-RPC client of the gateway over a WebSocket. It sends
// calls, answers the gateway's server requests and delivers events, all
// concurrently, and it survives a dropped connection: it redials, resumes
// its session from the last event it saw, and answers again the server
// requests the session still has open — with a response frame bearing the
// request's id on the new connection — so that a prompt the user was
// answering when the connection dropped is not lost.
type client struct {
	opts   clientOptions
	ctx    context.Context // the client's lifetime; cancelled by close
	cancel context.CancelFunc
	nextID atomic.Int64
	events *queue
	wg     sync.WaitGroup // supervisor, event loop, answers and their senders

	mu sync.Mutex // guards everything below
	// conn and stream are the current connection; while a reconnect is
	// in progress they are the broken one.
	conn   *jsonrpc.Conn
	stream *wsstream.Stream
	// changed is closed (and replaced) when conn changes or the client
	// gives up reconnecting.
	changed chan struct{}
	// lost is why the client gave up reconnecting; nil while it has not.
	lost    error
	session *sessionState
	// lastSeq is the newest event seq delivered to the queue.
	lastSeq int64
	// requests are the server requests seen, by id, answered or not.
	requests map[string]*serverRequest
	// closed is set by close, after which no goroutine starts.
	closed bool
}

// sessionState is what a resume needs.
type sessionState struct {
	ID          string
	ResumeToken string
	Epoch       string
}

// serverRequest is one server request and its answer, which outlives the
// connection it arrived on.
type serverRequest struct {
	id     string
	method string
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once result and err are set
	result any
	err    error
}

// withdrawnError is the cause of a server request's context when the
// gateway withdrew it.
type withdrawnError struct{ reason string }

func (e *withdrawnError) Error() string { return "withdrawn: " + e.reason }

// event is one session event.
type event struct {
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// dialClient connects to the gateway.
func dialClient(ctx context.Context, opts clientOptions) (*client, error) {
	stream, err := dialWebSocket(ctx, opts.URL, opts.Token)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &client{
		opts:     opts,
		ctx:      cctx,
		cancel:   cancel,
		events:   newQueue(),
		changed:  make(chan struct{}),
		requests: map[string]*serverRequest{},
	}
	c.conn, c.stream = c.newConn(stream), stream
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.events.run(cctx)
	}()
	go func() {
		defer c.wg.Done()
		c.supervise(c.conn)
	}()
	return c, nil
}

func (c *client) newConn(stream *wsstream.Stream) *jsonrpc.Conn {
	return jsonrpc.NewConn(c.ctx, stream, jsonrpc.ConnOptions{
		Preempter: preempter{c},
		Handler:   jsonrpc.HandlerFunc(c.handle),
	})
}

// close ends the client: pending calls fail, open prompts are cancelled,
// and every goroutine has finished when it returns.
func (c *client) close() {
	c.cancel()
	c.mu.Lock()
	conn := c.conn
	c.closed = true
	c.mu.Unlock()
	conn.Close()
	c.wg.Wait()
}

func (c *client) notice(format string, args ...any) {
	if c.opts.Notice != nil {
		c.opts.Notice(format, args...)
	}
}

// call sends method(params) and decodes the result into result (see
// decodeResult: a generated message, a *json.RawMessage or nil). If the
// connection drops before the answer, retry says whether the call may be
// sent again on the new connection (reads, and writes that carry an
// operation id); otherwise call fails with errConnectionLost. Cancelling
// ctx tells the gateway with $/cancelRequest.
func (c *client) call(ctx context.Context, method string, params, result any, retry bool) error {
	for {
		conn, err := c.current(ctx)
		if err != nil {
			return err
		}
		id := jsonrpc.Int64ID(c.nextID.Add(1))
		var raw json.RawMessage
		err = conn.Call(ctx, id, method, params, &raw)
		if err == nil {
			return decodeResult(raw, result)
		}
		if ctx.Err() != nil {
			c.cancelCall(conn, id)
			return ctx.Err()
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) || (!errors.Is(err, jsonrpc.ErrClosed) && conn.Err() == nil) {
			return err
		}
		if !retry {
			return fmt.Errorf("%s: %w (the call may or may not have run)", method, errConnectionLost)
		}
		// The supervisor is reconnecting; current waits for it.
	}
}

// cancelCall tells the gateway that the call id is no longer wanted.
func (c *client) cancelCall(conn *jsonrpc.Conn, id jsonrpc.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn.Notify(ctx, gatewayv1.MethodCancelRequest, map[string]any{"id": id})
}

// current returns the live connection, waiting while a reconnect is in
// progress.
func (c *client) current(ctx context.Context) (*jsonrpc.Conn, error) {
	for {
		c.mu.Lock()
		conn, changed, lost := c.conn, c.changed, c.lost
		c.mu.Unlock()
		if lost != nil {
			return nil, lost
		}
		if conn.Err() == nil {
			return conn, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.ctx.Done():
			return nil, fmt.Errorf("client closed: %w", errConnectionLost)
		}
	}
}

// supervise watches the connection and replaces it when it drops.
func (c *client) supervise(conn *jsonrpc.Conn) {
	for {
		select {
		case <-conn.Done():
		case <-c.ctx.Done():
			return
		}
		if c.ctx.Err() != nil {
			return
		}
		cause := conn.Err()
		if c.opts.ReconnectTimeout <= 0 {
			c.giveUp(fmt.Errorf("%w: %v", errConnectionLost, cause))
			return
		}
		c.notice("connection lost (%v); reconnecting", cause)
		next, err := c.reconnect()
		if err != nil {
			c.giveUp(err)
			return
		}
		conn = next
	}
}

func (c *client) giveUp(err error) {
	c.mu.Lock()
	c.lost = err
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	if c.ctx.Err() == nil {
		c.notice("%v", err)
	}
}

// reconnect redials with backoff until ReconnectTimeout, resumes the
// session if there is one, and installs the new connection.
func (c *client) reconnect() (*jsonrpc.Conn, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.ReconnectTimeout)
	defer cancel()
	backoff := 100 * time.Millisecond
	var last error
	for attempt := 1; ; attempt++ {
		stream, err := dialWebSocket(ctx, c.opts.URL, c.opts.Token)
		if err == nil {
			conn := c.newConn(stream)
			if err = c.resume(ctx, conn, stream); err == nil {
				c.notice("reconnected")
				return conn, nil
			}
			conn.Close()
		}
		last = err
		var rpcErr *jsonrpc.Error
		if errors.Is(err, errUnauthorized) || (errors.As(err, &rpcErr) && rpcErr.Code == int64(gatewayv1.ErrorCode_ERROR_CODE_SESSION_NOT_FOUND)) {
			return nil, fmt.Errorf("cannot resume: %w", err)
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: gave up reconnecting after %d attempts: %v", errConnectionLost, attempt, last)
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// resume reattaches the session to conn, delivers the events missed, and
// answers the requests still open on conn; then conn becomes current.
func (c *client) resume(ctx context.Context, conn *jsonrpc.Conn, stream *wsstream.Stream) error {
	c.mu.Lock()
	sess, lastSeq := c.session, c.lastSeq
	c.mu.Unlock()
	var res enginev1.ResumeSessionResponse
	if sess != nil {
		params := map[string]any{"session_id": sess.ID, "resume_token": sess.ResumeToken, "last_seen": lastSeq}
		var raw json.RawMessage
		if err := conn.Call(ctx, jsonrpc.Int64ID(c.nextID.Add(1)), gatewayv1.MethodSessionResume, params, &raw); err != nil {
			return err
		}
		if err := decodeResult(raw, &res); err != nil {
			return fmt.Errorf("%s: %w", gatewayv1.MethodSessionResume, err)
		}
		if res.GetEpoch() != sess.Epoch {
			c.notice("the engine restarted since the session began (epoch %s, was %s)", res.GetEpoch(), sess.Epoch)
		}
		if res.GetTruncated() {
			c.notice("some events were lost while disconnected")
		}
	}
	c.mu.Lock()
	c.conn, c.stream = conn, stream
	if sess != nil {
		c.session.Epoch = res.GetEpoch()
	}
	close(c.changed)
	c.changed = make(chan struct{})
	open := map[string]bool{}
	for _, r := range res.GetOpenRequests() {
		open[r.GetId()] = true
	}
	var stale []*serverRequest
	for id, sr := range c.requests {
		if !open[id] {
			stale = append(stale, sr)
		}
	}
	c.mu.Unlock()
	for _, ev := range res.GetEvents() {
		c.deliver(event{SessionID: ev.GetSessionId(), Seq: ev.GetSeq(), Type: ev.GetType(), Payload: json.RawMessage(ev.GetPayloadJson())})
	}
	// Requests no longer open were answered or withdrawn meanwhile.
	for _, sr := range stale {
		sr.cancel(&withdrawnError{reason: "resolved"})
	}
	for _, r := range res.GetOpenRequests() {
		sr := c.serverRequest(r.GetId(), r.GetMethod(), json.RawMessage(r.GetParamsJson()))
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.sendAnswer(conn, stream, sr)
		}()
	}
	return nil
}

// sendAnswer waits for a replayed request's answer and sends it as a
// response frame on stream, the connection that replayed it.
func (c *client) sendAnswer(conn *jsonrpc.Conn, stream *wsstream.Stream, sr *serverRequest) {
	select {
	case <-sr.done:
	case <-conn.Done():
		return // the next resume replays it again
	}
	resp := &jsonrpc.Response{ID: jsonrpc.StringID(sr.id)}
	if sr.err != nil {
		resp.Error = toRPCError(sr.err)
	} else {
		data, err := json.Marshal(sr.result)
		if err != nil {
			resp.Error = toRPCError(err)
		} else {
			resp.Result = data
		}
	}
	payload, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	stream.Write(ctx, payload)
}

func toRPCError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
}

// serverRequest returns the request with this id, starting to answer it
// the first time it is seen.
func (c *client) serverRequest(id, method string, params json.RawMessage) *serverRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sr, ok := c.requests[id]; ok {
		return sr
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	sr := &serverRequest{id: id, method: method, cancel: cancel, done: make(chan struct{})}
	if c.closed {
		sr.err = jsonrpc.NewError(jsonrpc.CodeRequestCancelled, "cadctl is exiting")
		close(sr.done)
		return sr
	}
	c.requests[id] = sr
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel(nil)
		if c.opts.Answer == nil {
			sr.err = jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "cadctl does not answer "+method)
		} else {
			sr.result, sr.err = c.opts.Answer(ctx, method, params)
		}
		close(sr.done)
	}()
	return sr
}

// handle serves the gateway's server requests.
func (c *client) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case gatewayv1.MethodApproval, gatewayv1.MethodPickPoint, gatewayv1.MethodPickEntities:
	default:
		return nil, jsonrpc.ErrNotHandled
	}
	id, ok := req.ID.Raw().(string)
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "server request ids are strings")
	}
	sr := c.serverRequest(id, req.Method, req.Params)
	select {
	case <-sr.done:
		return sr.result, sr.err
	case <-ctx.Done():
		// The connection dropped: the answer is kept for the resume.
		return nil, ctx.Err()
	}
}

// preempter takes events and withdrawals in the read loop, in the order
// they arrive, so that events are delivered in seq order.
type preempter struct{ c *client }

func (p preempter) Preempt(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case gatewayv1.MethodEvent:
		var ev event
		if err := json.Unmarshal(req.Params, &ev); err == nil {
			p.c.deliver(ev)
		}
		return nil, nil
	case gatewayv1.MethodRequestCancel:
		var rc struct {
			ID     string `json:"id"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(req.Params, &rc); err == nil {
			p.c.withdraw(rc.ID, rc.Reason)
		}
		return nil, nil
	}
	return nil, jsonrpc.ErrNotHandled
}

// deliver queues an event unless it was delivered already.
func (c *client) deliver(ev event) {
	c.mu.Lock()
	if ev.Seq <= c.lastSeq {
		c.mu.Unlock()
		return
	}
	c.lastSeq = ev.Seq
	c.mu.Unlock()
	if c.opts.OnEvent != nil {
		c.events.push(func() { c.opts.OnEvent(ev) })
	}
}

// withdraw cancels a server request the gateway withdrew; its late answer
// is not sent.
func (c *client) withdraw(id, reason string) {
	c.mu.Lock()
	sr := c.requests[id]
	c.mu.Unlock()
	if sr != nil {
		sr.cancel(&withdrawnError{reason: reason})
	}
}

// createSession creates the client's session; from then on a reconnect
// resumes it.
func (c *client) createSession(ctx context.Context, methods []string, policy string) (*sessionState, error) {
	if methods == nil {
		methods = []string{} // a list, never null
	}
	params := map[string]any{
		"client":       map[string]any{"name": "cadctl", "version": version()},
		"capabilities": map[string]any{"server_requests": methods},
	}
	if policy != "" {
		params["approval_policy"] = policy
	}
	var res enginev1.CreateSessionResponse
	if err := c.call(ctx, gatewayv1.MethodSessionCreate, params, &res, false); err != nil {
		return nil, err
	}
	s := &sessionState{ID: res.GetSessionId(), ResumeToken: res.GetResumeToken(), Epoch: res.GetEpoch()}
	c.mu.Lock()
	c.session = s
	c.lastSeq = res.GetLatestSeq()
	c.mu.Unlock()
	return s, nil
}

// closeSession closes the session, if there is one, best effort.
func (c *client) closeSession(ctx context.Context) {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if c.call(ctx, gatewayv1.MethodSessionClose, map[string]any{"session_id": s.ID}, nil, true) == nil {
		c.mu.Lock()
		c.session = nil
		c.mu.Unlock()
	}
}

// flushEvents waits until the events received so far have been handled.
func (c *client) flushEvents(ctx context.Context) {
	c.events.flush(ctx)
}

// queue runs functions in order on one goroutine; push never blocks.
type queue struct {
	mu     sync.Mutex // guards items
	items  []func()
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(f func()) {
	q.mu.Lock()
	q.items = append(q.items, f)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// run runs queued functions until ctx ends.
func (q *queue) run(ctx context.Context) {
	for {
		select {
		case <-q.signal:
		case <-ctx.Done():
			return
		}
		q.mu.Lock()
		items := q.items
		q.items = nil
		q.mu.Unlock()
		for _, f := range items {
			f()
		}
	}
}

// flush waits until everything pushed before it has run, or ctx ends.
func (q *queue) flush(ctx context.Context) {
	done := make(chan struct{})
	q.push(func() { close(done) })
	select {
	case <-done:
	case <-ctx.Done():
	}
}

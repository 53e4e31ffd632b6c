package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// exchange is one MCP call that runs in an engine session of its own,
// because it may ask the client (approval, pick.point, pick.entities) or
// report progress: a relay with its own Session stream, a session that
// declares the server requests the client can answer as elicitations, and
// the call running in it. Each server request of the session is the
// call's; it is asked as an elicitation request (older protocol
// revisions) or handed to the client as an input_required result, the
// exchange then parked until the client's next round (2026-07-28).
//
// The exchange's goroutine makes the call and, once the call has ended and
// the exchange is released (its result taken, or the exchange aborted),
// closes the session and the relay.
type exchange struct {
	s         *Server
	id        string
	tool      *tool
	rc        *relayCall
	principal string
	opID      string
	relay     *gateway.Relay
	sessionID string

	asks     chan *enginev1.ServerRequest
	progress chan *enginev1.BatchProgressPayload
	done     chan struct{} // closed when the call has ended; raw and err are set
	raw      json.RawMessage
	err      error
	cancel   context.CancelCauseFunc // cancels the call's work in the engine

	releaseOnce sync.Once
	released    chan struct{}

	mu sync.Mutex // guards withdrawn, eliciting, pending and timer
	// withdrawn are the server requests the engine withdrew.
	withdrawn map[string]bool
	// eliciting cancels the elicitation request in flight, by server
	// request id.
	eliciting map[string]context.CancelFunc
	// pending is the server request the client is to answer in its next
	// round while the exchange is parked; nil otherwise.
	pending *enginev1.ServerRequest
	timer   *time.Timer // expires the parked exchange
}

// askMethods are the server requests a session declares for a client that
// can elicit.
var askMethods = []string{gatewayv1.MethodApproval, gatewayv1.MethodPickPoint, gatewayv1.MethodPickEntities}

// startExchange opens the exchange of an MCP call: its relay, its session
// (declaring the server requests when the client can elicit, with the
// surface's approval policy) and the call, running.
func (s *Server) startExchange(ctx context.Context, req *mcpsdk.CallToolRequest, t *tool, rc *relayCall, principal string, canElicit bool) (*exchange, error) {
	idb := make([]byte, 12)
	rand.Read(idb)
	x := &exchange{
		s: s, id: hex.EncodeToString(idb), tool: t, rc: rc, principal: principal,
		asks:      make(chan *enginev1.ServerRequest, 8),
		progress:  make(chan *enginev1.BatchProgressPayload, 64),
		done:      make(chan struct{}),
		released:  make(chan struct{}),
		withdrawn: map[string]bool{},
		eliciting: map[string]context.CancelFunc{},
	}
	cctx, cancel := context.WithCancelCause(context.Background())
	x.cancel = cancel
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(errClosed)
		return nil, errClosed
	}
	n := 0
	for _, o := range s.live {
		if o.principal == principal {
			n++
		}
	}
	if n >= s.gw.MaxInFlight() {
		s.mu.Unlock()
		cancel(errClosed)
		return nil, jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED), "overloaded: too many calls of this principal wait on their client")
	}
	s.live[x.id] = x
	s.wg.Add(1) // done by the call's goroutine, or below if it never starts
	s.mu.Unlock()
	fail := func(err error) (*exchange, error) {
		cancel(err)
		x.relay.Close()
		s.forget(x)
		s.wg.Done()
		return nil, err
	}

	x.relay = s.gw.NewRelay(principal, headerOf(req.Extra), gateway.RelayHooks{
		ServerRequest: x.onServerRequest,
		RequestCancel: x.onRequestCancel,
		Event:         x.onEvent,
	})
	create := map[string]any{"approval_policy": PolicyNone, "capabilities": map[string]any{"server_requests": []string{}}}
	if canElicit {
		create["approval_policy"] = s.cfg.ApprovalPolicy
		create["capabilities"] = map[string]any{"server_requests": askMethods}
	}
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		client := map[string]any{"name": truncate(ci.Name, 200)}
		if ci.Version != "" {
			client["version"] = truncate(ci.Version, 100)
		}
		create["client"] = client
	}
	params, _ := json.Marshal(create)
	raw, err := x.relay.Call(ctx, gatewayv1.MethodSessionCreate, params)
	if err != nil {
		return fail(err)
	}
	var created enginev1.CreateSessionResponse
	if err := contract.UnmarshalPartial(raw, &created); err != nil {
		return fail(fmt.Errorf("decode session.create result: %w", err))
	}
	x.sessionID = created.GetSessionId()

	x.opID = rc.operationID()
	if x.opID == "" {
		if m, ok := req.Params.Meta["operation_id"].(string); ok {
			x.opID = m
		}
	}
	if x.opID == "" {
		// The call needs an id of its own for its round states to be
		// bound to; the engine journals it like any other.
		x.opID = "mcp-" + x.id
		rc.params["operation_id"], _ = json.Marshal(x.opID)
	}
	go func() {
		defer s.wg.Done()
		x.raw, x.err = x.relay.Call(cctx, rc.method, rc.encode(x.sessionID))
		close(x.done)
		<-x.released
		x.cleanup()
	}()
	return x, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// forget removes x from the live exchanges.
func (s *Server) forget(x *exchange) {
	s.mu.Lock()
	delete(s.live, x.id)
	s.mu.Unlock()
}

// onServerRequest takes a server request of the exchange's session.
func (x *exchange) onServerRequest(sr *enginev1.ServerRequest) {
	select {
	case x.asks <- sr:
	default:
		x.s.log.Warn("server request dropped: the call has too many waiting", "id", sr.GetId())
	}
}

// onRequestCancel takes a withdrawal: an elicitation in flight for it is
// cancelled, and an answer to it is no longer sent.
func (x *exchange) onRequestCancel(p *enginev1.RequestCancelParams) {
	x.mu.Lock()
	x.withdrawn[p.GetId()] = true
	cancel := x.eliciting[p.GetId()]
	x.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// onEvent keeps the latest batch.progress of the session for the driver.
func (x *exchange) onEvent(ev *enginev1.Event) {
	if ev.GetType() != gatewayv1.EventBatchProgress {
		return
	}
	var p enginev1.BatchProgressPayload
	if contract.UnmarshalPartial(ev.GetPayloadJson(), &p) != nil {
		return
	}
	for {
		select {
		case x.progress <- &p:
			return
		default:
		}
		select {
		case <-x.progress: // an older one: the newer replaces it
		default:
		}
	}
}

func (x *exchange) isWithdrawn(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.withdrawn[id]
}

// drive waits for the call on behalf of the MCP request req: it relays
// progress, asks the client each server request, and returns the call's
// result, or an input_required result when the client answers in a next
// round. When ctx ends first, the call's work is cancelled.
func (x *exchange) drive(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	rounds := req.ProtocolVersion() >= mrtrVersion
	var notified time.Time // when the last progress notification went out
	for {
		select {
		case <-x.done:
			for drained := false; !drained; { // progress sent before the result
				select {
				case p := <-x.progress:
					if x.notifyProgress(ctx, req, token, p) {
						notified = time.Now()
					}
				default:
					drained = true
				}
			}
			// Clients that run notification handlers later than they take
			// a response (the TypeScript SDK) drop a progress notification
			// read together with the result: let the last one go out alone.
			if wait := progressGap - time.Since(notified); !notified.IsZero() && wait > 0 {
				time.Sleep(wait)
			}
			x.release()
			return x.s.result(x.tool, x.rc, x.raw, x.err)
		case p := <-x.progress:
			if x.notifyProgress(ctx, req, token, p) {
				notified = time.Now()
			}
		case sr := <-x.asks:
			if x.isWithdrawn(sr.GetId()) {
				continue
			}
			if rounds {
				return x.park(sr), nil
			}
			x.elicit(ctx, req.Session, sr)
		case <-ctx.Done():
			x.abort()
			return nil, ctx.Err()
		}
	}
}

// progressGap separates the last progress notification from the result.
const progressGap = 10 * time.Millisecond

// notifyProgress tells the client of a step done, if it asked to be, and
// reports whether it did.
func (x *exchange) notifyProgress(ctx context.Context, req *mcpsdk.CallToolRequest, token any, p *enginev1.BatchProgressPayload) bool {
	if token == nil {
		return false
	}
	req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{
		ProgressToken: token, Progress: float64(p.GetStep()), Total: float64(p.GetTotal()),
		Message: fmt.Sprintf("step %d of %d", p.GetStep(), p.GetTotal()),
	})
	return true
}

// elicit asks the client sr as an elicitation request and forwards the
// answer; a withdrawal cancels the question.
func (x *exchange) elicit(ctx context.Context, ss *mcpsdk.ServerSession, sr *enginev1.ServerRequest) {
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	x.mu.Lock()
	x.eliciting[sr.GetId()] = cancel
	x.mu.Unlock()
	res, err := ss.Elicit(ectx, elicitation(sr))
	x.mu.Lock()
	delete(x.eliciting, sr.GetId())
	withdrawn := x.withdrawn[sr.GetId()]
	x.mu.Unlock()
	if ctx.Err() != nil || withdrawn {
		return
	}
	result, answerErr := answerOf(sr, res, err)
	x.relay.Answer(sr.GetId(), sr.GetMethod(), result, answerErr)
}

// park hands sr to the client as an input request, with the sealed state
// its next round brings back, and keeps the call waiting for it until the
// state expires.
func (x *exchange) park(sr *enginev1.ServerRequest) *mcpsdk.CallToolResult {
	ttl := x.s.cfg.StateTTL
	x.mu.Lock()
	x.pending = sr
	x.timer = time.AfterFunc(ttl, x.expire)
	x.mu.Unlock()
	state := x.s.sealer.seal(roundState{
		Exchange: x.id, Request: sr.GetId(), Principal: x.principal, Operation: x.opID,
		Tool: x.tool.name, Args: x.rc.digest(), Expires: x.s.sealer.now().Add(ttl).UnixMilli(),
	})
	return &mcpsdk.CallToolResult{
		InputRequests: mcpsdk.InputRequestMap{sr.GetId(): elicitation(sr)},
		RequestState:  state,
	}
}

// expire cancels a parked exchange whose client did not come back.
func (x *exchange) expire() {
	x.mu.Lock()
	parked := x.pending != nil
	x.pending = nil
	x.mu.Unlock()
	if parked {
		x.abort()
	}
}

// unpark takes the parked exchange's pending request for the round that
// answers request; ok is false when it is not the one waiting (answered
// by an earlier round, withdrawn or expired), so that an answer reaches
// the engine once.
func (x *exchange) unpark(request string) (*enginev1.ServerRequest, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	sr := x.pending
	if sr == nil || sr.GetId() != request {
		return nil, false
	}
	x.pending = nil
	if x.timer != nil {
		x.timer.Stop()
	}
	return sr, true
}

// repark puts back a request a round did not answer.
func (x *exchange) repark(sr *enginev1.ServerRequest) *mcpsdk.CallToolResult {
	return x.park(sr)
}

// resume is a client's next round (2026-07-28): it opens the sealed state,
// forwards the client's answer to the waiting server request, once, and
// waits for the call again. A state that was altered, expired, belongs to
// another principal or call, or was already used is refused: a protocol
// error, with nothing sent to the engine.
func (s *Server) resume(ctx context.Context, req *mcpsdk.CallToolRequest, t *tool, rc *relayCall, principal string) (*mcpsdk.CallToolResult, error) {
	st, err := s.sealer.open(req.Params.RequestState, principal)
	if err == nil && (st.Tool != t.name || st.Args != rc.digest()) {
		err = fmt.Errorf("%w: it belongs to another call", errStateRefused)
	}
	var x *exchange
	if err == nil {
		s.mu.Lock()
		x = s.live[st.Exchange]
		s.mu.Unlock()
		if x == nil || x.opID != st.Operation {
			err = fmt.Errorf("%w: no call waits for it (it finished, expired, or waits on another gateway)", errStateRefused)
		}
	}
	var sr *enginev1.ServerRequest
	if err == nil {
		var ok bool
		if sr, ok = x.unpark(st.Request); !ok {
			err = fmt.Errorf("%w: it was answered already", errStateRefused)
		}
	}
	if err != nil {
		return nil, &sdkjsonrpc.Error{Code: sdkjsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	answer, ok := req.Params.InputResponses[st.Request].(*mcpsdk.ElicitResult)
	if !ok {
		return x.repark(sr), nil
	}
	if !x.isWithdrawn(sr.GetId()) {
		result, answerErr := answerOf(sr, answer, nil)
		x.relay.Answer(sr.GetId(), sr.GetMethod(), result, answerErr)
	}
	return x.drive(ctx, req)
}

// abort cancels the call's work in the engine, as $/cancelRequest does,
// and releases the exchange.
func (x *exchange) abort() {
	x.cancel(jsonrpc.ErrCancelledByPeer)
	x.release()
}

func (x *exchange) release() { x.releaseOnce.Do(func() { close(x.released) }) }

// cleanup closes the exchange's session and relay once its call has ended.
func (x *exchange) cleanup() {
	x.mu.Lock()
	if x.timer != nil {
		x.timer.Stop()
	}
	x.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]string{"session_id": x.sessionID})
	if _, err := x.relay.Call(ctx, gatewayv1.MethodSessionClose, params); err != nil {
		x.s.log.Debug("close the call's session", "session", x.sessionID, "error", err)
	}
	x.relay.Close()
	x.s.forget(x)
}

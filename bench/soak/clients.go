package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// callTimeout bounds one call of a client; a call in flight when the run
// ends is let finish, so its batch is answered.
const callTimeout = time.Minute

// conn is a client's JSON-RPC connection to the gateway over WebSocket.
type conn struct {
	ws  *wsstream.Stream
	rpc *jsonrpc.Conn
}

// dial connects to the gateway; h serves its server requests (nil answers
// -32601).
func dial(ctx context.Context, addr string, h jsonrpc.Handler) (*conn, error) {
	// Not cancelled with ctx: a client dialling when the run ends finishes
	// its round.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	ws, _, err := wsstream.Dial(ctx, "ws://"+addr+"/rpc", wsstream.DialOptions{ReadLimit: 64 << 20})
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &conn{ws: ws, rpc: jsonrpc.NewConn(context.Background(), ws, jsonrpc.ConnOptions{Handler: h})}, nil
}

// call calls method, decoding the result into result unless it is nil.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if err := c.rpc.Call(ctx, jsonrpc.ID{}, method, params, &raw); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}

func (c *conn) close() { c.rpc.Close() }

// tally counts what the clients saw, by client kind.
type tally struct {
	mu sync.Mutex // guards everything below
	// calls and ok count answers and successful ones, by kind.
	calls, ok map[string]int
	// codes counts errors by code ("4029", "close 1008", …) and kind.
	codes map[string]map[string]int
	// steps counts failed steps by error kind.
	steps map[string]int
	// unexpected counts what should not have happened; notes describes
	// the first.
	unexpected int
	notes      []string
}

func newTally() *tally {
	return &tally{calls: map[string]int{}, ok: map[string]int{}, codes: map[string]map[string]int{}, steps: map[string]int{}}
}

// code records one error outcome of kind; unless it is among allowed it
// is unexpected.
func (t *tally) code(kind, code string, allowed []string, detail string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls[kind]++
	if t.codes[kind] == nil {
		t.codes[kind] = map[string]int{}
	}
	t.codes[kind][code]++
	if !slices.Contains(allowed, code) {
		t.unexpectedLocked("%s: %s (%s)", kind, code, detail)
	}
}

// call records the outcome of one call of kind: a success, or an error
// whose JSON-RPC code must be among allowed.
func (t *tally) call(kind string, err error, allowed ...string) {
	if err == nil {
		t.mu.Lock()
		t.calls[kind]++
		t.ok[kind]++
		t.mu.Unlock()
		return
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		t.code(kind, fmt.Sprint(rpcErr.Code), allowed, rpcErr.Message)
		return
	}
	t.code(kind, "transport", allowed, err.Error())
}

// stepKinds records the failed steps of an answer; a kind not among
// allowed is unexpected.
func (t *tally) stepKinds(kind string, a batchAnswer, allowed ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range a.Results {
		if r.Error == nil {
			continue
		}
		t.steps[r.Error.Kind]++
		if !slices.Contains(allowed, r.Error.Kind) {
			t.unexpectedLocked("%s: a step failed %s", kind, r.Error.Kind)
		}
	}
}

// unexpectedf records something that should not have happened.
func (t *tally) unexpectedf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unexpectedLocked(format, args...)
}

func (t *tally) unexpectedLocked(format string, args ...any) {
	t.unexpected++
	if len(t.notes) < 20 {
		t.notes = append(t.notes, fmt.Sprintf(format, args...))
	}
}

// soak is one run's shared state.
type soak struct {
	cfg     Config
	gateway string // address
	ledger  *ledger
	tally   *tally
	seq     atomic.Int64 // numbers operation ids
}

// opID returns a fresh operation id for kind.
func (s *soak) opID(kind string) string {
	return fmt.Sprintf("soak-%s-%d-%d", kind, s.seq.Add(1), time.Now().UnixNano()%1e6)
}

// callCtx is the context of one call: not the run's, so that a call in
// flight at the end is answered.
func callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// document makes a document for kind whose entities the check verifies.
func (s *soak) document(c *conn, kind string) (string, error) {
	ctx, cancel := callCtx()
	defer cancel()
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if err := c.call(ctx, gatewayv1.MethodDocumentCreate, map[string]any{"name": "soak " + kind}, &doc); err != nil {
		return "", fmt.Errorf("%s: document.create: %w", kind, err)
	}
	s.ledger.document(doc.DocumentID)
	return doc.DocumentID, nil
}

// client dials the gateway with h serving its server requests and makes a
// document for kind.
func (s *soak) client(ctx context.Context, kind string, h jsonrpc.Handler) (*conn, string, error) {
	c, err := dial(ctx, s.gateway, h)
	if err != nil {
		return nil, "", err
	}
	doc, err := s.document(c, kind)
	if err != nil {
		c.close()
		return nil, "", err
	}
	return c, doc, nil
}

// session opens a session that answers approvals, with policy destructive.
func session(c *conn) (id, token string, err error) {
	ctx, cancel := callCtx()
	defer cancel()
	var res struct {
		SessionID   string `json:"session_id"`
		ResumeToken string `json:"resume_token"`
	}
	err = c.call(ctx, gatewayv1.MethodSessionCreate, map[string]any{
		"capabilities":    map[string]any{"server_requests": []string{gatewayv1.MethodApproval}},
		"approval_policy": "destructive",
	}, &res)
	return res.SessionID, res.ResumeToken, err
}

// point is a step creating a point.
func point(i int) map[string]any {
	return map[string]any{"tool": enginev1.ToolEntityCreatePoint, "args": map[string]any{"x": i, "y": 0}}
}

// batch is a cad.batch's params and what it does to its document.
type batch struct {
	params map[string]any
	delta  []int
}

// points is a batch of n point creations.
func points(doc string, n int) batch {
	b := batch{params: map[string]any{"document_id": doc}}
	var steps []any
	for i := range n {
		steps = append(steps, point(i))
		b.delta = append(b.delta, 1)
	}
	b.params["steps"] = steps
	return b
}

// rollingBack is a batch that fails at its last step with on_error
// rollback: nothing of it stays.
func rollingBack(doc string) batch {
	b := points(doc, 3)
	b.params["steps"] = append(b.params["steps"].([]any), map[string]any{"tool": enginev1.ToolEntityMove, "args": map[string]any{"handle": "FFFFFF", "dx": 1, "dy": 0}})
	b.params["on_error"] = "rollback"
	b.delta = append(b.delta, 0)
	return b
}

// deleting is a batch whose last step, a destructive one, deletes the
// first entity: it asks for approval in a session with policy destructive.
func deleting(doc, session string) batch {
	return batch{
		params: map[string]any{"document_id": doc, "session_id": session, "steps": []any{
			map[string]any{"tool": enginev1.ToolEntityCreatePoint, "args": map[string]any{"x": 1, "y": 1}, "bind": "a"},
			point(2),
			map[string]any{"tool": enginev1.ToolEntityDelete, "args": map[string]any{"handle": "$a"}},
		}},
		delta: []int{1, 1, -1},
	}
}

// send records b under a fresh operation id and sends it; it returns the
// id and the answer, recorded in the ledger.
func (s *soak) send(c *conn, kind string, b batch) (string, batchAnswer, error) {
	id := s.opID(kind)
	b.params["operation_id"] = id
	s.ledger.sent(id, b.params["document_id"].(string), b.delta)
	ctx, cancel := callCtx()
	defer cancel()
	var raw json.RawMessage
	if err := c.rpc.Call(ctx, jsonrpc.ID{}, gatewayv1.MethodCadBatch, b.params, &raw); err != nil {
		return id, batchAnswer{}, err
	}
	a, err := s.ledger.answered(id, raw)
	return id, a, err
}

// paced waits a little between two calls of a client, so that the mix
// runs as many clients do and not as one tight loop.
func paced(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Duration(5+rand.IntN(20)) * time.Millisecond):
		return true
	}
}

// batcher sends batches of point creations, now and then one that rolls
// back, and a call the contract refuses (4000).
func (s *soak) batcher(ctx context.Context) error {
	const kind = "batches"
	c, doc, err := s.client(ctx, kind, nil)
	if err != nil {
		return err
	}
	defer c.close()
	for n := 0; paced(ctx); n++ {
		switch {
		case n%7 == 6:
			cctx, cancel := callCtx()
			err := c.call(cctx, gatewayv1.MethodToolsCall, map[string]any{"document_id": doc, "tool": enginev1.ToolEntityCreateCircle, "args": map[string]any{"cx": 0, "cy": 0, "radius": "big"}}, nil)
			cancel()
			if err == nil {
				s.tally.unexpectedf("%s: a radius of \"big\" was accepted", kind)
				continue
			}
			s.tally.call(kind, err, "4000")
		case n%5 == 4:
			_, a, err := s.send(c, kind, rollingBack(doc))
			s.tally.call(kind, err)
			if err == nil {
				s.tally.stepKinds(kind, a, "failed", "skipped")
				if a.Status != "rolled_back" {
					s.tally.unexpectedf("%s: a failing batch with on_error rollback ended %s", kind, a.Status)
				}
			}
		default:
			_, a, err := s.send(c, kind, points(doc, 10))
			s.tally.call(kind, err)
			if err == nil && a.Status != "completed" {
				s.tally.unexpectedf("%s: a batch of creations ended %s", kind, a.Status)
			}
		}
	}
	return nil
}

// approver runs batches whose destructive step asks for approval, and
// answers after delay(): approve, or deny every fourth when deny is set.
// With a delay past the engine's request timeout the answer comes too
// late and is ignored: the step ends timed_out.
func (s *soak) approver(kind string, delay func() time.Duration, deny bool, wantStatus string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var asked atomic.Int64
		h := jsonrpc.HandlerFunc(func(hctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != gatewayv1.MethodApproval {
				return nil, jsonrpc.ErrNotHandled
			}
			n := asked.Add(1)
			select {
			case <-time.After(delay()):
			case <-hctx.Done():
				return nil, hctx.Err()
			}
			if deny && n%4 == 0 {
				return map[string]any{"decision": "deny"}, nil
			}
			return map[string]any{"decision": "approve"}, nil
		})
		c, doc, err := s.client(ctx, kind, h)
		if err != nil {
			return err
		}
		defer c.close()
		sess, _, err := session(c)
		if err != nil {
			return fmt.Errorf("%s: session.create: %w", kind, err)
		}
		for paced(ctx) {
			_, a, err := s.send(c, kind, deleting(doc, sess))
			s.tally.call(kind, err)
			if err != nil {
				continue
			}
			s.tally.stepKinds(kind, a, "denied", "timed_out")
			if a.Status != wantStatus && !(deny && a.Status == "failed") {
				s.tally.unexpectedf("%s: batch ended %s, want %s", kind, a.Status, wantStatus)
			}
		}
		return nil
	}
}

// resumer disconnects in the middle of its batches and learns their end
// on a new connection: either while the batch waits for an approval
// (then it resumes the session and answers the request the resume
// replays), or right after sending. Each batch is then sent again with
// the same operation id, which must replay it.
func (s *soak) resumer(ctx context.Context) error {
	const kind = "resumes"
	asked := make(chan string, 1)
	waiting := jsonrpc.HandlerFunc(func(hctx context.Context, req *jsonrpc.Request) (any, error) {
		select {
		case asked <- fmt.Sprint(req.ID.Raw()):
		default:
		}
		<-hctx.Done() // the client goes away instead of answering
		return nil, hctx.Err()
	})
	first, err := dial(ctx, s.gateway, nil)
	if err != nil {
		return err
	}
	sess, token, err := session(first)
	if err != nil {
		first.close()
		return fmt.Errorf("%s: session.create: %w", kind, err)
	}
	doc, err := s.document(first, kind)
	first.close()
	if err != nil {
		return err
	}
	for n := 0; paced(ctx); n++ {
		c, err := dial(ctx, s.gateway, waiting)
		if err != nil {
			return err
		}
		rctx, cancel := callCtx()
		if err := c.call(rctx, gatewayv1.MethodSessionResume, map[string]any{"session_id": sess, "resume_token": token}, nil); err != nil {
			cancel()
			c.close()
			return fmt.Errorf("%s: session.resume: %w", kind, err)
		}
		cancel()
		select {
		case <-asked: // a request of an earlier round, replayed
		default:
		}
		b := points(doc, 30)
		approval := n%2 == 0
		if approval {
			b = deleting(doc, sess)
		}
		ids := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			id, _, err := s.send(c, kind, b)
			ids <- id
			done <- err
		}()
		if approval {
			select {
			case <-asked:
			case <-time.After(20 * time.Second):
				s.tally.unexpectedf("%s: no approval request within 20 s", kind)
			}
		} else {
			time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		}
		c.ws.Conn().CloseNow() // mid-batch, as a network failure would
		c.close()
		id, sendErr := <-ids, <-done
		if sendErr == nil {
			s.tally.call(kind, nil) // it was answered before the close
		}
		// Otherwise it failed because this side cut the connection.
		if err := s.learn(kind, sess, token, id, b); err != nil {
			return err
		}
	}
	return nil
}

// learn resumes the session on a new connection, approves what the resume
// replays, waits for the batch id to end, records it and sends it again
// (same id, same request), which must replay.
func (s *soak) learn(kind, sess, token, id string, b batch) error {
	ctx, cancel := callCtx()
	defer cancel()
	c, err := dial(ctx, s.gateway, nil)
	if err != nil {
		return err
	}
	defer c.close()
	var resumed struct {
		OpenRequests []struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		} `json:"open_requests"`
	}
	err = c.call(ctx, gatewayv1.MethodSessionResume, map[string]any{"session_id": sess, "resume_token": token}, &resumed)
	s.tally.call(kind, err)
	if err != nil {
		return nil
	}
	for _, r := range resumed.OpenRequests {
		if r.Method != gatewayv1.MethodApproval {
			continue
		}
		answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.ID, "result": map[string]any{"decision": "approve"}})
		if err := c.ws.Write(ctx, answer); err != nil {
			return fmt.Errorf("%s: answer %s: %w", kind, r.ID, err)
		}
	}
	op, found, err := finished(ctx, c, id, 20*time.Second, 500*time.Millisecond)
	s.tally.call(kind, err)
	if err != nil || !found {
		return nil // it never reached the engine; the check accounts for that
	}
	s.ledger.learnt(id, op)
	var a batchAnswer
	var raw json.RawMessage
	err = c.rpc.Call(ctx, jsonrpc.ID{}, gatewayv1.MethodCadBatch, b.params, &raw)
	s.tally.call(kind, err, "4029")
	if err == nil {
		if json.Unmarshal(raw, &a); !a.Replayed {
			s.tally.unexpectedf("%s: %s sent again was not replayed (status %s)", kind, id, a.Status)
		}
	}
	return nil
}

// canceller sends long batches and cancels each with $/cancelRequest a
// moment later: the call answers -32800 (or its result, when it finished
// first), and operations.get tells what committed.
func (s *soak) canceller(ctx context.Context) error {
	const kind = "cancels"
	c, doc, err := s.client(ctx, kind, nil)
	if err != nil {
		return err
	}
	defer c.close()
	for n := 0; paced(ctx); n++ {
		b := points(doc, 200)
		id := s.opID(kind)
		b.params["operation_id"] = id
		s.ledger.sent(id, doc, b.delta)
		callID := jsonrpc.StringID("cancel-" + id)
		cctx, cancel := callCtx()
		done := make(chan error, 1)
		var raw json.RawMessage
		go func() { done <- c.rpc.Call(cctx, callID, gatewayv1.MethodCadBatch, b.params, &raw) }()
		time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
		if err := c.rpc.Notify(cctx, jsonrpc.MethodCancelRequest, map[string]any{"id": callID}); err != nil {
			s.tally.call(kind, err)
		}
		err := <-done
		s.tally.call(kind, err, "-32800")
		if err == nil {
			s.ledger.answered(id, raw)
		} else if _, _, err := finished(cctx, c, id, 20*time.Second, time.Second); err != nil {
			s.tally.call(kind, err)
		}
		cancel()
	}
	return nil
}

// flooder sends calls with big answers and never reads them: the gateway
// must drop it (close 1008) or answer 4029 beyond the calls in flight it
// allows, and stay within its memory while others are served.
func (s *soak) flooder(ctx context.Context) error {
	const kind = "non-readers"
	c, err := dial(ctx, s.gateway, nil)
	if err != nil {
		return err
	}
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	cctx, cancel := callCtx()
	err = c.call(cctx, gatewayv1.MethodDocumentCreate, map[string]any{"name": "soak flood"}, &doc)
	if err == nil {
		many := make([]any, 500)
		for i := range many {
			many[i] = map[string]any{"type": "point", "x": i, "y": i}
		}
		err = c.call(cctx, gatewayv1.MethodToolsCall, map[string]any{"document_id": doc.DocumentID, "tool": enginev1.ToolEntityBatchCreate, "args": map[string]any{"entities": many}}, nil)
	}
	cancel()
	c.close()
	if err != nil {
		return fmt.Errorf("%s: setup: %w", kind, err)
	}
	list, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": gatewayv1.MethodToolsCall, "params": map[string]any{"document_id": doc.DocumentID, "tool": enginev1.ToolEntityList, "args": map[string]any{"page_size": 500}}})
	for ctx.Err() == nil {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ws, _, err := wsstream.Dial(dctx, "ws://"+s.gateway+"/rpc", wsstream.DialOptions{ReadLimit: 64 << 20})
		cancel()
		if err != nil {
			return fmt.Errorf("%s: dial: %w", kind, err)
		}
		for i := range 300 {
			wctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err := ws.Write(wctx, bytes.Replace(list, []byte(`"id":1`), fmt.Appendf(nil, `"id":%d`, i+1), 1))
			cancel()
			if err != nil {
				break // the gateway stopped reading: back-pressure
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.cfg.WriteTimeout + time.Second):
		}
		s.drain(kind, ws)
	}
	return nil
}

// drain reads what a non-reader was sent, tallying error codes, until the
// connection ends or it has read everything.
func (s *soak) drain(kind string, ws *wsstream.Stream) {
	defer ws.Conn().CloseNow()
	for {
		rctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		data, err := ws.Read(rctx)
		cancel()
		if err != nil {
			switch st := websocket.CloseStatus(err); {
			case st == websocket.StatusPolicyViolation:
				s.tally.code(kind, "close 1008", []string{"close 1008"}, "dropped")
			case st != -1:
				s.tally.code(kind, fmt.Sprintf("close %d", st), nil, err.Error())
			case errors.Is(err, context.DeadlineExceeded):
				// everything was read: the connection absorbed the flood
			default:
				s.tally.code(kind, "dropped", []string{"dropped"}, err.Error()) // reset by the gateway
			}
			return
		}
		var r struct {
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal(data, &r)
		if r.Error != nil {
			s.tally.code(kind, fmt.Sprint(r.Error.Code), []string{"4029"}, "flood")
		} else {
			s.tally.call(kind, nil)
		}
	}
}

// oversized sends a message one byte over the gateway's read limit, over
// WebSocket (the connection closes 1009) and over HTTP POST (4013).
func (s *soak) oversized(ctx context.Context) error {
	const kind = "oversized"
	big := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"rpc.discover","params":{"pad":"`), bytes.Repeat([]byte("x"), s.cfg.ReadLimit)...), `"}}`...)
	for n := 0; ctx.Err() == nil; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		if n%2 == 0 {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			ws, _, err := wsstream.Dial(cctx, "ws://"+s.gateway+"/rpc", wsstream.DialOptions{})
			if err != nil {
				cancel()
				return fmt.Errorf("%s: dial: %w", kind, err)
			}
			if err := ws.Write(cctx, big); err == nil {
				_, err = ws.Read(cctx)
				if st := websocket.CloseStatus(err); st != -1 {
					s.tally.code(kind, fmt.Sprintf("close %d", st), []string{"close 1009"}, "websocket")
				} else {
					s.tally.code(kind, "transport", nil, fmt.Sprint(err))
				}
			}
			ws.Conn().CloseNow()
			cancel()
			continue
		}
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(cctx, http.MethodPost, "http://"+s.gateway+"/rpc", bytes.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			s.tally.code(kind, "transport", nil, err.Error())
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		var r struct {
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &r); r.Error == nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
			s.tally.code(kind, fmt.Sprintf("HTTP %d", resp.StatusCode), nil, strings.TrimSpace(string(body)))
			continue
		}
		s.tally.code(kind, fmt.Sprint(r.Error.Code), []string{"4013"}, "POST")
	}
	return nil
}

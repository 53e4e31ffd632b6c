package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// replay measures session.resume at its heaviest: a session with many
// open approval requests (batches waiting on a client that never answers)
// and a full event log, resumed on a new connection from last_seen 0,
// against one tools.call.
func replay(ctx context.Context, e *env, row *Row) error {
	nOpen, nEvents := e.sizes.ReplayOpen, e.sizes.ReplayEvents
	row.Title = "session.resume (new connection, last_seen 0) of a session with open approval requests and a full event log vs one tools.call entity_get"
	st, err := Start(Options{})
	if err != nil {
		return err
	}
	defer st.Close()

	// The session's client declares approval and never answers one.
	owner, err := DialConn(ctx, st.Gateway, jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsCall() {
				<-ctx.Done() // never answers while the connection lives
				return nil, ctx.Err()
			}
			return nil, nil // events
		}),
		MaxConcurrent: nOpen + 64,
	})
	if err != nil {
		return err
	}
	defer owner.Close()
	sess, err := createSession(ctx, owner, obj{"capabilities": obj{"server_requests": []string{gatewayv1.MethodApproval}}, "approval_policy": "destructive"})
	if err != nil {
		return err
	}
	control, err := Dial(ctx, st.Gateway, nil)
	if err != nil {
		return err
	}
	defer control.Close()
	doc, err := createDocument(ctx, control)
	if err != nil {
		return err
	}
	handle, err := createLine(ctx, control, doc)
	if err != nil {
		return err
	}

	// nOpen batches wait for approval of a destructive step, from drivers
	// of as many as the gateway serves at once on one connection.
	const perDriver = gateway.DefaultMaxInFlight
	var drivers []*Client
	defer func() {
		for _, d := range drivers {
			d.Close()
		}
	}()
	for range (nOpen + perDriver - 1) / perDriver {
		d, err := Dial(ctx, st.Gateway, nil)
		if err != nil {
			return err
		}
		drivers = append(drivers, d)
	}
	bctx, cancelBatches := context.WithCancel(ctx)
	var waiting sync.WaitGroup
	defer func() {
		cancelBatches()
		waiting.Wait()
	}()
	for i := range nOpen {
		params := mustJSON(obj{"session_id": sess.SessionID, "document_id": doc, "steps": []obj{
			{"tool": enginev1.ToolEntityCreatePoint, "args": obj{"x": i, "y": 0}, "bind": "p"},
			step(enginev1.ToolEntityDeleteMany, obj{"handles": []string{"$p"}}), // destructive, as entity_delete is
		}})
		waiting.Go(func() { drivers[i/perDriver].CallRaw(bctx, gatewayv1.MethodCadBatch, params) })
	}
	events := func() (eventsResult, error) {
		var r eventsResult
		err := control.Call(ctx, gatewayv1.MethodSessionEventsSince, obj{"session_id": sess.SessionID, "last_seen": 0}, &r)
		return r, err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := events()
		if err != nil {
			return fmt.Errorf("session.events.since: %w", err)
		}
		if len(r.OpenRequests) == nOpen {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d approval requests open after a minute, want %d", len(r.OpenRequests), nOpen)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Fill the event log with batch.progress events from read-only
	// batches of the session.
	steps := 100
	if nEvents < 200 {
		steps = 10
	}
	reads := make([]obj, steps)
	for i := range reads {
		reads[i] = step(enginev1.ToolEntityGet, obj{"handle": handle})
	}
	readBatch := mustJSON(obj{"session_id": sess.SessionID, "document_id": doc, "steps": reads})
	for {
		r, err := events()
		if err != nil {
			return fmt.Errorf("session.events.since: %w", err)
		}
		if r.LatestSeq >= int64(nEvents) {
			break
		}
		if err := runBatch(ctx, control, readBatch); err != nil {
			return err
		}
	}

	resumeParams := mustJSON(obj{"session_id": sess.SessionID, "resume_token": sess.ResumeToken, "last_seen": 0})
	var (
		conn    *Client // the connection of the latest resume
		last    json.RawMessage
		checked resumeResult
		size    int
	)
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	verify := func() error {
		if last == nil {
			return nil
		}
		var r resumeResult
		if err := json.Unmarshal(last, &r); err != nil {
			return fmt.Errorf("session.resume: %w", err)
		}
		if len(r.OpenRequests) != nOpen || len(r.Events) < min(nEvents, 512) {
			return fmt.Errorf("session.resume returned %d open requests and %d events, want %d and %d", len(r.OpenRequests), len(r.Events), nOpen, min(nEvents, 512))
		}
		checked, size, last = r, len(last), nil
		return nil
	}
	subject := &contender{
		name: gatewayv1.MethodSessionResume, unit: "call", perBlock: e.sizes.ReplayOps,
		prep: func(ctx context.Context, _ int) error {
			if err := verify(); err != nil {
				return err
			}
			if conn != nil {
				conn.Close()
			}
			var err error
			conn, err = Dial(ctx, st.Gateway, nil)
			return err
		},
		op: func(ctx context.Context, _ int) error {
			raw, err := conn.CallRaw(ctx, gatewayv1.MethodSessionResume, resumeParams)
			last = raw
			return err
		},
	}
	get := mustJSON(obj{"document_id": doc, "tool": enginev1.ToolEntityGet, "args": obj{"handle": handle}})
	baseline := &contender{
		name: "tools.call entity_get", unit: "call", perBlock: e.sizes.ReplayOps,
		op: func(ctx context.Context, _ int) error {
			raw, err := control.CallRaw(ctx, gatewayv1.MethodToolsCall, get)
			if err != nil {
				return err
			}
			return checkOK("tools.call entity_get", raw)
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.ReplayRounds, 2, baseline, subject)
	if err == nil {
		err = verify()
	}
	var again time.Duration
	if err == nil {
		// The same resume on the connection that already holds the session:
		// no Session stream to open.
		again, err = p50Of(ctx, max(e.sizes.ReplayOps, 5), func(ctx context.Context) error {
			_, err := conn.CallRaw(ctx, gatewayv1.MethodSessionResume, resumeParams)
			return err
		})
	}
	// Withdraw the approvals; the waiting batches end cancelled.
	var interrupted struct {
		Interrupted bool `json:"interrupted"`
	}
	if ierr := control.Call(ctx, gatewayv1.MethodSessionInterrupt, obj{"session_id": sess.SessionID}, &interrupted); ierr != nil || !interrupted.Interrupted {
		err = errors.Join(err, fmt.Errorf("session.interrupt: interrupted %v, %v", interrupted.Interrupted, ierr))
	}
	if err != nil {
		return err
	}
	row.Size = fmt.Sprintf("%d open requests, %d events returned (latest seq %d), %d resumes", len(checked.OpenRequests), len(checked.Events), checked.LatestSeq, s.N)
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-ratio", "p50 latency, session.resume ÷ tools.call (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<", 5}),
	}
	row.Notes = []string{
		fmt.Sprintf("One resume result is %s of JSON. Each resume dials a new WebSocket first (untimed) and takes the session over; the session keeps its last 512 events.", bytesSize(size)),
		fmt.Sprintf("Repeated on a connection that already holds the session (its Session stream to the engine is open), a resume takes %s (p50); the first call on a new connection also opens that stream.", fmtDur(again)),
		"The open requests are approvals of entity_delete_many steps (approval_policy destructive) of batches still waiting; the events are batch.progress of the session's own batches. session.interrupt withdraws them afterwards.",
	}
	return nil
}

// eventsResult is the part of a session.events.since result the row reads.
type eventsResult struct {
	LatestSeq    int64             `json:"latest_seq"`
	OpenRequests []json.RawMessage `json:"open_requests"`
}

// resumeResult is the part of a session.resume result the row reads. Its
// lists count the elements, each of which must be an object, without
// keeping them: the check of every result leaves no garbage for the timed
// resumes' collections.
type resumeResult struct {
	LatestSeq    int64      `json:"latest_seq"`
	Truncated    bool       `json:"truncated"`
	Events       []struct{} `json:"events"`
	OpenRequests []struct{} `json:"open_requests"`
}

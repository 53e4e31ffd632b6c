package cadengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Server requests across engines.
//
// A batch runs on the engine that holds its document; its session may be
// owned by another engine (the client's connection reached that one
// first). The holder does not take the session over: it runs the batch
// for the session as stored (principal, capabilities, approval policy),
// and asks its client through the shared store (store.Requests): it opens
// the request there, the owner — told by LISTEN/NOTIFY, ids only — relays
// it to the session's streams as one of its open requests, and writes the
// client's first answer back; the holder, told in turn, reads it. An
// engine that takes the session over relays the requests still open in
// the store (sessions.takeOver). A withdrawal by either side (the step's
// end, the owner's interrupt, close or stop) closes the request in the
// store and is told to the other. The store's conditional update makes
// the first answer or withdrawal the only one, so an answer reaches the
// waiting step exactly once.
//
// The batch's own events (batch.progress, operation.finished) go to the
// owner through the store as well (handoffs). Not relayed:
// session.interrupt of the owner for the holder's running batch (its open
// request is withdrawn, which fails the step).

// remoteRequests is an engine's side of requests across engines: the
// requests it asked and waits for, and the relay of those asked of the
// sessions it owns.
type remoteRequests struct {
	st   store.Requests
	self string // the engine's id
	ss   *sessions
	log  *slog.Logger

	mu      sync.Mutex               // guards waiting
	waiting map[string]chan struct{} // the requests this engine asked, by id; closed when they close
}

// newRemoteRequests is the requests across engines of the engine self
// on the sessions' shared store, or nil when it does not carry them.
func newRemoteRequests(ss *sessions, self string, log *slog.Logger) *remoteRequests {
	st, ok := ss.shared.(store.Requests)
	if !ok {
		return nil
	}
	return &remoteRequests{st: st, self: self, ss: ss, log: log, waiting: map[string]chan struct{}{}}
}

// remotePoll is how often a waiting step tells its open request again and
// reads it again, and an owner reads again the requests it relays, in case
// a notification was lost (LISTEN reconnects miss what happened meanwhile).
const remotePoll = 2 * time.Second

// watch relays the changes of requests until ctx ends, and every
// remotePoll reads again the relayed requests still open here, in case a
// withdrawal was not told (the asker tells an open request again at the
// same pace).
func (rr *remoteRequests) watch(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rr.st.WatchRequests(ctx, rr.changed)
	}()
	tick := time.NewTicker(remotePoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			<-done
			return
		case <-tick.C:
			rr.recheck(ctx)
		}
	}
}

// recheck withdraws the relayed requests of the sessions owned here that
// are no longer open in the store: one read of a session's open requests,
// and one more of each that is not among them.
func (rr *remoteRequests) recheck(ctx context.Context) {
	for _, s := range rr.ss.all() {
		ids := s.relayedIDs()
		if len(ids) == 0 {
			continue
		}
		open, err := rr.st.OpenRequests(ctx, s.info.GetSessionId())
		if err != nil {
			return // the store is unreachable: next time
		}
		stillOpen := make(map[string]bool, len(open))
		for _, r := range open {
			stillOpen[r.ID] = true
		}
		for _, id := range ids {
			if stillOpen[id] {
				continue
			}
			r, err := rr.st.LoadRequest(ctx, id)
			if err != nil {
				return // the store is unreachable: next time
			}
			switch {
			case r == nil: // its asker is done with it
				s.withdrawn(id, enginev1.CancelReason_CANCEL_REASON_RESOLVED)
			case r.State == store.RequestWithdrawn:
				s.withdrawn(id, enginev1.CancelReason(r.Reason))
			}
		}
	}
}

// changed handles a change of a request: one opened for a session this
// engine owns is relayed to it; one closed wakes the step waiting for it
// here, and a withdrawal is told to the streams it was relayed to (even if
// the session's lease lapsed meanwhile).
func (rr *remoteRequests) changed(ch store.RequestChange) {
	switch ch.State {
	case store.RequestOpen:
		if s := rr.ss.ownedHere(ch.SessionID); s != nil {
			ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
			defer cancel()
			r, err := rr.st.LoadRequest(ctx, ch.ID)
			if err != nil {
				rr.log.Error("read a request to relay", "id", ch.ID, "error", err)
				return
			}
			if r != nil && r.State == store.RequestOpen {
				rr.relay(s, r)
			}
		}
	default:
		rr.mu.Lock()
		wake := rr.waiting[ch.ID]
		delete(rr.waiting, ch.ID)
		rr.mu.Unlock()
		if wake != nil {
			close(wake)
		}
		if s := rr.ss.loaded(ch.SessionID); s != nil && ch.State == store.RequestWithdrawn {
			s.withdrawn(ch.ID, enginev1.CancelReason(ch.Reason)) // if relayed here
		}
	}
}

// withdrawAll withdraws every request this engine asked and still waits
// for (a stop): the steps waiting for them end, and the sessions' owners
// tell their clients.
func (rr *remoteRequests) withdrawAll(reason enginev1.CancelReason) {
	rr.mu.Lock()
	ids := make([]string, 0, len(rr.waiting))
	for id := range rr.waiting {
		ids = append(ids, id)
	}
	rr.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
	defer cancel()
	for _, id := range ids {
		if _, err := rr.st.WithdrawRequest(ctx, id, int32(reason)); err != nil {
			rr.log.Warn("withdraw a request", "id", id, "error", err)
		}
	}
}

// relay makes r, asked by another engine, one of the open requests of
// s: its streams receive it, and the first answer, or a withdrawal here,
// goes back through the store.
func (rr *remoteRequests) relay(s *session, r *store.RequestRecord) {
	frame := new(enginev1.ServerRequest)
	if err := proto.Unmarshal(r.Frame, frame); err != nil {
		rr.log.Error("unreadable request to relay", "id", r.ID, "error", err)
		return
	}
	id := r.ID
	s.openRelayed(frame, r.Params, &remoteLink{
		answer: func(a *enginev1.ServerRequestAnswer) {
			ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
			defer cancel()
			data, err := proto.Marshal(a)
			if err == nil {
				_, err = rr.st.AnswerRequest(ctx, id, data)
			}
			if err != nil {
				rr.log.Error("answer a relayed request", "id", id, "error", err)
			}
		},
		withdraw: func(reason enginev1.CancelReason) {
			ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
			defer cancel()
			if _, err := rr.st.WithdrawRequest(ctx, id, int32(reason)); err != nil {
				rr.log.Error("withdraw a relayed request", "id", id, "error", err)
			}
		},
	})
}

// relayOpen relays the requests of s still open in the store, for an
// engine that just took s over.
func (rr *remoteRequests) relayOpen(ctx context.Context, s *session) error {
	open, err := rr.st.OpenRequests(ctx, s.info.GetSessionId())
	if err != nil {
		return err
	}
	for i := range open {
		rr.relay(s, &open[i])
	}
	return nil
}

// ask is a step's wait for the client of a session another engine owns
// (info, as stored): the request is opened in the store and answered, or
// withdrawn, there. It fails with errNotDeclared for a method the session
// did not declare, and errWithdrawn when ctx ends first (the request is
// withdrawn with reason) or the owner withdrew it.
func (rr *remoteRequests) ask(ctx context.Context, info *enginev1.Session, frame *enginev1.ServerRequest, params proto.Message, reason func() enginev1.CancelReason) (*enginev1.ServerRequestAnswer, error) {
	if !slices.Contains(info.GetCapabilities().GetServerRequests(), frame.GetMethod()) {
		return nil, errNotDeclared
	}
	frame.Id = "srq-" + randomHex(16)
	setSessionID(params, info.GetSessionId())
	data, err := contract.Marshal(params)
	if err != nil {
		return nil, err
	}
	encoded, err := proto.Marshal(frame)
	if err != nil {
		return nil, err
	}
	id := frame.Id
	wake := make(chan struct{})
	rr.mu.Lock()
	rr.waiting[id] = wake
	rr.mu.Unlock()
	defer func() {
		rr.mu.Lock()
		delete(rr.waiting, id)
		rr.mu.Unlock()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseTimeout)
		defer cancel()
		if err := rr.st.DeleteRequest(dctx, id); err != nil {
			rr.log.Warn("delete a request", "id", id, "error", err)
		}
	}()
	rec := &store.RequestRecord{ID: id, SessionID: info.GetSessionId(), Asker: rr.self, Frame: encoded, Params: data}
	if err := rr.st.OpenRequest(ctx, rec); err != nil {
		return nil, fmt.Errorf("open request %s: %w", id, err)
	}
	poll := time.NewTicker(remotePoll)
	defer poll.Stop()
	for {
		select {
		case <-wake:
		case <-poll.C:
			if err := rr.st.OpenRequest(ctx, rec); err != nil { // tell it again
				rr.log.Warn("tell a request again", "id", id, "error", err)
			}
		case <-ctx.Done():
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseTimeout)
			_, err := rr.st.WithdrawRequest(wctx, id, int32(reason()))
			cancel()
			if err != nil {
				rr.log.Warn("withdraw a request", "id", id, "error", err)
			}
			return nil, errWithdrawn
		}
		r, err := rr.st.LoadRequest(ctx, id)
		switch {
		case err != nil && ctx.Err() == nil:
			rr.log.Warn("read a request", "id", id, "error", err)
		case r == nil || r.State == store.RequestWithdrawn:
			return nil, errWithdrawn
		case r.State == store.RequestAnswered:
			a := new(enginev1.ServerRequestAnswer)
			if err := proto.Unmarshal(r.Answer, a); err != nil {
				return nil, fmt.Errorf("answer to %s: %w", id, err)
			}
			return a, nil
		}
	}
}

// remoteCaller is the caller of a tool call or batch whose session
// another live engine owns: the session as stored, its client reached
// through the store.
func (s *Server) remoteCaller(ctx context.Context, st *streamState, id string) (engine.Caller, error) {
	c := engine.Caller{Principal: st.principal}
	data, err := s.sessions.shared.LoadSession(ctx, id)
	if err != nil {
		return c, fmt.Errorf("load session %s: %w", id, err)
	}
	if data == nil {
		return c, errSessionNotFound
	}
	info, _, err := decodeSession(data)
	if err != nil {
		return c, fmt.Errorf("load session %s: %w", id, err)
	}
	if info.GetPrincipal() != st.principal {
		return c, errSessionNotFound
	}
	rr := s.sessions.remote
	c.Client = sessionClient{server: s, ask: func(ctx context.Context, req *enginev1.ServerRequest, params proto.Message, reason func() enginev1.CancelReason) (*enginev1.ServerRequestAnswer, error) {
		return rr.ask(ctx, info, req, params, reason)
	}}
	c.ApprovalPolicy = info.GetApprovalPolicy()
	return c, nil
}

// ownedElsewhere reports whether err is a session's lease held by another
// engine (NOT_LEASE_HOLDER from taking it over).
func ownedElsewhere(err error) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Reason() == enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER
}

// remoteLink is how a relayed request goes back to the engine that asked
// it: the first answer, or a withdrawal here.
type remoteLink struct {
	answer   func(*enginev1.ServerRequestAnswer)
	withdraw func(enginev1.CancelReason)
}

package cadengine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Events across engines.
//
// A batch that runs on its document's holder for a session another engine
// owns (remoteCaller) emits its events (batch.progress,
// operation.finished) for a log it does not own. The holder hands them to
// the owner through the shared store (store.Handoffs): it queues them, and
// one writer goroutine stores what is queued, of every such call, in one
// round trip (a handoff per call and write, its events in the order they
// were emitted), while the next events queue behind it; a call answers
// once its events are stored (handoffCall.settle). The store tells the
// engines of the sessions handed to, ids only; the owner reads the
// session's handoffs and emits their events into the session's log
// (eventLog.emitHanded), which gives them their seqs, writes them and
// sends them to the client as its own. The append that writes a
// handoff's events also deletes the handoff, in its transaction and under
// the session's fence, so a handoff is emitted once: an owner that dies
// or loses the session before its append commits leaves the handoff in
// the store, and the engine that takes the session over emits it
// (sessions.takeOver); an owner's copy that was fenced never wrote it.
// An engine skips the handoffs it has queued and not yet written
// (session.claimed), or just written (session.written), so a
// notification told twice changes nothing.
//
// Not done: a notification lost while LISTEN reconnects leaves its
// handoff in the store until the session's next handoff or takeover.

// handoffs is an engine's side of events across engines: the events of
// calls run here for sessions owned elsewhere, queued to be handed over,
// and the emission of those handed to the sessions owned here.
type handoffs struct {
	st  store.Handoffs
	ss  *sessions
	log *slog.Logger

	mu      sync.Mutex // guards pending and the handoffCalls' counts
	pending []pendingHandoff
	w       *writer // flushes pending
}

// pendingHandoff is an event of a call, waiting to be handed over.
type pendingHandoff struct {
	call *handoffCall
	ev   store.EventRecord
}

// handoffCall is one call run here for a session owned elsewhere.
type handoffCall struct {
	h         *handoffs
	sessionID string
	// issued counts the call's events queued, handled those stored (or
	// given up); progress is closed when handled grows. Guarded by h.mu.
	issued, handled int
	progress        chan struct{}
}

// newHandoffs is the events across engines of the sessions' shared
// store, or nil when it does not carry them. Its writer runs until close.
func newHandoffs(ss *sessions, log *slog.Logger) *handoffs {
	st, ok := ss.shared.(store.Handoffs)
	if !ok {
		return nil
	}
	h := &handoffs{st: st, ss: ss, log: log}
	h.w = startWriter(h.flush)
	return h
}

// call starts handing over the events of a call for session id.
func (h *handoffs) call(id string) *handoffCall {
	return &handoffCall{h: h, sessionID: id}
}

// emit queues an event of the call (engine.Caller.Events).
func (c *handoffCall) emit(typ string, payload proto.Message) {
	data, err := contract.Marshal(payload)
	if err != nil {
		return // payloads are engine-made; encoding cannot fail
	}
	h := c.h
	h.mu.Lock()
	c.issued++
	h.pending = append(h.pending, pendingHandoff{call: c, ev: store.EventRecord{Type: typ, Payload: data}})
	h.mu.Unlock()
	h.w.poke()
}

// settle waits until the call's events are stored (or given up), for at
// most leaseTimeout.
func (c *handoffCall) settle() {
	h := c.h
	timeout := time.NewTimer(leaseTimeout)
	defer timeout.Stop()
	for {
		h.mu.Lock()
		if c.handled >= c.issued {
			h.mu.Unlock()
			return
		}
		if c.progress == nil {
			c.progress = make(chan struct{})
		}
		progress := c.progress
		h.mu.Unlock()
		select {
		case <-progress:
		case <-timeout.C:
			h.log.Warn("events not handed over in time", "session_id", c.sessionID)
			return
		}
	}
}

// flush stores every queued event, a handoff per call, in one write,
// retried after a failure until it succeeds or the engine stops.
func (h *handoffs) flush() {
	h.mu.Lock()
	queued := h.pending
	h.pending = nil
	h.mu.Unlock()
	if len(queued) == 0 {
		return
	}
	var (
		batch []store.EventHandoff
		calls []*handoffCall
	)
	for _, p := range queued {
		i := len(calls) - 1
		for i >= 0 && calls[i] != p.call {
			i--
		}
		if i < 0 {
			i = len(calls)
			calls = append(calls, p.call)
			batch = append(batch, store.EventHandoff{ID: "eh-" + randomHex(12), SessionID: p.call.sessionID})
		}
		batch[i].Events = append(batch[i].Events, p.ev)
	}
	err := h.w.retry(func(ctx context.Context) error {
		return h.st.HandOverEvents(ctx, batch)
	}, func(err error) bool {
		h.log.Warn("hand over session events", "handoffs", len(batch), "error", err)
		return true
	})
	if err != nil {
		h.log.Error("session events not handed over: the engine stops", "handoffs", len(batch), "error", err)
	}
	h.handled(calls, batch)
}

// handled counts the events of batch as handled for their calls.
func (h *handoffs) handled(calls []*handoffCall, batch []store.EventHandoff) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, c := range calls {
		c.handled += len(batch[i].Events)
		if c.progress != nil {
			close(c.progress)
			c.progress = nil
		}
	}
}

// close hands over what is queued and stops the writer.
func (h *handoffs) close() {
	h.w.close()
}

// watch emits, until ctx ends, the handoffs to the sessions owned here as
// the store tells them.
func (h *handoffs) watch(ctx context.Context) {
	h.st.WatchHandoffs(ctx, func(id string) {
		if s := h.ss.ownedHere(id); s != nil {
			h.claim(s)
		}
	})
}

// claim emits into the log of s, owned here, the events of its handoffs
// in the store that this engine has not emitted yet, handoff after
// handoff in the order they were stored. Claims of a session run one at
// a time (s.claimMu, held while reading); the event log's writer never
// waits for a read (unclaim takes only s.handoffMu).
//
// A read may still see a handoff whose append committed meanwhile: it is
// claimed or written then, and skipped. written is cleared when the next
// claim starts, before it reads: by then every append it holds had
// committed, so that read cannot see them.
func (h *handoffs) claim(s *session) {
	s.claimMu.Lock()
	defer s.claimMu.Unlock()
	s.handoffMu.Lock()
	s.written = nil
	s.handoffMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
	defer cancel()
	stored, err := h.st.HandedOverEvents(ctx, s.info.GetSessionId())
	if err != nil {
		h.log.Error("read the events handed over to a session", "session_id", s.info.GetSessionId(), "error", err)
		return
	}
	for _, ho := range stored {
		s.handoffMu.Lock()
		_, queued := s.claimed[ho.ID]
		_, done := s.written[ho.ID]
		fresh := !queued && !done && len(ho.Events) > 0
		if fresh {
			if s.claimed == nil {
				s.claimed = map[string]struct{}{}
			}
			s.claimed[ho.ID] = struct{}{}
		}
		s.handoffMu.Unlock()
		if fresh && !h.ss.events.emitHanded(s, ho) {
			s.unclaim(false, []string{ho.ID})
			return // the session is no longer owned here
		}
	}
}

// unclaim forgets claimed handoffs of s whose append is done: written
// (and so deleted from the store; kept as written until the next claim
// starts) or given up (left for the session's next owner).
func (s *session) unclaim(written bool, ids []string) {
	s.handoffMu.Lock()
	defer s.handoffMu.Unlock()
	for _, id := range ids {
		delete(s.claimed, id)
		if written {
			if s.written == nil {
				s.written = map[string]struct{}{}
			}
			s.written[id] = struct{}{}
		}
	}
}

// emitHanded gives the events of ho, handed over to s by another engine,
// their seqs and queues them together, the last one carrying the
// handoff's id, so that the append that writes them deletes it. It
// reports false, queueing nothing, when the engine does not hold the
// session's lease.
func (el *eventLog) emitHanded(s *session, ho store.EventHandoff) bool {
	return el.queue(s, ho.ID, ho.Events...)
}

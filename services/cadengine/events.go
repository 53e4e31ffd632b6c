package cadengine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Sessions' event logs on a shared store.
//
// On a store of one engine a session's events live in its ring in memory
// and reach its streams as they are emitted (session.emit): a restart
// changes the epoch, and a client resuming with an older cursor is told
// truncated. On a shared store a session may move to another engine at any
// time (its owner died, or let it go), and the new owner must replay what
// the client has not seen and go on with the same seq. So there an event
// is durable before any stream sees it: emitting hands it a seq and queues
// it (no store write on the emitting call's path); the engine's eventLog
// writes what is queued, of every session, in one fenced append
// (store.Events, one round trip), and only then puts the events in their
// sessions' rings and sends them. While one append is in flight the next
// events queue up behind it, so a batch of many steps costs a few appends,
// not one per event. A call of a session answers only once the events it
// emitted are written and sent (eventLog.settle), so its client still sees
// them before its result, and an acknowledged call's events survive the
// engine.
//
// The owner's seq is exact: every event a client saw is in the store, so
// a new owner goes on from the newest stored seq (sessions.takeOver). The
// append is fenced by the session's lease: events of an owner that lost
// the session are never written, nor sent.
//
// The store may commit appends lazily (PostgreSQL: synchronous_commit off,
// so that a batch's events do not double its fsyncs): they outlive any
// engine, not a crash of the database server, which may lose the newest.
// For that case the session's saved seq (savedSession.LatestSeq, written
// synchronously) stays a step ahead: no event is sent past the saved seq
// plus seqSaveEvery, the writer saving the seq again first (once every
// seqSaveEvery events). A new owner that is told the log lost its newest
// appends goes on past that bound, as after a restart, and tells resuming
// clients truncated: seq never goes back.

// eventLog writes sessions' events to a shared store, in order, and
// delivers them once written. One goroutine (run) writes; close waits for
// it, once everything queued is written.
type eventLog struct {
	st     store.Events
	leases sessionLeases
	log    *slog.Logger

	mu      sync.Mutex // guards pending
	pending []pendingEvent
	w       *writer // flushes pending
}

// pendingEvent is an emitted event waiting to be written, under the lease
// its session had when it was emitted.
type pendingEvent struct {
	s     *session
	ev    *enginev1.Event
	lease store.Lease
	// handoff, on the last event of a handoff from another engine
	// (emitHanded), is its id: the append deletes it.
	handoff string
}

// retryPause is how long the writer waits after a failed append before it
// tries again.
const retryPause = 200 * time.Millisecond

func newEventLog(st store.Events, leases sessionLeases, log *slog.Logger) *eventLog {
	el := &eventLog{st: st, leases: leases, log: log}
	el.w = startWriter(el.flush)
	return el
}

// emit gives s's event its seq and queues it for writing. A session whose
// lease the engine does not hold (a stale copy of another engine's session)
// emits nothing: its owner does.
func (el *eventLog) emit(s *session, typ string, payload proto.Message) {
	data, err := contract.Marshal(payload)
	if err != nil {
		return // payloads are engine-made; encoding cannot fail
	}
	el.queue(s, "", store.EventRecord{Type: typ, Payload: data})
}

// queue gives recs, events of s, their seqs and queues them together for
// writing, the last one carrying handoff (if not ""), the id of the
// handoff they come from. It reports false, queueing nothing, when the
// engine does not hold the session's lease.
func (el *eventLog) queue(s *session, handoff string, recs ...store.EventRecord) bool {
	lease, ok := el.leases.Lease(sessionKey(s.info.GetSessionId()))
	if !ok {
		return false
	}
	// s.mu held while queueing keeps the queue in seq order.
	s.mu.Lock()
	el.mu.Lock()
	for i, r := range recs {
		s.issued++
		p := pendingEvent{s: s, ev: &enginev1.Event{SessionId: s.info.SessionId, Seq: s.issued, Type: r.Type, PayloadJson: r.Payload}, lease: lease}
		if i == len(recs)-1 {
			p.handoff = handoff
		}
		el.pending = append(el.pending, p)
	}
	el.mu.Unlock()
	s.mu.Unlock()
	el.w.poke()
	return true
}

// flush writes every queued event, grouped by session, in one append, and
// delivers them; a failed append is retried until it succeeds, or its
// sessions' leases are gone, or the log closes.
func (el *eventLog) flush() {
	el.mu.Lock()
	queued := el.pending
	el.pending = nil
	el.mu.Unlock()
	if len(queued) == 0 {
		return
	}
	// One append per session (and lease it was emitted under), in the
	// order of the queue; evs[i] are the events of appends[i].
	var (
		appends []store.EventAppend
		owners  []*session
		evs     [][]*enginev1.Event
	)
	for _, p := range queued {
		i := len(appends) - 1
		for i >= 0 && (owners[i] != p.s || appends[i].Lease != p.lease) {
			i--
		}
		if i < 0 {
			i = len(appends)
			appends = append(appends, store.EventAppend{Lease: p.lease, SessionID: p.ev.SessionId, Keep: eventRing})
			owners, evs = append(owners, p.s), append(evs, nil)
		}
		appends[i].Events = append(appends[i].Events, store.EventRecord{Seq: p.ev.Seq, Type: p.ev.Type, Payload: p.ev.PayloadJson})
		evs[i] = append(evs[i], p.ev)
		if p.handoff != "" {
			appends[i].Handoffs = append(appends[i].Handoffs, p.handoff)
		}
	}
	fenced, err := el.append(appends)
	if err != nil {
		el.log.Error("write session events", "sessions", len(appends), "error", err)
	}
	written := make([]bool, len(appends))
	for i := range written {
		written[i] = err == nil
	}
	for _, i := range fenced {
		written[i] = false
	}
	for i, s := range owners {
		if written[i] {
			s.reserve(evs[i][len(evs[i])-1].Seq)
		}
		s.deliver(evs[i], written[i])
		if len(appends[i].Handoffs) > 0 {
			s.unclaim(written[i], appends[i].Handoffs)
		}
	}
}

// reserve saves the session's seq, synchronously, before an event past
// the saved seq and seqSaveEvery is sent (see above).
func (s *session) reserve(seq int64) {
	s.mu.Lock()
	due := seq > s.saved+seqSaveEvery
	s.mu.Unlock()
	if due {
		s.persist() // saves issued, at least seq
	}
}

// append stores appends, retrying after a failure while any of their
// leases is still held and the log is open.
func (el *eventLog) append(appends []store.EventAppend) ([]int, error) {
	var fenced []int
	err := el.w.retry(func(ctx context.Context) (err error) {
		fenced, err = el.st.AppendEvents(ctx, appends)
		return err
	}, func(err error) bool {
		held := false
		for _, a := range appends {
			held = held || el.leases.HoldsLease(a.Lease.DocumentID)
		}
		if held {
			el.log.Warn("write session events; retrying", "error", err)
		}
		return held
	})
	if err != nil {
		return nil, err
	}
	return fenced, nil
}

// settle waits until the events s has emitted so far are written and
// sent (or given up), for at most leaseTimeout.
func (el *eventLog) settle(s *session) {
	s.mu.Lock()
	want := s.issued
	s.mu.Unlock()
	timeout := time.NewTimer(leaseTimeout)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		if s.handled >= want {
			s.mu.Unlock()
			return
		}
		progress := s.progressLocked()
		s.mu.Unlock()
		select {
		case <-progress:
		case <-timeout.C:
			el.log.Warn("session events not written in time", "session_id", s.info.GetSessionId())
			return
		}
	}
}

// close writes what is queued and stops the writer; the engine closes
// (and lets go of the sessions' leases) after it.
func (el *eventLog) close() {
	el.w.close()
}

// writer is the one goroutine of a queue that writes what is queued
// (flush): poke wakes it, and close makes it write what is left and stop.
type writer struct {
	wake   chan struct{} // 1-buffered: something is queued
	stop   chan struct{} // closed by close
	done   chan struct{} // closed when the goroutine returns
	closed sync.Once
}

func startWriter(flush func()) *writer {
	w := &writer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.wake:
				flush()
			case <-w.stop:
				flush()
				return
			}
		}
	}()
	return w
}

// retry runs try, each time with a timeout of leaseTimeout, until it
// succeeds, again (told its error) reports false, or the writer stops,
// pausing retryPause between tries; it returns try's last error.
func (w *writer) retry(try func(ctx context.Context) error, again func(error) bool) error {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
		err := try(ctx)
		cancel()
		if err == nil || !again(err) {
			return err
		}
		select {
		case <-w.stop:
			return err
		case <-time.After(retryPause):
		}
	}
}

// poke tells the writer that something is queued.
func (w *writer) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close writes what is queued and waits for the writer to stop.
func (w *writer) close() {
	w.closed.Do(func() { close(w.stop) })
	<-w.done
}

// deliver puts written events (ascending seq) in the session's ring and
// sends them to its streams; events that were not written (the session
// moved to another engine) are dropped. Either way waiters of settle learn
// that they are handled.
func (s *session) deliver(evs []*enginev1.Event, written bool) {
	if len(evs) == 0 {
		return
	}
	var logged []loggedEvent
	if written {
		logged = make([]loggedEvent, len(evs))
		for i, ev := range evs {
			logged[i] = logEvent(ev)
		}
	}
	s.mu.Lock()
	var streams []*streamState
	if written {
		s.events = append(s.events, logged...)
		if len(s.events) > eventRing {
			s.events = s.events[len(s.events)-eventRing:]
		}
		s.latest = evs[len(evs)-1].Seq
		streams = s.streamsLocked()
	}
	s.mu.Unlock()
	for _, ev := range evs {
		sendAll(streams, &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: ev}})
	}
	s.mu.Lock()
	s.handled = max(s.handled, evs[len(evs)-1].Seq)
	close(s.progressLocked())
	s.progress = nil
	s.mu.Unlock()
}

// progressLocked is the channel that the next delivery closes.
func (s *session) progressLocked() chan struct{} {
	if s.progress == nil {
		s.progress = make(chan struct{})
	}
	return s.progress
}

// restoreEvents fills the ring of s, just read from a shared store, with
// its stored events: seq goes on from the newest one. A session whose log
// lost its newest appends (lost), or that emitted events whose log is gone
// (stored before logs were), keeps no ring and goes on past its saved seq,
// as after a restart: a client resuming with a cursor before it is told
// truncated.
func (s *session) restoreEvents(stored []store.EventRecord, lost bool) {
	past := lost || len(stored) == 0 && s.latest > 0
	if len(stored) > 0 {
		s.latest = max(s.latest, stored[len(stored)-1].Seq)
	}
	if past {
		s.latest += seqSaveEvery
	} else {
		for _, r := range stored[max(0, len(stored)-eventRing):] {
			s.events = append(s.events, logEvent(&enginev1.Event{SessionId: s.info.GetSessionId(), Seq: r.Seq, Type: r.Type, PayloadJson: r.Payload}))
		}
	}
	s.issued, s.handled = s.latest, s.latest
}

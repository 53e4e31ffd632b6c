package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// Several engines on one store.
//
// An engine whose Options.Sharing is set shares its store with other
// engines (DESIGN §7): it serves a document only under the document's
// lease (store.Leases), which it takes on the first call for the document
// that reaches it — any call, read or write, so that what it serves is
// what was last committed — and keeps, renewing it every ttl/3, until the
// lease is lost or the engine closes (Close releases every lease and
// deregisters). Taking a lease reads the document from the store afresh:
// the previous holder may have committed since this engine last saw it.
//
// Every commit of a document carries the lease the engine took it under
// (document.lease): the store applies the commit only while that lease is
// still the document's, in the commit's own transaction (store.ErrFenced
// otherwise), so an engine that was paused or cut off while another took
// over never commits afterwards. A fenced commit, or a lost renewal, drops
// the engine's copy of the document; the call is told LEASE_LOST (its
// outcome is unknown to the caller, who reconciles with operations.get).
//
// A call for a document that another engine holds is refused
// NOT_LEASE_HOLDER with the holder's advertised address, for the gateway
// to resend it there; a holder that is not a live registered engine is
// named with an empty address and the time until its lease expires, after
// which the next call takes the document over on whichever engine gets it.
//
// Operations: a retry of an operation whose id this engine has not seen
// reads the journal record from the store (the previous holder may have
// run it), once the engine holds the document's lease; a record still
// running then belongs to a holder that is gone, and becomes interrupted.
//
// Without Sharing (one engine on its own store: SQLite, memory) the
// engine takes no leases at all: it holds every document, and commits
// unfenced, at no cost.

// Sharing configures an engine that shares its store with other engines.
type Sharing struct {
	// Store is the shared store; the engine's store must be it.
	Store store.Shared
	// ID is the engine's id in the registry and the holder of its leases:
	// unique among the live engines (see NewEngineID).
	ID string
	// TTL is how long a lease or a registration lives unless renewed; 0
	// means DefaultLeaseTTL. The engine renews every TTL/3.
	TTL time.Duration
	// Logger receives lease losses; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultLeaseTTL is the lease and registration TTL by default.
const DefaultLeaseTTL = 10 * time.Second

// NewEngineID is a fresh engine id: "eng-" and 64 random bits, never
// shared by two processes.
func NewEngineID() string { return "eng-" + randomHex(8) }

// sharing is the lease state of an engine with Options.Sharing.
type sharing struct {
	st   store.Shared
	id   string
	ttl  time.Duration
	log  *slog.Logger
	base time.Time // the origin of the monotonic deadlines of leases

	mu       sync.Mutex               // guards held, granting and addr
	held     map[string]*document     // the documents whose lease the engine holds
	keys     map[string]*leaseState   // other leases it holds (HoldLease), by key
	granting map[string]chan struct{} // grants in flight, closed when done
	addr     string                   // the advertised address, once registered

	stop   chan struct{}  // closed by close
	loop   sync.WaitGroup // the renewal loop
	closed sync.Once
}

func newSharing(s *Sharing) *sharing {
	sh := &sharing{
		st: s.Store, id: s.ID, ttl: s.TTL, log: s.Logger, base: time.Now(),
		held: map[string]*document{}, keys: map[string]*leaseState{}, granting: map[string]chan struct{}{}, stop: make(chan struct{}),
	}
	if sh.ttl == 0 {
		sh.ttl = DefaultLeaseTTL
	}
	if sh.log == nil {
		sh.log = slog.Default()
	}
	return sh
}

// mono is the monotonic time since base.
func (sh *sharing) mono() int64 { return int64(time.Since(sh.base)) }

// leaseState is a document's lease, for an engine with Sharing: the lease
// it was taken under (fixed for the document's copy: a new grant makes a
// new copy) and, on the engine's monotonic clock, until when it is live.
type leaseState struct {
	lease store.Lease
	until atomic.Int64 // sharing.mono() deadline
}

// fence is the lease a commit of d is written under; nil without one.
func (d *document) fence() *store.Lease {
	if d.lease.lease.Epoch == 0 {
		return nil
	}
	l := d.lease.lease
	return &l
}

// Register announces the engine in the registry at address (the one
// gateways and peers reach it at) and starts renewing its registration
// and leases every TTL/3, until Close. It does nothing for an engine
// without Sharing.
func (e *Engine) Register(ctx context.Context, address string) error {
	sh := e.shared
	if sh == nil {
		return nil
	}
	if err := sh.st.Register(ctx, sh.id, address, sh.ttl); err != nil {
		return fmt.Errorf("register engine %s: %w", sh.id, err)
	}
	sh.mu.Lock()
	sh.addr = address
	sh.mu.Unlock()
	sh.loop.Go(func() { sh.renewLoop(address) })
	return nil
}

// EngineID is the engine's id in the registry; "" without Sharing.
func (e *Engine) EngineID() string {
	if e.shared == nil {
		return ""
	}
	return e.shared.id
}

func (sh *sharing) renewLoop(address string) {
	tick := time.NewTicker(sh.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-sh.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), sh.ttl/3)
		if err := sh.st.Heartbeat(ctx, sh.id, sh.ttl); errors.Is(err, store.ErrNotRegistered) {
			err = sh.st.Register(ctx, sh.id, address, sh.ttl)
		} else if err != nil {
			sh.log.Warn("engine heartbeat failed", "engine", sh.id, "error", err)
		}
		sh.renewAll(ctx)
		cancel()
	}
}

// renewAll renews every held lease; a lease that is lost is dropped.
func (sh *sharing) renewAll(ctx context.Context) {
	sh.mu.Lock()
	docs := make([]*document, 0, len(sh.held))
	for _, d := range sh.held {
		docs = append(docs, d)
	}
	sh.mu.Unlock()
	sh.mu.Lock()
	keys := make(map[string]*leaseState, len(sh.keys))
	for k, l := range sh.keys {
		keys[k] = l
	}
	sh.mu.Unlock()
	for k, l := range keys {
		start := sh.mono()
		_, err := sh.st.Renew(ctx, l.lease, sh.ttl)
		switch {
		case err == nil:
			l.until.Store(start + int64(sh.ttl))
		case errors.Is(err, store.ErrLeaseLost):
			sh.log.Warn("lease lost", "key", k, "epoch", l.lease.Epoch)
			sh.mu.Lock()
			if sh.keys[k] == l {
				delete(sh.keys, k)
			}
			sh.mu.Unlock()
		default:
			sh.log.Warn("lease renewal failed", "key", k, "error", err)
		}
	}
	for _, d := range docs {
		start := sh.mono()
		_, err := sh.st.Renew(ctx, d.lease.lease, sh.ttl)
		switch {
		case err == nil:
			d.lease.until.Store(start + int64(sh.ttl))
		case errors.Is(err, store.ErrLeaseLost):
			sh.log.Warn("document lease lost", "document", d.ID, "epoch", d.lease.lease.Epoch)
			sh.drop(d)
		default:
			sh.log.Warn("document lease renewal failed", "document", d.ID, "error", err)
		}
	}
}

// drop forgets d's lease (lost, or fenced): the next call for the
// document takes the lease again, or is sent to its holder.
func (sh *sharing) drop(d *document) {
	sh.mu.Lock()
	if sh.held[d.ID] == d {
		delete(sh.held, d.ID)
	}
	sh.mu.Unlock()
}

// hold records that the engine holds d's lease.
func (sh *sharing) hold(d *document) {
	sh.mu.Lock()
	sh.held[d.ID] = d
	sh.mu.Unlock()
}

// close stops renewing, releases every held lease and deregisters, once.
func (sh *sharing) close() { sh.closed.Do(sh.closeOnce) }

func (sh *sharing) closeOnce() {
	close(sh.stop)
	sh.loop.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), sh.ttl)
	defer cancel()
	sh.mu.Lock()
	held := sh.held
	sh.held = map[string]*document{}
	keys := sh.keys
	sh.keys = map[string]*leaseState{}
	sh.mu.Unlock()
	for _, l := range keys {
		_ = sh.st.Release(ctx, l.lease)
	}
	for _, d := range held {
		if err := sh.st.Release(ctx, d.lease.lease); err != nil && !errors.Is(err, store.ErrLeaseLost) {
			sh.log.Warn("release document lease", "document", d.ID, "error", err)
		}
	}
	if err := sh.st.Deregister(ctx, sh.id); err != nil {
		sh.log.Warn("deregister engine", "engine", sh.id, "error", err)
	}
}

// docFor is the document id as the engine serves it: without Sharing the
// one in memory; with it, the copy read under the engine's live lease,
// taking the lease (single-flight per document) when the engine holds
// none.
func (e *Engine) docFor(ctx context.Context, id string) (*document, error) {
	sh := e.shared
	if sh == nil {
		return e.doc(id)
	}
	for {
		sh.mu.Lock()
		if d := sh.held[id]; d != nil && sh.mono() < d.lease.until.Load() {
			sh.mu.Unlock()
			return d, nil
		}
		if wait := sh.granting[id]; wait != nil {
			sh.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		sh.granting[id] = done
		sh.mu.Unlock()
		d, err := e.take(ctx, id)
		sh.mu.Lock()
		delete(sh.granting, id)
		if err == nil {
			sh.held[id] = d
		} else if old := sh.held[id]; old != nil {
			delete(sh.held, id)
		}
		sh.mu.Unlock()
		close(done)
		return d, err
	}
}

// take grants the engine the lease on id and reads the document afresh.
func (e *Engine) take(ctx context.Context, id string) (*document, error) {
	sh := e.shared
	start := sh.mono()
	l, err := sh.st.Grant(ctx, id, sh.id, sh.ttl)
	var held *store.LeaseHeldError
	if errors.As(err, &held) {
		return nil, sh.notHolder(held)
	}
	if err != nil {
		return nil, NewError(enginev1.ErrorReason_ERROR_REASON_UNAVAILABLE, fmt.Errorf("take the lease on %s: %w", id, err))
	}
	rec, ents, err := sh.st.LoadDocument(ctx, id)
	if err != nil {
		_ = sh.st.Release(context.WithoutCancel(ctx), l)
		if errors.Is(err, store.ErrNoDocument) {
			return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		return nil, fmt.Errorf("read document %s: %w", id, err)
	}
	d, err := loadDocument(rec, ents)
	if err != nil {
		_ = sh.st.Release(context.WithoutCancel(ctx), l)
		return nil, err
	}
	d.lease.lease = l
	d.lease.until.Store(start + int64(sh.ttl))
	e.mu.Lock()
	e.docs[id] = d
	e.mu.Unlock()
	return d, nil
}

// adopt takes the lease on a new document before its first commit.
func (e *Engine) adopt(ctx context.Context, d *document) error {
	sh := e.shared
	if sh == nil || d.lease.lease.Epoch != 0 {
		return nil
	}
	start := sh.mono()
	l, err := sh.st.Grant(ctx, d.ID, sh.id, sh.ttl)
	if err != nil {
		return fmt.Errorf("take the lease on new document %s: %w", d.ID, err)
	}
	d.lease.lease = l
	d.lease.until.Store(start + int64(sh.ttl))
	return nil
}

// notHolder is the NOT_LEASE_HOLDER error for a lease another holder has.
func (sh *sharing) notHolder(held *store.LeaseHeldError) error {
	sh.mu.Lock()
	self := sh.addr
	sh.mu.Unlock()
	meta := map[string]string{"holder": held.Address, "holder_id": held.Lease.Holder}
	if held.Address == "" || held.Address == self {
		// A holder that is gone (or this engine's former self, restarted):
		// the lease is taken over once it expires.
		meta["holder"] = ""
		wait := max(time.Until(held.Lease.ExpiresAt), 50*time.Millisecond)
		meta["retry_after_ms"] = strconv.FormatInt(wait.Milliseconds(), 10)
	}
	return newErrorMeta(enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER, held, meta)
}

// fenced is what a commit of d that failed with err becomes: with
// store.ErrFenced, the engine drops d's lease and the call learns
// LEASE_LOST.
func (e *Engine) fenced(d *document, err error) error {
	if e.shared == nil || d == nil || !errors.Is(err, store.ErrFenced) {
		return err
	}
	e.shared.drop(d)
	return NewError(enginev1.ErrorReason_ERROR_REASON_LEASE_LOST, err)
}

// recall brings the journal record of an operation this engine has not
// seen into its table, for a retry on an engine that took the document
// over; the caller holds the lease of d, the operation's document. A
// record still running belongs to a holder that is gone: it becomes
// interrupted, in the store too.
func (e *Engine) recall(ctx context.Context, principal, id string, d *document) error {
	if e.shared == nil {
		return nil
	}
	if _, _, ok := e.ops.get(opKey{principal, id}); ok {
		return nil
	}
	rec, err := e.shared.st.LoadOperation(ctx, principal, id)
	if err != nil || rec == nil {
		return err
	}
	o := opFromRecord(rec)
	if o.st.status == enginev1.OperationStatus_OPERATION_STATUS_RUNNING && d != nil && rec.DocumentID == d.ID {
		o.st.status = enginev1.OperationStatus_OPERATION_STATUS_INTERRUPTED
		o.st.finished = e.now().UTC()
		c := &store.Commit{Operations: []store.OperationRecord{o.record(o.st)}, Lease: d.fence()}
		if err := e.store.Commit(context.WithoutCancel(ctx), c); err != nil {
			return e.fenced(d, fmt.Errorf("record interrupted operation %s: %w", id, err))
		}
	}
	e.ops.restore(o)
	return nil
}

// storedOperation reads an operation this engine has not seen from the
// shared store, for operations.get; nil when there is none.
func (e *Engine) storedOperation(ctx context.Context, principal, id string) (*opEntry, error) {
	if e.shared == nil {
		return nil, nil
	}
	rec, err := e.shared.st.LoadOperation(ctx, principal, id)
	if err != nil || rec == nil {
		return nil, err
	}
	return opFromRecord(rec), nil
}

// HoldsLease reports whether the engine holds a live lease on key (see
// HoldLease); true without Sharing, where the engine holds everything.
func (e *Engine) HoldsLease(key string) bool {
	sh := e.shared
	if sh == nil {
		return true
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	l := sh.keys[key]
	return l != nil && sh.mono() < l.until.Load()
}

// Lease returns the lease on key that HoldLease took, for writes fenced
// by it, until it is known lost or dropped — also past its deadline on
// the engine's clock (HoldsLease is false then), since the store's fence
// decides whether it is still the key's; ok is false otherwise, and always
// without Sharing.
func (e *Engine) Lease(key string) (l store.Lease, ok bool) {
	sh := e.shared
	if sh == nil {
		return store.Lease{}, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ls := sh.keys[key]
	if ls == nil {
		return store.Lease{}, false
	}
	return ls.lease, true
}

// HoldLease takes the lease on key — something other than a document
// that one engine serves at a time, such as a session ("ses:" and its
// id) — and keeps it, renewed with the documents' leases, until it is
// lost or the engine closes. Another engine's live lease is
// NOT_LEASE_HOLDER, as for a document. It does nothing without Sharing.
func (e *Engine) HoldLease(ctx context.Context, key string) error {
	sh := e.shared
	if sh == nil {
		return nil
	}
	start := sh.mono()
	l, err := sh.st.Grant(ctx, key, sh.id, sh.ttl)
	var held *store.LeaseHeldError
	if errors.As(err, &held) {
		return sh.notHolder(held)
	}
	if err != nil {
		return NewError(enginev1.ErrorReason_ERROR_REASON_UNAVAILABLE, fmt.Errorf("take the lease on %s: %w", key, err))
	}
	ls := &leaseState{lease: l}
	ls.until.Store(start + int64(sh.ttl))
	sh.mu.Lock()
	sh.keys[key] = ls
	sh.mu.Unlock()
	return nil
}

// DropLease releases the lease on key that HoldLease took, if the engine
// holds it.
func (e *Engine) DropLease(ctx context.Context, key string) {
	sh := e.shared
	if sh == nil {
		return
	}
	sh.mu.Lock()
	l := sh.keys[key]
	delete(sh.keys, key)
	sh.mu.Unlock()
	if l != nil {
		_ = sh.st.Release(ctx, l.lease)
	}
}

package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

const (
	// long is a ttl no test outlives.
	long = time.Hour
	// short is a ttl that expiry waits out.
	short = time.Millisecond
)

// expire waits until leases and registrations granted for short have
// expired, on any store's clock near this one's.
func expire() { time.Sleep(short + 30*time.Millisecond) }

// leasesOf returns s's leases; every store implements them.
func leasesOf(t *testing.T, s store.Store) store.Leases {
	t.Helper()
	l, ok := s.(store.Leases)
	if !ok {
		t.Fatalf("the %s store does not implement store.Leases", s.Kind())
	}
	return l
}

func grant(t *testing.T, l store.Leases, doc, holder string, ttl time.Duration) store.Lease {
	t.Helper()
	got, err := l.Grant(context.Background(), doc, holder, ttl)
	if err != nil {
		t.Fatalf("Grant(%s, %s): %v", doc, holder, err)
	}
	if got.DocumentID != doc || got.Holder != holder || got.Epoch <= 0 {
		t.Fatalf("Grant(%s, %s) = %+v, want that document and holder with a positive epoch", doc, holder, got)
	}
	return got
}

// wantHolder checks that the live lease on doc is want (nil: none).
func wantHolder(t *testing.T, l store.Leases, doc string, want *store.Lease) {
	t.Helper()
	got, err := l.Holder(context.Background(), doc)
	switch {
	case err != nil:
		t.Errorf("Holder(%s): %v", doc, err)
	case want == nil && got != nil:
		t.Errorf("Holder(%s) = %+v, want none", doc, *got)
	case want != nil && got == nil:
		t.Errorf("Holder(%s) = none, want %+v", doc, *want)
	case want != nil && (got.DocumentID != want.DocumentID || got.Holder != want.Holder || got.Epoch != want.Epoch || !got.ExpiresAt.Equal(want.ExpiresAt)):
		t.Errorf("Holder(%s) = %+v, want %+v", doc, *got, *want)
	}
}

func testLeaseGrant(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	l := leasesOf(t, s)
	r, _ := s.(store.Registry)
	tests := []struct {
		name string
		// before leaves the document's lease in the state under test and
		// returns the epoch it is at (0: never granted).
		before func(t *testing.T, doc string) int64
		// heldBy is the holder whose live lease refuses the grant, "" for
		// a grant that succeeds.
		heldBy, address string
	}{
		{"never granted", func(*testing.T, string) int64 { return 0 }, "", ""},
		{"own live lease", func(t *testing.T, doc string) int64 { return grant(t, l, doc, "engine-a", long).Epoch }, "", ""},
		{"another's expired lease", func(t *testing.T, doc string) int64 {
			e := grant(t, l, doc, "engine-b", short).Epoch
			expire()
			return e
		}, "", ""},
		{"another's released lease", func(t *testing.T, doc string) int64 {
			lb := grant(t, l, doc, "engine-b", long)
			if err := l.Release(ctx, lb); err != nil {
				t.Fatalf("Release: %v", err)
			}
			return lb.Epoch
		}, "", ""},
		{"another's live lease", func(t *testing.T, doc string) int64 { return grant(t, l, doc, "engine-b", long).Epoch }, "engine-b", ""},
		{"a registered engine's live lease", func(t *testing.T, doc string) int64 {
			if r == nil {
				t.Fatalf("the %s store does not implement store.Registry", s.Kind())
			}
			if err := r.Register(ctx, "engine-c", "10.0.0.3:7401", long); err != nil {
				t.Fatalf("Register: %v", err)
			}
			return grant(t, l, doc, "engine-c", long).Epoch
		}, "engine-c", "10.0.0.3:7401"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf("doc-%d", i)
			before := tt.before(t, doc)
			prev, err := l.Holder(ctx, doc)
			if err != nil {
				t.Fatalf("Holder: %v", err)
			}
			got, err := l.Grant(ctx, doc, "engine-a", long)
			if tt.heldBy != "" {
				var held *store.LeaseHeldError
				if !errors.As(err, &held) || !errors.Is(err, store.ErrLeaseHeld) {
					t.Fatalf("Grant = %+v, %v; want a *LeaseHeldError", got, err)
				}
				if held.Lease.Holder != tt.heldBy || held.Lease.Epoch != before || held.Address != tt.address {
					t.Errorf("Grant refused with %+v at %q, want the lease of %s at epoch %d, at %q", held.Lease, held.Address, tt.heldBy, before, tt.address)
				}
				wantHolder(t, l, doc, prev)
				return
			}
			if err != nil {
				t.Fatalf("Grant: %v", err)
			}
			if got.DocumentID != doc || got.Holder != "engine-a" || got.Epoch <= before {
				t.Errorf("Grant = %+v, want engine-a's lease on %s at an epoch above %d", got, doc, before)
			}
			wantHolder(t, l, doc, &got)
		})
	}
}

func testLeaseGrantInvalid(t *testing.T, h Harness) {
	l := leasesOf(t, open(t, h))
	for _, tt := range []struct {
		name, doc, holder string
		ttl               time.Duration
	}{
		{"no document", "", "engine-a", long},
		{"no holder", "doc-1", "", long},
		{"zero ttl", "doc-1", "engine-a", 0},
		{"negative ttl", "doc-1", "engine-a", -time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := l.Grant(context.Background(), tt.doc, tt.holder, tt.ttl); err == nil || errors.Is(err, store.ErrLeaseHeld) {
				t.Errorf("Grant(%q, %q, %v) = %+v, %v; want an invalid-argument error", tt.doc, tt.holder, tt.ttl, got, err)
			}
		})
	}
	wantHolder(t, l, "doc-1", nil)
}

// testLeaseGrantRace grants one document to several holders at once,
// through two stores: exactly one wins, and the others are told who.
func testLeaseGrantRace(t *testing.T, h Harness) {
	a := open(t, h)
	stores := []store.Store{a, share(t, h, a)}
	const holders = 8
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		granted = make([]store.Lease, holders)
		errs    = make([]error, holders)
	)
	for i := range holders {
		l := leasesOf(t, stores[i%len(stores)])
		wg.Go(func() {
			<-start
			granted[i], errs[i] = l.Grant(context.Background(), "doc-1", fmt.Sprintf("engine-%d", i), long)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("Grant to engine-%d and engine-%d both succeeded: %+v, %+v", winner, i, granted[winner], granted[i])
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no Grant succeeded: %v", errs)
	}
	for i, err := range errs {
		var held *store.LeaseHeldError
		if i != winner && (!errors.As(err, &held) || held.Lease.Holder != granted[winner].Holder || held.Lease.Epoch != granted[winner].Epoch) {
			t.Errorf("Grant to engine-%d = %v, want refused with the lease of %+v", i, err, granted[winner])
		}
	}
	wantHolder(t, leasesOf(t, a), "doc-1", &granted[winner])
}

// testLeaseEpochGrows walks a lease through grants by several holders on
// two stores, renewals, expiry and a release: every grant raises the
// epoch, nothing else changes it.
func testLeaseEpochGrows(t *testing.T, h Harness) {
	ctx := context.Background()
	a := open(t, h)
	la, lb := leasesOf(t, a), leasesOf(t, share(t, h, a))
	var epochs []int64
	l := grant(t, la, "doc-1", "engine-a", long)
	epochs = append(epochs, l.Epoch)
	renewed, err := la.Renew(ctx, l, long)
	if err != nil || renewed.Epoch != l.Epoch {
		t.Fatalf("Renew = %+v, %v; want the same epoch %d", renewed, err, l.Epoch)
	}
	if err := la.Release(ctx, renewed); err != nil {
		t.Fatalf("Release: %v", err)
	}
	epochs = append(epochs, grant(t, lb, "doc-1", "engine-b", long).Epoch)
	epochs = append(epochs, grant(t, lb, "doc-1", "engine-b", short).Epoch)
	expire()
	epochs = append(epochs, grant(t, la, "doc-1", "engine-a", long).Epoch)
	for i := 1; i < len(epochs); i++ {
		if epochs[i] <= epochs[i-1] {
			t.Errorf("epochs of successive grants = %v, want each above the one before", epochs)
			break
		}
	}
}

func testLeaseRenew(t *testing.T, h Harness) {
	ctx := context.Background()
	a := open(t, h)
	la, lb := leasesOf(t, a), leasesOf(t, share(t, h, a))
	tests := []struct {
		name string
		// lease returns the lease to renew, in the state under test.
		lease func(t *testing.T, doc string) store.Lease
		lost  bool
	}{
		{"holder", func(t *testing.T, doc string) store.Lease { return grant(t, la, doc, "engine-a", time.Minute) }, false},
		{"holder, after expiry", func(t *testing.T, doc string) store.Lease {
			l := grant(t, la, doc, "engine-a", short)
			expire()
			return l
		}, false},
		{"another holder", func(t *testing.T, doc string) store.Lease {
			l := grant(t, la, doc, "engine-a", long)
			l.Holder = "engine-b"
			return l
		}, true},
		{"stale epoch", func(t *testing.T, doc string) store.Lease {
			l := grant(t, la, doc, "engine-a", long)
			grant(t, la, doc, "engine-a", long)
			return l
		}, true},
		{"taken over", func(t *testing.T, doc string) store.Lease {
			l := grant(t, la, doc, "engine-a", short)
			expire()
			grant(t, lb, doc, "engine-b", long)
			return l
		}, true},
		{"released", func(t *testing.T, doc string) store.Lease {
			l := grant(t, la, doc, "engine-a", long)
			if err := la.Release(ctx, l); err != nil {
				t.Fatalf("Release: %v", err)
			}
			return l
		}, true},
		{"never granted", func(_ *testing.T, doc string) store.Lease {
			return store.Lease{DocumentID: doc, Holder: "engine-a", Epoch: 1}
		}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf("doc-%d", i)
			l := tt.lease(t, doc)
			before, err := la.Holder(ctx, doc)
			if err != nil {
				t.Fatalf("Holder: %v", err)
			}
			got, err := la.Renew(ctx, l, long)
			if tt.lost {
				if !errors.Is(err, store.ErrLeaseLost) {
					t.Errorf("Renew(%+v) = %+v, %v; want ErrLeaseLost", l, got, err)
				}
				wantHolder(t, lb, doc, before)
				return
			}
			if err != nil {
				t.Fatalf("Renew(%+v): %v", l, err)
			}
			if got.DocumentID != l.DocumentID || got.Holder != l.Holder || got.Epoch != l.Epoch || !got.ExpiresAt.After(l.ExpiresAt) {
				t.Errorf("Renew(%+v) = %+v, want the same lease expiring later", l, got)
			}
			wantHolder(t, lb, doc, &got)
		})
	}
}

func testLeaseRelease(t *testing.T, h Harness) {
	ctx := context.Background()
	a := open(t, h)
	la, lb := leasesOf(t, a), leasesOf(t, share(t, h, a))
	l := grant(t, la, "doc-1", "engine-a", long)
	stale := l
	stale.Epoch--
	if err := la.Release(ctx, stale); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("Release of a stale epoch = %v, want ErrLeaseLost", err)
	}
	wantHolder(t, la, "doc-1", &l)
	if err := la.Release(ctx, l); err != nil {
		t.Fatalf("Release: %v", err)
	}
	wantHolder(t, lb, "doc-1", nil)
	// Another takes it at once, without waiting for the released lease's
	// ttl.
	next := grant(t, lb, "doc-1", "engine-b", long)
	if next.Epoch <= l.Epoch {
		t.Errorf("Grant after Release = epoch %d, want above %d", next.Epoch, l.Epoch)
	}
	if err := la.Release(ctx, l); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("Release again = %v, want ErrLeaseLost", err)
	}
	wantHolder(t, la, "doc-1", &next)
}

// testLeaseFence commits under leases that are not the document's: each
// commit fails whole with ErrFenced.
func testLeaseFence(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	l := leasesOf(t, s)
	tests := []struct {
		name string
		// lease returns a lease that is not doc's any more, or never was.
		lease func(t *testing.T, doc string) store.Lease
	}{
		{"never granted", func(_ *testing.T, doc string) store.Lease {
			return store.Lease{DocumentID: doc, Holder: "engine-a", Epoch: 1}
		}},
		{"another holder", func(t *testing.T, doc string) store.Lease {
			g := grant(t, l, doc, "engine-a", long)
			g.Holder = "engine-b"
			return g
		}},
		{"stale epoch", func(t *testing.T, doc string) store.Lease {
			g := grant(t, l, doc, "engine-a", long)
			grant(t, l, doc, "engine-a", long)
			return g
		}},
		{"future epoch", func(t *testing.T, doc string) store.Lease {
			g := grant(t, l, doc, "engine-a", long)
			g.Epoch++
			return g
		}},
		{"released", func(t *testing.T, doc string) store.Lease {
			g := grant(t, l, doc, "engine-a", long)
			if err := l.Release(ctx, g); err != nil {
				t.Fatalf("Release: %v", err)
			}
			return g
		}},
		{"released, as its row reads", func(t *testing.T, doc string) store.Lease {
			g := grant(t, l, doc, "engine-a", long)
			if err := l.Release(ctx, g); err != nil {
				t.Fatalf("Release: %v", err)
			}
			g.Holder = ""
			return g
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf("doc-%d", i)
			lease := tt.lease(t, doc)
			for _, c := range []*store.Commit{
				{Document: document(doc, 1), Put: []store.EntityRecord{entity(0x100, 1)}, Operations: []store.OperationRecord{operation("alice", doc, t0, true)}},
				{Operations: []store.OperationRecord{operation("alice", doc+"-journal", t0, true)}},
			} {
				c.Lease = &lease
				if err := s.Commit(ctx, c); !errors.Is(err, store.ErrFenced) {
					t.Errorf("Commit under %+v = %v, want ErrFenced", lease, err)
				}
			}
			if got := load(t, s); len(got) != 0 {
				t.Errorf("after fenced commits Load = %v, want nothing", got)
			}
			wantOperations(t, s)
		})
	}

	t.Run("another document's lease", func(t *testing.T) {
		g := grant(t, l, "doc-other", "engine-a", long)
		if err := s.Commit(ctx, &store.Commit{Document: document("doc-mine", 1), Lease: &g}); err == nil {
			t.Error("Commit of doc-mine under doc-other's lease succeeded")
		}
		if got := load(t, s); len(got) != 0 {
			t.Errorf("Load = %v, want nothing", got)
		}
	})
}

// testLeaseTakeover is the fencing guarantee: a holder that was paused
// past its ttl while another engine took the document over can never
// commit afterwards, and nothing of its commits shows.
func testLeaseTakeover(t *testing.T, h Harness) {
	ctx := context.Background()
	a := open(t, h)
	b := share(t, h, a)
	la, lb := leasesOf(t, a), leasesOf(t, b)

	held := grant(t, la, "doc-1", "engine-a", short)
	under := func(l store.Lease, c *store.Commit) *store.Commit { c.Lease = &l; return c }
	commit(t, a, under(held, &store.Commit{Document: document("doc-1", 1), Put: []store.EntityRecord{entity(0x100, 1)}}))
	expire()
	// Expired, but nobody took it over: the holder's writes still stand.
	mine := document("doc-1", 2)
	commit(t, a, under(held, &store.Commit{Document: mine, Put: []store.EntityRecord{entity(0x100, 2)},
		Operations: []store.OperationRecord{operation("alice", "op-1", t0, true)}}))

	// engine-a is paused; engine-b takes over.
	taken := grant(t, lb, "doc-1", "engine-b", long)
	if taken.Epoch <= held.Epoch {
		t.Fatalf("takeover at epoch %d, want above %d", taken.Epoch, held.Epoch)
	}

	// engine-a wakes up and tries to carry on.
	for _, c := range []*store.Commit{
		{Document: document("doc-1", 3), Put: []store.EntityRecord{entity(0x100, 3), entity(0x101, 3)}, Delete: []uint64{0x100},
			Operations: []store.OperationRecord{operation("alice", "op-2", t0, true)}},
		{Operations: []store.OperationRecord{operation("alice", "op-3", t0, false)}},
	} {
		if err := a.Commit(ctx, under(held, c)); !errors.Is(err, store.ErrFenced) {
			t.Errorf("paused holder's Commit = %v, want ErrFenced", err)
		}
	}
	if _, err := la.Renew(ctx, held, long); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("paused holder's Renew = %v, want ErrLeaseLost", err)
	}
	if _, err := la.Grant(ctx, "doc-1", "engine-a", long); !errors.Is(err, store.ErrLeaseHeld) {
		t.Errorf("paused holder's Grant = %v, want ErrLeaseHeld", err)
	}
	for _, s := range []store.Store{a, b} {
		wantDocument(t, s, mine, []store.EntityRecord{entity(0x100, 2)})
		wantOperations(t, s, operation("alice", "op-1", t0, true))
	}

	// The new holder writes on.
	theirs := document("doc-1", 3)
	commit(t, b, under(taken, &store.Commit{Document: theirs, Put: []store.EntityRecord{entity(0x102, 9)}}))
	wantDocument(t, a, theirs, []store.EntityRecord{entity(0x100, 2), entity(0x102, 9)})
	wantHolder(t, la, "doc-1", &taken)
}

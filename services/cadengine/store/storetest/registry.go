package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

func registryOf(t *testing.T, s store.Store) store.Registry {
	t.Helper()
	r, ok := s.(store.Registry)
	if !ok {
		t.Fatalf("the %s store does not implement store.Registry", s.Kind())
	}
	return r
}

// wantEngines checks that the live engines are want, id and address by
// id, each expiring after its heartbeat.
func wantEngines(t *testing.T, r store.Registry, want ...store.EngineRecord) []store.EngineRecord {
	t.Helper()
	got, err := r.Engines(context.Background())
	if err != nil {
		t.Fatalf("Engines: %v", err)
	}
	if !slices.EqualFunc(got, want, func(g, w store.EngineRecord) bool {
		return g.ID == w.ID && g.Address == w.Address && g.ExpiresAt.After(g.HeartbeatAt) && !g.HeartbeatAt.Before(g.RegisteredAt)
	}) {
		t.Fatalf("Engines = %+v, want %+v", got, want)
	}
	return got
}

func testRegistry(t *testing.T, h Harness) {
	ctx := context.Background()
	s := open(t, h)
	ra, rb := registryOf(t, s), registryOf(t, share(t, h, s))
	mustRegister := func(r store.Registry, id, address string, ttl time.Duration) {
		t.Helper()
		if err := r.Register(ctx, id, address, ttl); err != nil {
			t.Fatalf("Register(%s): %v", id, err)
		}
	}
	a := store.EngineRecord{ID: "engine-a", Address: "10.0.0.1:7401"}
	b := store.EngineRecord{ID: "engine-b", Address: "10.0.0.2:7401"}
	c := store.EngineRecord{ID: "engine-c", Address: "10.0.0.3:7401"}
	mustRegister(ra, b.ID, b.Address, long)
	mustRegister(rb, a.ID, a.Address, time.Minute)
	mustRegister(ra, c.ID, c.Address, short)
	expire()
	wantEngines(t, rb, a, b) // by id; c's registration expired

	before := wantEngines(t, ra, a, b)[0]
	if err := ra.Heartbeat(ctx, a.ID, long); err != nil {
		t.Fatalf("Heartbeat(%s): %v", a.ID, err)
	}
	if after := wantEngines(t, rb, a, b)[0]; !after.ExpiresAt.After(before.ExpiresAt) {
		t.Errorf("Heartbeat with a longer ttl: expiry %v, want after %v", after.ExpiresAt, before.ExpiresAt)
	}
	// A heartbeat brings an expired registration back.
	if err := rb.Heartbeat(ctx, c.ID, long); err != nil {
		t.Fatalf("Heartbeat(%s) after expiry: %v", c.ID, err)
	}
	// A restart registers again, at another address.
	moved := store.EngineRecord{ID: b.ID, Address: "10.0.0.22:7401"}
	mustRegister(rb, moved.ID, moved.Address, long)
	wantEngines(t, ra, a, moved, c)

	if err := ra.Deregister(ctx, moved.ID); err != nil {
		t.Fatalf("Deregister: %v", err)
	}
	if err := ra.Deregister(ctx, "engine-unknown"); err != nil {
		t.Errorf("Deregister of an unknown id = %v, want nil", err)
	}
	wantEngines(t, rb, a, c)
	for _, id := range []string{moved.ID, "engine-unknown"} {
		if err := rb.Heartbeat(ctx, id, long); !errors.Is(err, store.ErrNotRegistered) {
			t.Errorf("Heartbeat(%s) = %v, want ErrNotRegistered", id, err)
		}
	}
	for _, bad := range []struct {
		id  string
		ttl time.Duration
	}{{"", long}, {"engine-d", 0}} {
		if err := ra.Register(ctx, bad.id, "10.0.0.4:7401", bad.ttl); err == nil {
			t.Errorf("Register(%q, ttl %v) succeeded", bad.id, bad.ttl)
		}
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Registry is where the engines sharing a store announce themselves: an
// id, the address gateways and peers reach them at, and a heartbeat that
// keeps the registration live. A registration that is not renewed within
// its ttl is no longer listed. Expiry is measured on the store's clock.
//
// A Registry must be safe for concurrent use, also by several processes
// sharing the storage.
type Registry interface {
	// Register announces the engine id at address, live for ttl; an
	// engine registered under id before (a restart) is replaced.
	Register(ctx context.Context, id, address string, ttl time.Duration) error
	// Heartbeat keeps id's registration live for ttl from now. It fails
	// with [ErrNotRegistered] when id is not registered.
	Heartbeat(ctx context.Context, id string, ttl time.Duration) error
	// Deregister removes id's registration, on a graceful stop;
	// deregistering an unknown id is not an error.
	Deregister(ctx context.Context, id string) error
	// Engines returns the live registrations, by id.
	Engines(ctx context.Context) ([]EngineRecord, error)
}

// EngineRecord is an engine's registration.
type EngineRecord struct {
	ID string
	// Address is where gateways and peers reach the engine (its
	// --advertise address).
	Address      string
	RegisteredAt time.Time
	HeartbeatAt  time.Time
	// ExpiresAt is when the registration stops being live unless the
	// engine heartbeats.
	ExpiresAt time.Time
}

// ErrNotRegistered is returned (wrapped) by [Registry.Heartbeat] for an
// engine that is not registered.
var ErrNotRegistered = errors.New("engine not registered")

// CheckRegister checks the arguments of a [Registry.Register] or
// [Registry.Heartbeat], for the stores to share: an id and a positive ttl.
func CheckRegister(id string, ttl time.Duration) error {
	switch {
	case id == "":
		return errors.New("register engine: empty id")
	case ttl <= 0:
		return fmt.Errorf("register engine %s: ttl %v is not positive", id, ttl)
	}
	return nil
}

// Package stacktest runs cadbridge's engine and gateway in process, on
// loopback with real sockets, for tests and benchmarks.
package stacktest

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/cadengine"
	"github.com/cadbridge/cadbridge/services/gateway"
)

// Stack is an engine and a gateway serving on loopback.
type Stack struct {
	// Engine is the engine's gRPC address.
	Engine string
	// Gateway is the gateway's HTTP address.
	Gateway string
	stop    func()
}

// Options configure a Stack.
type Options struct {
	// Store is the engine's store; empty means "memory:".
	Store string
	// EngineTelemetry and GatewayTelemetry are the services' providers; nil
	// records nothing.
	EngineTelemetry, GatewayTelemetry *telemetry.Providers
	// CheckContracts makes the gateway validate everything it sends
	// (tests turn it on; benchmarks leave it off).
	CheckContracts bool
	// Surfaces are served by the gateway beside its own (the MCP surface).
	Surfaces []gateway.Surface
	// Tokens is the gateway's tokens file (gateway.Config.Tokens); empty
	// is open mode.
	Tokens string
}

// Start runs an engine and a gateway until Close.
func Start(opts Options) (*Stack, error) {
	if opts.Store == "" {
		opts.Store = "memory:"
	}
	engineLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	gwLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		engineLis.Close()
		return nil, err
	}
	engine, err := cadengine.New(cadengine.Config{Store: opts.Store, Telemetry: opts.EngineTelemetry})
	if err != nil {
		engineLis.Close()
		gwLis.Close()
		return nil, err
	}
	gw, err := gateway.New(gateway.Config{Listen: "127.0.0.1:0", Engine: engineLis.Addr().String(), Telemetry: opts.GatewayTelemetry, CheckContracts: opts.CheckContracts, Surfaces: opts.Surfaces, Tokens: opts.Tokens})
	if err != nil {
		engineLis.Close()
		gwLis.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { engine.Serve(ctx, engineLis); done <- struct{}{} }()
	go func() { gw.Serve(ctx, gwLis); done <- struct{}{} }()
	return &Stack{
		Engine:  engineLis.Addr().String(),
		Gateway: gwLis.Addr().String(),
		stop: func() {
			cancel()
			<-done
			<-done
			gw.Close()
		},
	}, nil
}

// Close stops both services.
func (s *Stack) Close() { s.stop() }

// StartTB is Start for tests and benchmarks, stopped by tb.Cleanup.
func StartTB(tb testing.TB, opts Options) *Stack {
	tb.Helper()
	s, err := Start(opts)
	if err != nil {
		tb.Fatal(fmt.Errorf("start stack: %w", err))
	}
	tb.Cleanup(s.Close)
	return s
}

// Command cadbridge runs the engine and the gateway together on loopback,
// with the embedded SQLite store, for local use. "cadbridge mcp" runs an
// engine in process and speaks MCP on stdin/stdout, so that an MCP
// client's configuration is this one command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/cadbridge/cadbridge/internal/cli"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/cadengine"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mcp" {
		os.Exit(mainMCP(os.Args[2:]))
	}
	var o options
	fs := flag.NewFlagSet("cadbridge", flag.ExitOnError)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7400", "gateway HTTP listen address")
	fs.StringVar(&o.engineListen, "engine-listen", "127.0.0.1:7401", "engine gRPC listen address")
	fs.StringVar(&o.metricsListen, "engine-metrics-listen", "127.0.0.1:0", "engine /metrics HTTP address (port 0: a free one, printed; empty: off)")
	fs.StringVar(&o.store, "store", "sqlite:data/cadengine.db", "engine store: sqlite:PATH, memory: or postgres://…")
	fs.Int64Var(&o.readLimit, "read-limit", 0, "largest message a client may send, in bytes (0: 1 MiB)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 0, "graceful stop bound, then running calls are cancelled (0: 10s)")
	fs.Int64Var(&o.expansionLimit, "expansion-limit", 0, "most primitives one call may draw through nested and gridded inserts and hatch patterns, else too_large (0: 10000000)")
	o.mcp.Flags(fs)
	if err := cli.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log, o); err != nil {
		log.Error("cadbridge stopped", "error", err)
		os.Exit(1)
	}
}

// options are cadbridge's flags.
type options struct {
	listen, engineListen, metricsListen, store string
	readLimit, expansionLimit                  int64
	drainTimeout                               time.Duration
	mcp                                        mcp.Config
}

// run starts the engine, then the gateway pointed at it; when either stops,
// the other is stopped too.
func run(ctx context.Context, log *slog.Logger, o options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	engineLis, err := net.Listen("tcp", o.engineListen)
	if err != nil {
		return fmt.Errorf("engine listen: %w", err)
	}
	engineTel, err := telemetry.FromEnv(ctx, "cadengine")
	if err != nil {
		return err
	}
	defer engineTel.Shutdown(context.WithoutCancel(ctx))
	gatewayTel, err := telemetry.FromEnv(ctx, "gateway")
	if err != nil {
		return err
	}
	defer gatewayTel.Shutdown(context.WithoutCancel(ctx))
	engine, err := cadengine.New(cadengine.Config{
		Listen:        o.engineListen,
		Store:         o.store,
		MetricsListen: o.metricsListen,
		MetricsListening: func(addr net.Addr) {
			fmt.Printf("  engine metrics http://%s/metrics\n", addr)
		},
		Logger:         log.With("service", "cadengine"),
		Telemetry:      engineTel,
		DrainTimeout:   o.drainTimeout,
		ExpansionLimit: o.expansionLimit,
	})
	if err != nil {
		engineLis.Close()
		return err
	}
	gw, err := gateway.New(gateway.Config{
		Listen:       o.listen,
		ReadLimit:    o.readLimit,
		DrainTimeout: o.drainTimeout,
		Engine:       engineLis.Addr().String(),
		Logger:       log.With("service", "gateway"),
		Telemetry:    gatewayTel,
		Surfaces:     []gateway.Surface{mcp.Surface(o.mcp)},
		Listening: func(addr net.Addr) {
			fmt.Printf("cadbridge is running\n  JSON-RPC  ws://%s/rpc  (and POST http://%s/rpc)\n  MCP       http://%s/mcp  (Streamable HTTP)\n  viewer    http://%s/viewer/\n  REST      http://%s/v1/  (OpenAPI http://%s/openapi.json)\n  OpenRPC   http://%s/openrpc.json\n  gRPC      %s (engine, store %s)\n  metrics   http://%s/metrics (gateway)\n", addr, addr, addr, addr, addr, addr, addr, engineLis.Addr(), o.store, addr)
		},
	})
	if err != nil {
		engineLis.Close()
		return err
	}
	defer gw.Close()
	gwLis, err := net.Listen("tcp", o.listen)
	if err != nil {
		engineLis.Close()
		return fmt.Errorf("gateway listen: %w", err)
	}
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	stopWith := func(err error) {
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			once.Do(func() { firstErr = err })
		}
		cancel()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		stopWith(engine.Serve(ctx, engineLis))
	}()
	go func() {
		defer wg.Done()
		stopWith(gw.Serve(ctx, gwLis))
	}()
	wg.Wait()
	return firstErr
}

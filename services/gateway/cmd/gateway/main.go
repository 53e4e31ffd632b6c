// Command gateway runs cadbridge's JSON-RPC edge.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"

	"github.com/cadbridge/cadbridge/internal/cli"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

func main() {
	var cfg gateway.Config
	var mcfg mcp.Config
	var stdio, mcpStdio bool
	var pprofListen string
	fs := flag.NewFlagSet("gateway", flag.ExitOnError)
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:7400", "HTTP listen address")
	fs.StringVar(&cfg.Engine, "engine", "127.0.0.1:7401", "engine gRPC address, or several separated by commas (engines sharing a postgres store; the first is home)")
	fs.StringVar(&cfg.EngineTLS.Cert, "engine-tls-cert", "", "the gateway's client certificate (PEM) for mutual TLS to the engine, with --engine-tls-key and --engine-ca")
	fs.StringVar(&cfg.EngineTLS.Key, "engine-tls-key", "", "the key of --engine-tls-cert (PEM)")
	fs.StringVar(&cfg.EngineTLS.CA, "engine-ca", "", "the CA (PEM) that signed the engine's certificate")
	fs.StringVar(&cfg.Tokens, "tokens", "", "file of \"TOKEN PRINCIPAL\" lines; empty: open mode, loopback only")
	fs.Int64Var(&cfg.ReadLimit, "read-limit", 0, "largest message in bytes (0: 1 MiB)")
	fs.IntVar(&cfg.EngineMaxMessage, "engine-max-message", 0, "largest gRPC message to or from the engine in bytes (0: 16 MiB)")
	fs.BoolVar(&cfg.CheckContracts, "check-contracts", false, "validate everything sent against its contract (for tests)")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", 0, "how long a client may fall behind before it is disconnected (0: 10s)")
	fs.Int64Var(&cfg.ConnBudget, "conn-budget", 0, "bytes one connection may hold for its client (calls read, answers not written) before the gateway stops reading from it (0: 4 MiB; -1: none)")
	fs.Int64Var(&cfg.MemoryBudget, "memory-budget", 0, "bytes all connections may hold for their clients before new calls are answered 4029 (0: 1 GiB; -1: none)")
	fs.DurationVar(&cfg.PingInterval, "ping-interval", 0, "how often a WebSocket client is pinged (0: 30s)")
	fs.DurationVar(&cfg.ParkAfter, "park-after", 0, "how long a WebSocket's reader waits for a next message before its goroutine ends until the client sends something (0: 1s; negative: never)")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", 0, "how long calls may finish on a stop or after a client ends its input (0: 10s)")
	fs.BoolVar(&stdio, "stdio", false, "speak JSON-RPC on stdin/stdout instead of HTTP")
	fs.BoolVar(&mcpStdio, "mcp-stdio", false, "speak MCP on stdin/stdout instead of HTTP")
	fs.StringVar(&pprofListen, "pprof-listen", "", "HTTP address of the Go profiles (/debug/pprof/), for diagnosis (empty: off)")
	mcfg.Flags(fs)
	if err := cli.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cfg.Logger = slog.New(telemetry.LogHandler(slog.NewTextHandler(os.Stderr, nil)))
	cfg.Listening = func(addr net.Addr) {
		fmt.Printf("gateway listening on http://%s (WebSocket ws://%s/rpc, MCP http://%s/mcp)\n", addr, addr, addr)
	}
	cfg.Surfaces = []gateway.Surface{mcp.Surface(mcfg)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if pprofListen != "" {
		if err := servePprof(ctx, pprofListen); err != nil {
			cfg.Logger.Error("gateway stopped", "error", err)
			os.Exit(1)
		}
	}
	if err := run(ctx, cfg, mcfg, stdio, mcpStdio); err != nil {
		cfg.Logger.Error("gateway stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg gateway.Config, mcfg mcp.Config, stdio, mcpStdio bool) error {
	tel, err := telemetry.FromEnv(ctx, "gateway")
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.WithoutCancel(ctx))
	cfg.Telemetry = tel
	if !stdio && !mcpStdio {
		return gateway.Run(ctx, cfg)
	}
	cfg.Surfaces = nil
	gw, err := gateway.New(cfg)
	if err != nil {
		return err
	}
	defer gw.Close()
	if mcpStdio {
		srv, err := mcp.New(gw, mcfg)
		if err != nil {
			return err
		}
		defer srv.Close()
		return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
	}
	return gw.ServeStdio(ctx, os.Stdin, os.Stdout)
}

// servePprof serves the Go profiles on addr until ctx is done, and prints
// the address it listens on.
func servePprof(ctx context.Context, addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux}
	context.AfterFunc(ctx, func() { srv.Close() })
	fmt.Printf("gateway pprof on http://%s/debug/pprof/\n", lis.Addr())
	go srv.Serve(lis)
	return nil
}

// Command cadengine runs the CAD engine's gRPC service.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/cadbridge/cadbridge/internal/cli"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/cadengine"
)

func main() {
	var cfg cadengine.Config
	fs := flag.NewFlagSet("cadengine", flag.ExitOnError)
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:7401", "gRPC listen address")
	fs.StringVar(&cfg.Store, "store", "sqlite:data/cadengine.db", "store: sqlite:PATH, memory: or postgres://…")
	fs.BoolVar(&cfg.Reflection, "reflection", false, "serve gRPC reflection on non-loopback addresses too")
	fs.StringVar(&cfg.TLS.Cert, "tls-cert", "", "the engine's TLS certificate (PEM); with --tls-key and --client-ca, mutual TLS, required off loopback")
	fs.StringVar(&cfg.TLS.Key, "tls-key", "", "the key of --tls-cert (PEM)")
	fs.StringVar(&cfg.TLS.CA, "client-ca", "", "the CA (PEM) whose client certificates may call the engine (gateways, internal services)")
	fs.IntVar(&cfg.MaxMessage, "max-message", 0, "largest gRPC message in bytes, either way (0: 16 MiB)")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", 0, "graceful stop bound, then running calls are cancelled (0: 10s)")
	fs.Int64Var(&cfg.ExpansionLimit, "expansion-limit", 0, "most primitives one call may draw through nested and gridded inserts and hatch patterns, else too_large (0: 10000000)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 0, "longest wait for a client's answer to a server request (0: 10m)")
	fs.StringVar(&cfg.Advertise, "advertise", "", "address gateways and peers reach this engine at, registered in a shared (postgres) store (empty: the listen address)")
	fs.DurationVar(&cfg.LeaseTTL, "lease-ttl", 0, "document lease and registration TTL on a shared (postgres) store, renewed every ttl/3 (0: 10s)")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", "127.0.0.1:0", "HTTP address of /metrics, /healthz and /readyz (port 0: a free one, printed; empty: off)")
	if err := cli.Parse(fs, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cfg.Logger = slog.New(telemetry.LogHandler(slog.NewTextHandler(os.Stderr, nil)))
	cfg.Listening = func(addr net.Addr) { fmt.Printf("cadengine listening on %s\n", addr) }
	cfg.MetricsListening = func(addr net.Addr) { fmt.Printf("cadengine metrics on http://%s/metrics\n", addr) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		cfg.Logger.Error("cadengine stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg cadengine.Config) error {
	tel, err := telemetry.FromEnv(ctx, "cadengine")
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.WithoutCancel(ctx))
	cfg.Telemetry = tel
	return cadengine.Run(ctx, cfg)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cadbridge/cadbridge/internal/cli"
	"github.com/cadbridge/cadbridge/internal/telemetry"
	"github.com/cadbridge/cadbridge/services/cadengine"
	"github.com/cadbridge/cadbridge/services/gateway"
	"github.com/cadbridge/cadbridge/services/gateway/mcp"
)

// mainMCP is "cadbridge mcp": an engine in process on the embedded store,
// and the gateway's MCP surface on stdin/stdout. Logs go to stderr; stdout
// carries MCP only.
func mainMCP(args []string) int {
	var (
		store   string
		logs    string
		catalog bool
		expand  int64
		mcfg    mcp.Config
	)
	fs := flag.NewFlagSet("cadbridge mcp", flag.ExitOnError)
	fs.StringVar(&store, "store", defaultMCPStore(), "engine store: sqlite:PATH, memory: or postgres://…")
	fs.StringVar(&logs, "log-level", "warn", "least level logged to stderr: debug, info, warn or error")
	fs.Int64Var(&expand, "expansion-limit", 0, "most primitives one call may draw through nested and gridded inserts and hatch patterns, else too_large (0: 10000000)")
	fs.BoolVar(&catalog, "catalog", false, "print what the served tools cost a model (bytes of tools/list, estimated tokens) and exit")
	mcfg.Flags(fs)
	if err := cli.Parse(fs, args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if catalog {
		if err := mcp.WriteCatalogCost(os.Stdout, mcfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logs)); err != nil {
		fmt.Fprintln(os.Stderr, "--log-level:", err)
		return 2
	}
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runMCP(ctx, log, cadengine.Config{Store: store, ExpansionLimit: expand}, mcfg); err != nil {
		log.Error("cadbridge mcp stopped", "error", err)
		return 1
	}
	return 0
}

// defaultMCPStore is the SQLite file of "cadbridge mcp": in the user's
// data directory, since an MCP client starts the command from a working
// directory of its own choosing.
func defaultMCPStore() string {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "sqlite:data/cadengine.db"
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return "sqlite:" + filepath.Join(dir, "cadbridge", "cadengine.db")
}

// runMCP serves MCP on stdin/stdout until the input ends or ctx is
// cancelled, with an engine on a loopback port of its own.
// ecfg's Store and ExpansionLimit are the engine's; the rest is set here.
func runMCP(ctx context.Context, log *slog.Logger, ecfg cadengine.Config, mcfg mcp.Config) error {
	if path, ok := strings.CutPrefix(ecfg.Store, "sqlite:"); ok {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	engineLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("engine listen: %w", err)
	}
	engineTel, err := telemetry.FromEnv(ctx, "cadengine")
	if err != nil {
		engineLis.Close()
		return err
	}
	defer engineTel.Shutdown(context.WithoutCancel(ctx))
	ecfg.Listen, ecfg.Logger, ecfg.Telemetry = engineLis.Addr().String(), log.With("service", "cadengine"), engineTel
	engine, err := cadengine.New(ecfg)
	if err != nil {
		engineLis.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- engine.Serve(ctx, engineLis) }()
	defer func() {
		cancel()
		<-served
	}()
	gatewayTel, err := telemetry.FromEnv(ctx, "gateway")
	if err != nil {
		return err
	}
	defer gatewayTel.Shutdown(context.WithoutCancel(ctx))
	gw, err := gateway.New(gateway.Config{Engine: engineLis.Addr().String(), Logger: log.With("service", "gateway"), Telemetry: gatewayTel})
	if err != nil {
		return err
	}
	defer gw.Close()
	srv, err := mcp.New(gw, mcfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Command cadsoak runs cadbridge's gateway and engine as processes on
// loopback for a bounded time under a mix of clients (batches, approvals
// answered, ignored and answered late, disconnects mid-batch and resumes,
// $/cancelRequest, floods of clients that never read, oversized messages)
// and prints the calls served, errors by code, each service's resident
// memory and goroutines at start, peak and end, and the operations lost
// or run twice, checked against the journal by operation id. It exits 1
// on any loss, duplicate or unexpected outcome, and 2 when it cannot run.
//
// Usage:
//
//	go run ./bench/cmd/cadsoak --duration 10m
//	go run ./bench/cmd/cadsoak --duration 60s     # what CI runs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cadbridge/cadbridge/bench/soak"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cadsoak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg soak.Config
	fs.DurationVar(&cfg.Duration, "duration", 0, "how long the clients run (required, e.g. 60s or 10m)")
	fs.IntVar(&cfg.Scale, "scale", 1, "how many times the mix of 11 clients runs at once")
	fs.StringVar(&cfg.EngineBin, "engine-bin", "", "cadengine binary (default: built from the module)")
	fs.StringVar(&cfg.GatewayBin, "gateway-bin", "", "gateway binary (default: built from the module)")
	fs.StringVar(&cfg.Store, "store", "", "the engine's store (default: SQLite in a temporary directory)")
	quiet := fs.Bool("quiet", false, "do not report progress on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if cfg.Duration <= 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: cadsoak --duration D [--scale N] [--engine-bin F --gateway-bin F] [--store S]")
		return 2
	}
	if !*quiet {
		cfg.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := soak.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cadsoak: %v\n", err)
		return 2
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "cadsoak: %v\n", err)
		return 2
	}
	if !rep.Passed() {
		return 1
	}
	return 0
}

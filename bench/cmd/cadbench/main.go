// Command cadbench runs cadbridge's engine and gateway in process on
// loopback and prints side-by-side ratios against the project's
// performance goals: each row measures a baseline and a subject in the
// same process, alternating between them, and reports p50/p99 latency,
// throughput and allocations of each side, the ratio and whether it meets
// its goal. A miss is reported, not an error: cadbench exits 0 unless a
// row could not run.
//
// Usage:
//
//	go run ./bench/cmd/cadbench            # the full table (a few minutes)
//	go run ./bench/cmd/cadbench --quick    # scaled down, under a minute (CI)
//	go run ./bench/cmd/cadbench --only replay --json
//	go run ./bench/cmd/cadbench --from report.json --markdown
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/cadbridge/cadbridge/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// only collects --only values, repeated or comma-separated.
type only []string

func (o *only) String() string { return strings.Join(*o, ",") }

func (o *only) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			*o = append(*o, name)
		}
	}
	return nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cadbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      bench.Config
		rows     only
		asJSON   = fs.Bool("json", false, "print the report as JSON")
		markdown = fs.Bool("markdown", false, "print the report as Markdown tables")
		list     = fs.Bool("list", false, "list the rows and exit")
		quiet    = fs.Bool("quiet", false, "do not report progress on stderr")
		cpuprof  = fs.String("cpuprofile", "", "write a CPU profile of the run to `file`")
		memprof  = fs.String("memprofile", "", "write a heap profile of the run (what it allocated, and what is in use at its end) to `file`")
		from     = fs.String("from", "", "print the report saved (with --json) in `file` instead of running")
		hold     = fs.Int(bench.HolderFlag, 0, "internal: hold `n` idle sessions for the idle-sessions rows")
		gateway  = fs.String(bench.GatewayFlag, "", "internal: the gateway address for --"+bench.HolderFlag)
	)
	fs.BoolVar(&cfg.Quick, "quick", false, "scale sizes down so that the run takes under a minute (what CI runs)")
	fs.Var(&rows, "only", "run only the row `name` (or group, e.g. gateway-hop); repeatable or comma-separated")
	fs.StringVar(&cfg.Dir, "dir", "", "directory for the durable-journal row's SQLite file (default: the temp dir); put it on the disk to measure")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cadbench [--quick] [--json | --markdown] [--only name] [--dir dir]\n\nrows: %s\n\n", strings.Join(bench.RowNames(), ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cadbench: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *hold > 0 {
		if err := bench.ServeHolder(ctx, *gateway, *hold, stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "cadbench: hold sessions: %v\n", err)
			return 1
		}
		return 0
	}
	if *list {
		for _, name := range bench.RowNames() {
			fmt.Fprintln(stdout, name)
		}
		return 0
	}
	cfg.Only = rows
	if !*quiet {
		cfg.Progress = stderr
	}
	if self, err := os.Executable(); err == nil {
		cfg.Holder = bench.ExecHolder(self)
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintf(stderr, "cadbench: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "cadbench: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if *memprof != "" {
		defer func() {
			if err := writeHeapProfile(*memprof); err != nil {
				fmt.Fprintf(stderr, "cadbench: %v\n", err)
			}
		}()
	}

	var rep *bench.Report
	if *from != "" {
		data, err := os.ReadFile(*from)
		if err == nil {
			rep = new(bench.Report)
			err = json.Unmarshal(data, rep)
		}
		if err != nil {
			fmt.Fprintf(stderr, "cadbench: read report: %v\n", err)
			return 1
		}
	} else {
		var err error
		if rep, err = bench.Run(ctx, cfg); err != nil {
			fmt.Fprintf(stderr, "cadbench: %v\n", err)
			return 2
		}
	}
	var err error
	switch {
	case *asJSON:
		err = rep.WriteJSON(stdout)
	case *markdown:
		err = rep.WriteMarkdown(stdout)
	default:
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cadbench: %v\n", err)
		return 1
	}
	if failed := rep.Failed(); len(failed) > 0 {
		for _, row := range failed {
			fmt.Fprintf(stderr, "cadbench: %s could not run: %s\n", row.Name, row.Error)
		}
		return 1
	}
	return 0
}

// writeHeapProfile writes the heap profile to path: pprof's alloc_space
// and alloc_objects are the run's allocations, inuse_space what is held
// after a collection at its end.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

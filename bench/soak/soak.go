// Package soak runs cadbridge's gateway and engine as processes on
// loopback for a bounded time under a mix of clients — batches,
// approvals answered, ignored and answered late, disconnects mid-batch
// and resumes, $/cancelRequest, floods of clients that never read,
// oversized messages — and then checks, against the journal through
// operations.get, that no acknowledged operation was lost and none ran
// twice. The cadsoak command runs it.
//
// The services run as separate processes, not in the soak's own process,
// so that their resident memory and goroutines (read from their /metrics)
// are theirs alone, and so that what is soaked is the binaries people run.
package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Config configures a run.
type Config struct {
	// Duration is how long the clients run.
	Duration time.Duration
	// Scale multiplies the mix of clients; 0 means 1.
	Scale int
	// EngineBin and GatewayBin are the binaries; empty builds them from
	// the module around the working directory.
	EngineBin, GatewayBin string
	// Store is the engine's store; empty means SQLite in a temporary
	// directory.
	Store string
	// WriteTimeout is the gateway's --write-timeout: how long a client
	// that does not read is kept; 0 means 2 s.
	WriteTimeout time.Duration
	// RequestTimeout is the engine's --request-timeout: how long an
	// approval waits; 0 means 4 s.
	RequestTimeout time.Duration
	// ReadLimit is the gateway's --read-limit in bytes; 0 means 1 MiB.
	ReadLimit int
	// Progress, when set, is told what the run is doing.
	Progress io.Writer
}

// Report is what a run measured and found.
type Report struct {
	// Duration is how long the clients ran.
	Duration time.Duration
	// Clients is how many ran.
	Clients int
	// Kinds are the client kinds, with their calls and error codes.
	Kinds []Kind
	// StepErrors counts failed steps by error kind.
	StepErrors map[string]int
	// Unexpected counts outcomes outside the expected ones; Notes says
	// what the first were.
	Unexpected int
	Notes      []string
	// RSS and Goroutines are each service's, by name.
	RSS, Goroutines map[string]Span
	// Check is the verdict on operations and documents.
	Check Check
}

// Kind is one kind of client's tally.
type Kind struct {
	// Name of the kind.
	Name string
	// Calls answered (or ended) and OK among them.
	Calls, OK int
	// Codes counts errors by code.
	Codes map[string]int
}

// Passed reports whether the run found nothing wrong.
func (r *Report) Passed() bool {
	c := r.Check
	return r.Unexpected == 0 && c.Lost == 0 && c.Twice == 0 && c.Unfinished == 0
}

// goroutineSlack is how many more goroutines than at the start an idle
// service may have at the end (idle keep-alive connections and the like).
const goroutineSlack = 25

var (
	engineAnnounce  = regexp.MustCompile(`^cadengine listening on (\S+)$`)
	metricsAnnounce = regexp.MustCompile(`^cadengine metrics on (http://\S+)$`)
	gatewayAnnounce = regexp.MustCompile(`^gateway listening on http://(\S+) `)
)

// Run starts the services, runs the clients for cfg.Duration, checks the
// journal and the documents, stops the services and reports. It fails
// only when the soak itself cannot run; what it finds is in the Report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Scale <= 0 {
		cfg.Scale = 1
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 2 * time.Second
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 4 * time.Second
	}
	if cfg.ReadLimit == 0 {
		cfg.ReadLimit = 1 << 20
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "cadsoak: "+format+"\n", args...)
		}
	}
	dir, err := os.MkdirTemp("", "cadsoak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if cfg.EngineBin == "" || cfg.GatewayBin == "" {
		progress("building cadengine and gateway")
		if cfg.EngineBin, cfg.GatewayBin, err = build(ctx, dir); err != nil {
			return nil, err
		}
	}
	if cfg.Store == "" {
		cfg.Store = "sqlite:" + filepath.Join(dir, "soak.db")
	}
	engine, found, err := start(ctx, "cadengine", cfg.EngineBin, []string{
		"--listen", "127.0.0.1:0", "--store", cfg.Store, "--metrics-listen", "127.0.0.1:0",
		"--request-timeout", cfg.RequestTimeout.String(),
	}, engineAnnounce, metricsAnnounce)
	if err != nil {
		return nil, err
	}
	engine.addr, engine.metrics = found[0], found[1]
	gateway, found, err := start(ctx, "gateway", cfg.GatewayBin, []string{
		"--listen", "127.0.0.1:0", "--engine", engine.addr, "--check-contracts",
		"--write-timeout", cfg.WriteTimeout.String(), "--read-limit", fmt.Sprint(cfg.ReadLimit),
	}, gatewayAnnounce)
	if err != nil {
		engine.stop()
		return nil, err
	}
	gateway.addr = found[0]
	gateway.metrics = "http://" + gateway.addr + "/metrics"
	procs := []*process{gateway, engine}
	rep, runErr := soakWith(ctx, cfg, gateway.addr, procs, progress)
	stopErr := errors.Join(gateway.stop(), engine.stop())
	if runErr != nil {
		return rep, runErr
	}
	if stopErr != nil && rep != nil {
		rep.Unexpected++
		rep.Notes = append(rep.Notes, "stopping: "+stopErr.Error())
	}
	return rep, nil
}

// soakWith runs the clients against the gateway at addr and checks.
func soakWith(ctx context.Context, cfg Config, addr string, procs []*process, progress func(string, ...any)) (*Report, error) {
	s := &soak{cfg: cfg, gateway: addr, ledger: newLedger(), tally: newTally()}
	w := &watch{rss: map[string]*Span{}, gor: map[string]*Span{}}
	for _, p := range procs {
		u, err := sample(ctx, p.metrics)
		if err != nil {
			return nil, err
		}
		w.record(p.name, u)
	}
	late := func() time.Duration { return time.Duration(200+rand.IntN(1000)) * time.Millisecond }
	never := func() time.Duration { return cfg.RequestTimeout + 2*time.Second }
	prompt := func() time.Duration { return 0 }
	mix := []func(context.Context) error{
		s.batcher, s.batcher, s.batcher,
		s.approver("approvals", prompt, true, "completed"),
		s.approver("late-approvals", late, false, "completed"),
		s.approver("ignored-approvals", never, false, "failed"),
		s.resumer, s.resumer,
		s.canceller,
		s.flooder,
		s.oversized,
	}
	var clients []func(context.Context) error
	for range cfg.Scale {
		clients = append(clients, mix...)
	}

	progress("%d clients for %v against gateway %s", len(clients), cfg.Duration, addr)
	wctx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Go(func() { w.run(wctx, 500*time.Millisecond, procs) })
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for i, client := range clients {
		wg.Go(func() { errs[i] = client(runCtx) })
	}
	wg.Wait()
	stop()
	elapsed := time.Since(start)
	for _, p := range procs {
		if !p.alive() {
			stopWatch()
			watching.Wait()
			return nil, fmt.Errorf("%s died during the soak: %v\n%s", p.name, p.err, p.stderr)
		}
	}
	progress("clients done after %v; checking the journal", elapsed.Round(time.Millisecond))
	c, err := dial(ctx, addr, nil)
	if err != nil {
		stopWatch()
		watching.Wait()
		return nil, err
	}
	check, err := s.ledger.check(ctx, c)
	c.close()
	// The end: every client gone, and the services idle for longer than
	// an approval left open waits.
	time.Sleep(cfg.RequestTimeout + time.Second)
	stopWatch()
	watching.Wait()
	for _, p := range procs {
		if u, err := sample(ctx, p.metrics); err == nil {
			w.record(p.name, u)
		}
	}
	if err != nil {
		return nil, err
	}
	rep := &Report{Duration: elapsed, Clients: len(clients), Check: check, RSS: map[string]Span{}, Goroutines: map[string]Span{}}
	for name, sp := range w.rss {
		rep.RSS[name] = *sp
	}
	for name, sp := range w.gor {
		rep.Goroutines[name] = *sp
	}
	t := s.tally
	t.mu.Lock()
	for _, name := range slices.Sorted(maps.Keys(t.calls)) {
		rep.Kinds = append(rep.Kinds, Kind{Name: name, Calls: t.calls[name], OK: t.ok[name], Codes: t.codes[name]})
	}
	rep.StepErrors, rep.Unexpected, rep.Notes = t.steps, t.unexpected, slices.Clone(t.notes)
	t.mu.Unlock()
	// Once idle again, a service is back near the goroutines it started
	// with: more means something it started for a client outlived it.
	for _, name := range slices.Sorted(maps.Keys(rep.Goroutines)) {
		if g := rep.Goroutines[name]; g.End > g.Start+goroutineSlack {
			rep.Unexpected++
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s ends with %.0f goroutines, %.0f at the start: a leak", name, g.End, g.Start))
		}
	}
	for i, err := range errs {
		if err != nil {
			rep.Unexpected++
			rep.Notes = append(rep.Notes, fmt.Sprintf("client %d stopped: %v", i, err))
		}
	}
	return rep, nil
}

// WriteText writes the report as tables.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "cadsoak: %d clients for %v against gateway and engine processes on loopback\n\n", r.Clients, r.Duration.Round(time.Millisecond))
	fmt.Fprintln(tw, "CLIENTS\tCALLS\tOK\tERRORS BY CODE")
	total, ok := 0, 0
	for _, k := range r.Kinds {
		total += k.Calls
		ok += k.OK
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", k.Name, k.Calls, k.OK, counts(k.Codes))
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t\n\n", total, ok)
	fmt.Fprintf(tw, "failed steps by kind\t%s\n\n", counts(r.StepErrors))
	fmt.Fprintln(tw, "PROCESS\tRSS START\tPEAK\tEND\tGOROUTINES START\tPEAK\tEND")
	for _, name := range slices.Sorted(maps.Keys(r.RSS)) {
		m, g := r.RSS[name], r.Goroutines[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\n", name, mib(m.Start), mib(m.Peak), mib(m.End), g.Start, g.Peak, g.End)
	}
	c := r.Check
	fmt.Fprintf(tw, "\nOPERATIONS\tSENT\tACKNOWLEDGED\tLOST\tRUN TWICE\tUNFINISHED\tDOCUMENTS CHECKED\n")
	fmt.Fprintf(tw, "batches\t%d\t%d\t%d\t%d\t%d\t%d\n", c.Sent, c.Acked, c.Lost, c.Twice, c.Unfinished, c.Documents)
	tw.Flush()
	for _, p := range c.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	fmt.Fprintf(w, "unexpected outcomes: %d\n", r.Unexpected)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  unexpected: %s\n", n)
	}
	verdict := "PASS"
	if !r.Passed() {
		verdict = "FAIL"
	}
	_, err := fmt.Fprintf(w, "result: %s\n", verdict)
	return err
}

// counts renders a count map as "k ×n, …" in key order.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

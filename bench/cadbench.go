package bench

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Config configures Run.
type Config struct {
	// Quick scales the sizes down (see QuickSizes) so that a run takes
	// under a minute; the report says so.
	Quick bool
	// Sizes, if not nil, replaces the sizes Quick chooses.
	Sizes *Sizes
	// Only names the rows to run, each by its name or by the part before
	// "/" ("gateway-hop" runs both gateway-hop rows); empty runs them all.
	Only []string
	// Dir holds the SQLite files of the durable-journal row; empty means
	// os.TempDir(). It should be on the disk whose fsync is to be
	// measured, not a tmpfs.
	Dir string
	// Holder holds the WebSocket sessions of the idle-sessions rows; nil
	// holds them in this process, whose heap then counts their client side
	// too. ExecHolder holds them in a child process.
	Holder SessionHolder
	// Progress receives a line as each row starts and ends; nil means
	// none.
	Progress io.Writer
	// Python is the interpreter with ezdxf that the DXF rows compare
	// against; empty means /usr/bin/python3 (Debian's python3-ezdxf).
	Python string
	// Corpus is the directory of DXF files of corpus-import; empty means
	// ../shared/dxfcorpus/files from the repository's root.
	Corpus string

	// ready, if set, is called by each row when its setup is done and its
	// measurement begins (benchmarks reset their timer there).
	ready func()
}

// Sizes are the sizes and repetitions of the rows. A round is one block
// of ops per side; blocks alternate between the sides.
type Sizes struct {
	// HopRounds blocks of HopCalls sequential calls per side, one session.
	HopRounds, HopCalls int
	// HopSessions concurrent sessions (gateway-hop/64), each making
	// HopConcurrentCalls calls per block, HopConcurrentRounds blocks.
	HopSessions, HopConcurrentRounds, HopConcurrentCalls int
	// BatchSteps steps in one cad.batch against as many tools.call;
	// BatchRounds blocks of BatchOps.
	BatchSteps, BatchRounds, BatchOps int
	// CreateEntities entities in one entity_batch_create against as many
	// single steps; CreateRounds rounds of one op per side.
	CreateEntities, CreateRounds int
	// RollbackEntities in the document; RollbackSteps steps rolled back;
	// RollbackRounds rounds of one snapshot restore and RollbackOps
	// rolled-back batches.
	RollbackEntities, RollbackSteps, RollbackRounds, RollbackOps int
	// JournalSteps steps per batch; JournalRounds blocks of JournalOps.
	JournalSteps, JournalRounds, JournalOps int
	// ReplayOpen open server requests and at least ReplayEvents events in
	// the resumed session; ReplayRounds blocks of ReplayOps.
	ReplayOpen, ReplayEvents, ReplayRounds, ReplayOps int
	// IdleSessions are the session counts of the two idle-sessions rows.
	IdleSessions [2]int
	// CoreRounds blocks of CoreOps calls (core-entity-get) or CoreBatches
	// batches of BatchSteps steps (core-batch-step) per side.
	CoreRounds, CoreOps, CoreBatches int
	// StoreRounds rounds of a StoreSteps-step and a 1-step batch per store.
	StoreSteps, StoreRounds int
	// FailoverKills kills -9 of a document's holder (failover row).
	FailoverKills int
	// DXFLines LINEs in the DXF file of dxf-import and dxf-export;
	// DXFRounds rounds of one op per side.
	DXFLines, DXFRounds int
	// CorpusFiles files of the DXF corpus (0: all of them);
	// CorpusRounds rounds of one pass over them per side (corpus-import).
	CorpusFiles, CorpusRounds int
	// DraftingRounds blocks of DraftingOps batches of BatchSteps modify
	// (or line) steps per side (drafting-batch).
	DraftingRounds, DraftingOps int
	// SearchRounds blocks of SearchOps tool_search calls per side
	// (tool-search).
	SearchRounds, SearchOps int
	// RenderRounds blocks of RenderOps pictures per side (view-render).
	RenderRounds, RenderOps int
	// ConstraintRounds blocks of ConstraintOps solves or calls per side
	// (constraint-solve, constraint-resolve).
	ConstraintRounds, ConstraintOps int
}

// FullSizes are the sizes of a full run (under two minutes on two cores).
func FullSizes() Sizes {
	return Sizes{
		HopRounds: 40, HopCalls: 100,
		HopSessions: 64, HopConcurrentRounds: 20, HopConcurrentCalls: 20,
		BatchSteps: 100, BatchRounds: 40, BatchOps: 2,
		CreateEntities: 100_000, CreateRounds: 5,
		RollbackEntities: 1_000_000, RollbackSteps: 10, RollbackRounds: 5, RollbackOps: 100,
		JournalSteps: 100, JournalRounds: 40, JournalOps: 3,
		ReplayOpen: 100, ReplayEvents: 512, ReplayRounds: 40, ReplayOps: 5,
		IdleSessions: [2]int{1_000, 10_000},
		CoreRounds:   40, CoreOps: 2_000, CoreBatches: 20,
		StoreSteps: 1_000, StoreRounds: 20,
		FailoverKills: 10,
		DXFLines:      100_000, DXFRounds: 9,
		CorpusFiles: 0, CorpusRounds: 3,
		DraftingRounds: 200, DraftingOps: 2,
		SearchRounds: 8, SearchOps: 100,
		RenderRounds: 10, RenderOps: 2,
		ConstraintRounds: 20, ConstraintOps: 10,
	}
}

// QuickSizes are the sizes of --quick: the shapes of the full run, with
// smaller documents, fewer idle sessions and fewer rounds.
func QuickSizes() Sizes {
	return Sizes{
		HopRounds: 20, HopCalls: 50,
		HopSessions: 64, HopConcurrentRounds: 10, HopConcurrentCalls: 5,
		BatchSteps: 100, BatchRounds: 20, BatchOps: 1,
		CreateEntities: 10_000, CreateRounds: 3,
		RollbackEntities: 100_000, RollbackSteps: 10, RollbackRounds: 3, RollbackOps: 30,
		JournalSteps: 100, JournalRounds: 20, JournalOps: 1,
		ReplayOpen: 100, ReplayEvents: 512, ReplayRounds: 20, ReplayOps: 2,
		IdleSessions: [2]int{100, 500},
		CoreRounds:   20, CoreOps: 1_000, CoreBatches: 10,
		StoreSteps: 1_000, StoreRounds: 10,
		FailoverKills: 3,
		DXFLines:      5_000, DXFRounds: 3,
		CorpusFiles: 10, CorpusRounds: 3,
		DraftingRounds: 20, DraftingOps: 1,
		SearchRounds: 4, SearchOps: 100,
		RenderRounds: 3, RenderOps: 1,
		ConstraintRounds: 10, ConstraintOps: 5,
	}
}

// TinySizes prove that every row runs, in seconds; their figures mean
// little.
func TinySizes() Sizes {
	return Sizes{
		HopRounds: 2, HopCalls: 5,
		HopSessions: 8, HopConcurrentRounds: 2, HopConcurrentCalls: 2,
		BatchSteps: 10, BatchRounds: 2, BatchOps: 1,
		CreateEntities: 2_000, CreateRounds: 1,
		RollbackEntities: 2_000, RollbackSteps: 10, RollbackRounds: 1, RollbackOps: 3,
		JournalSteps: 10, JournalRounds: 2, JournalOps: 1,
		ReplayOpen: 5, ReplayEvents: 40, ReplayRounds: 2, ReplayOps: 1,
		IdleSessions: [2]int{10, 20},
		CoreRounds:   2, CoreOps: 20, CoreBatches: 2,
		StoreSteps: 50, StoreRounds: 2,
		FailoverKills: 1,
		DXFLines:      5_000, DXFRounds: 1,
		CorpusFiles: 3, CorpusRounds: 1,
		DraftingRounds: 2, DraftingOps: 1,
		SearchRounds: 2, SearchOps: 20,
		RenderRounds: 1, RenderOps: 1,
		ConstraintRounds: 2, ConstraintOps: 2,
	}
}

// scaled describes how s differs from the full sizes, for the report.
func (s Sizes) scaled() string {
	full := FullSizes()
	if s == full {
		return ""
	}
	var parts []string
	add := func(what string, f, q int) {
		if f != q {
			parts = append(parts, fmt.Sprintf("%s %s → %s", what, count(f), count(q)))
		}
	}
	add("rollback entities", full.RollbackEntities, s.RollbackEntities)
	add("batch-create entities", full.CreateEntities, s.CreateEntities)
	add("idle sessions", full.IdleSessions[0], s.IdleSessions[0])
	add("idle sessions", full.IdleSessions[1], s.IdleSessions[1])
	add("concurrent sessions", full.HopSessions, s.HopSessions)
	add("open requests", full.ReplayOpen, s.ReplayOpen)
	add("events", full.ReplayEvents, s.ReplayEvents)
	add("batch steps", full.BatchSteps, s.BatchSteps)
	add("failover kills", full.FailoverKills, s.FailoverKills)
	add("DXF lines", full.DXFLines, s.DXFLines)
	if s.CorpusFiles != full.CorpusFiles {
		parts = append(parts, fmt.Sprintf("corpus files all → %d", s.CorpusFiles))
	}
	parts = append(parts, "fewer rounds; figures are indicative, not the published table")
	return strings.Join(parts, ", ")
}

// count writes 1000000 as 1M and 10000 as 10k.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	default:
		return fmt.Sprint(n)
	}
}

// env is what a row runs with.
type env struct {
	cfg   Config
	sizes Sizes
	quick bool
	// full are the full sizes, for rows that say how a quick run scaled
	// them.
	full Sizes
	// dxf is what the DXF rows share: ezdxf's interpreter and the files
	// it wrote, removed when the run ends.
	dxf dxfShared
}

// logf reports progress.
// tempDir makes a new directory for a row's store files, under --dir (the
// temporary directory by default); the caller removes it.
func (e *env) tempDir(prefix string) (string, error) {
	return os.MkdirTemp(cmp.Or(e.cfg.Dir, os.TempDir()), prefix)
}

func (e *env) logf(format string, args ...any) {
	if e.cfg.Progress != nil {
		fmt.Fprintf(e.cfg.Progress, "cadbench: "+format+"\n", args...)
	}
}

// ready marks the end of a row's setup.
func (e *env) ready() {
	if e.cfg.ready != nil {
		e.cfg.ready()
	}
}

// sizeNote is "n what", with the full run's figure when a quick run scaled
// it down.
func (e *env) sizeNote(n, full int, what string) string {
	if n == full {
		return count(n) + " " + what
	}
	return fmt.Sprintf("%s %s (full run: %s)", count(n), what, count(full))
}

// rowSpec is a row of the table and the function that measures it.
type rowSpec struct {
	name string
	run  func(ctx context.Context, e *env, row *Row) error
}

// rowSpecs lists the rows in run order.
func rowSpecs() []rowSpec {
	return []rowSpec{
		{"gateway-hop/1", func(ctx context.Context, e *env, row *Row) error { return gatewayHop(ctx, e, row, 1) }},
		{"gateway-hop/64", func(ctx context.Context, e *env, row *Row) error {
			return gatewayHop(ctx, e, row, e.sizes.HopSessions)
		}},
		{"mcp-call", mcpCall},
		{"core-entity-get", coreEntityGet},
		{"core-batch-step", coreBatchStep},
		{"core-store", coreStore},
		{"batch-amortisation", batchAmortisation},
		{"batch-create", batchCreate},
		{"drafting-batch", draftingBatch},
		{"tool-search", toolSearch},
		{"view-render", viewRender},
		{"constraint-solve", constraintSolve},
		{"constraint-resolve", constraintResolve},
		{"dxf-import", dxfImport},
		{"dxf-export", dxfExport},
		{"corpus-import", corpusImport},
		{"rollback", rollback},
		{"durable-journal", durableJournal},
		{"durable-journal-postgres", journalPostgres},
		{"session-events-postgres", sessionEventsPostgres},
		{"failover", failover},
		{"replay", replay},
		{"idle-sessions/1k", func(ctx context.Context, e *env, row *Row) error {
			return idleSessions(ctx, e, row, e.sizes.IdleSessions[0], e.full.IdleSessions[0])
		}},
		{"idle-sessions/10k", func(ctx context.Context, e *env, row *Row) error {
			return idleSessions(ctx, e, row, e.sizes.IdleSessions[1], e.full.IdleSessions[1])
		}},
	}
}

// RowNames lists the names of the rows, in run order.
func RowNames() []string {
	var names []string
	for _, s := range rowSpecs() {
		names = append(names, s.name)
	}
	return names
}

// selected reports whether a row is among only (see Config.Only).
func selected(name string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	group, _, _ := strings.Cut(name, "/")
	for _, o := range only {
		if o == name || o == group {
			return true
		}
	}
	return false
}

// Run measures the rows cfg selects and returns the report. Misses are
// reported, not errors; a row that cannot run records its error in the
// report (see Report.Failed). Run returns an error only for a Config it
// cannot follow.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	for _, o := range cfg.Only {
		ok := false
		for _, n := range RowNames() {
			if selected(n, []string{o}) {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("no row is named %q (rows: %s)", o, strings.Join(RowNames(), ", "))
		}
	}
	e := &env{cfg: cfg, full: FullSizes(), sizes: FullSizes(), quick: cfg.Quick}
	mode := "full"
	if cfg.Quick {
		e.sizes, mode = QuickSizes(), "quick"
	}
	if cfg.Sizes != nil {
		e.sizes, mode = *cfg.Sizes, "custom"
	}
	rep := &Report{Mode: mode, Scaled: e.sizes.scaled(), Started: time.Now(), Machine: machine()}
	defer e.dxf.remove()
	for _, spec := range rowSpecs() {
		if !selected(spec.name, cfg.Only) {
			continue
		}
		if err := ctx.Err(); err != nil {
			rep.Rows = append(rep.Rows, &Row{Name: spec.name, Error: err.Error()})
			continue
		}
		row := &Row{Name: spec.name}
		e.logf("%s: running", spec.name)
		start := time.Now()
		err := spec.run(ctx, e, row)
		row.Elapsed = time.Since(start)
		switch {
		case err != nil:
			row.Error = err.Error()
			e.logf("%s: error after %s: %v", spec.name, fmtDur(row.Elapsed), err)
		case row.Skipped != "":
			e.logf("%s: skipped: %s", spec.name, row.Skipped)
		default:
			e.logf("%s: done in %s", spec.name, fmtDur(row.Elapsed))
		}
		rep.Rows = append(rep.Rows, row)
		runtime.GC() // leave the next row a clean heap
	}
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

// machine describes this host.
func machine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

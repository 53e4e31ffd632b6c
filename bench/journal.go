package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// durableJournal measures what durability costs: the same batches through
// the gateway to an engine on SQLite (WAL, synchronous=FULL: every
// acknowledged batch is fsynced with its journal record) and to one on the
// memory store.
func durableJournal(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.JournalSteps
	row.Title = fmt.Sprintf("one cad.batch of %d entity_create_line over WebSocket: SQLite store (WAL, synchronous=FULL) vs memory store", n)
	row.Size = fmt.Sprintf("%d steps, %d batches per side", n, e.sizes.JournalRounds*e.sizes.JournalOps)
	dir, err := e.tempDir("cadbench-journal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	b, s, err := compareStores(ctx, e, n, storeSide{"memory:", "memory store"}, storeSide{"sqlite:" + filepath.Join(dir, "cadengine.db"), "SQLite store, synchronous=FULL"})
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("throughput-ratio", "throughput, SQLite ÷ memory (higher is better)", ratio(s.Throughput, b.Throughput), "x", Goal{">=", 0.5}),
	}
	row.Notes = []string{
		fmt.Sprintf("The SQLite file is in %s (%s); one batch is one store transaction with its journal record, fsynced before the result is returned.", filepath.Dir(dir), fsType(dir)),
	}
	if d, err := fsyncLatency(dir, 20); err == nil {
		row.Notes = append(row.Notes, fmt.Sprintf("A bare 4 KiB write + fsync in that directory takes %s (median of 20), for scale.", fmtDur(d)))
	}
	return nil
}

// fsyncLatency is the median time of n 4 KiB writes each followed by
// fsync, in a scratch file in dir.
func fsyncLatency(dir string, n int) (time.Duration, error) {
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if _, err := f.Write(buf); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return percentile(lat, 0.5), nil
}

// storeSide is one side of a store comparison: the engine's store and what
// the row calls it.
type storeSide struct{ store, name string }

// compareStores measures the same cad.batch of n entity_create_line steps
// over WebSocket on two stacks, each with its engine on its own store.
func compareStores(ctx context.Context, e *env, n int, baseline, subject storeSide) (Side, Side, error) {
	var sides [2]*contender
	for i, ss := range []storeSide{baseline, subject} {
		st, err := Start(Options{Store: ss.store})
		if err != nil {
			return Side{}, Side{}, err
		}
		defer st.Close()
		c, err := Dial(ctx, st.Gateway, nil)
		if err != nil {
			return Side{}, Side{}, err
		}
		defer c.Close()
		doc, err := createDocument(ctx, c)
		if err != nil {
			return Side{}, Side{}, err
		}
		batch := mustJSON(obj{"document_id": doc, "steps": lineSteps(n)})
		sides[i] = &contender{
			name: ss.name, unit: "batch", perBlock: e.sizes.JournalOps,
			op: func(ctx context.Context, _ int) error { return runBatch(ctx, c, batch) },
		}
	}
	e.ready()
	return compare(ctx, e.sizes.JournalRounds, 2, sides[0], sides[1])
}

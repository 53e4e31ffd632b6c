package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
)

// contender is one side of a comparison: an operation and how to run it.
type contender struct {
	// name says what one op is, as the table shows it.
	name string
	// unit names one op in throughput figures ("call", "batch").
	unit string
	// workers run ops concurrently within a block; 0 means 1.
	workers int
	// perBlock is how many ops each worker runs per block; 0 means 1.
	perBlock int
	// op runs one op; w is the worker (0 ≤ w < workers).
	op func(ctx context.Context, w int) error
	// prep, if set, runs before every op, untimed (a fresh document, say).
	// Allocations are then counted around each op rather than each block.
	prep func(ctx context.Context, w int) error
	// gc collects garbage before each block, untimed, so that one side's
	// garbage is not collected on the other side's time.
	gc bool
}

// sample is what one side measured.
type sample struct {
	lat  []time.Duration // every op's latency
	wall time.Duration   // summed wall time of the blocks
	used usage           // what the ops used of the process
}

// compare measures baseline and subject side by side: warm-up ops first,
// then rounds of one block each, alternating which side goes first (ABBA…)
// so that drift and machine noise hit both alike.
func compare(ctx context.Context, rounds, warmup int, baseline, subject *contender) (Side, Side, error) {
	var a, b sample
	for _, c := range []*contender{baseline, subject} {
		for range warmup {
			if _, _, err := c.runOp(ctx, 0); err != nil {
				return Side{}, Side{}, fmt.Errorf("%s (warm-up): %w", c.name, err)
			}
		}
	}
	for r := range rounds {
		first, second, fs, ss := baseline, subject, &a, &b
		if r%2 == 1 {
			first, second, fs, ss = subject, baseline, &b, &a
		}
		if err := first.block(ctx, fs); err != nil {
			return Side{}, Side{}, fmt.Errorf("%s: %w", first.name, err)
		}
		if err := second.block(ctx, ss); err != nil {
			return Side{}, Side{}, fmt.Errorf("%s: %w", second.name, err)
		}
	}
	return a.side(baseline), b.side(subject), nil
}

// block runs one block of c's ops into s.
func (c *contender) block(ctx context.Context, s *sample) error {
	workers, per := max(c.workers, 1), max(c.perBlock, 1)
	if c.prep != nil && workers > 1 {
		return fmt.Errorf("contender %s: prep needs a single worker", c.name) // a bug in a row
	}
	if c.gc {
		runtime.GC()
	}
	lats := make([][]time.Duration, workers)
	used := make([]usage, workers)
	errs := make([]error, workers)
	before := usageNow()
	start := time.Now()
	if workers == 1 {
		lats[0], used[0], errs[0] = c.worker(ctx, 0, per)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { lats[w], used[w], errs[w] = c.worker(ctx, w, per) })
		}
		wg.Wait()
	}
	s.wall += time.Since(start)
	if c.prep == nil {
		s.used.add(usageNow().since(before))
	} else {
		s.used.add(used[0])
	}
	for w := range workers {
		if errs[w] != nil {
			return errs[w]
		}
		s.lat = append(s.lat, lats[w]...)
	}
	return nil
}

// worker runs per ops as worker w and returns their latencies and, when c
// has a prep, what the ops used.
func (c *contender) worker(ctx context.Context, w, per int) ([]time.Duration, usage, error) {
	lat := make([]time.Duration, 0, per)
	var used usage
	for range per {
		if err := ctx.Err(); err != nil {
			return lat, used, err
		}
		d, n, err := c.runOp(ctx, w)
		if err != nil {
			return lat, used, err
		}
		lat = append(lat, d)
		used.add(n)
	}
	return lat, used, nil
}

// runOp runs one op after its untimed prep and returns its latency and,
// when c has a prep, what it used.
func (c *contender) runOp(ctx context.Context, w int) (time.Duration, usage, error) {
	var before usage
	if c.prep != nil {
		if err := c.prep(ctx, w); err != nil {
			return 0, usage{}, fmt.Errorf("prepare: %w", err)
		}
		before = usageNow()
	}
	start := time.Now()
	err := c.op(ctx, w)
	d := time.Since(start)
	var used usage
	if c.prep != nil {
		used = usageNow().since(before)
	}
	return d, used, err
}

// side summarizes a sample.
func (s *sample) side(c *contender) Side {
	out := Side{Name: c.name, Unit: c.unit, N: len(s.lat)}
	if len(s.lat) == 0 {
		return out
	}
	sorted := slices.Clone(s.lat)
	slices.Sort(sorted)
	out.P50 = percentile(sorted, 0.50)
	out.P99 = percentile(sorted, 0.99)
	busy := s.wall
	if max(c.workers, 1) == 1 {
		busy = 0 // sequential: time spent in the ops, not in prep or GC
		for _, d := range s.lat {
			busy += d
		}
	}
	if busy > 0 {
		out.Throughput = float64(len(s.lat)) / busy.Seconds()
	}
	n := float64(len(s.lat))
	out.AllocsPerOp = float64(s.used.objects) / n
	if s.used.counted {
		out.ReadsPerOp, out.WritesPerOp = float64(s.used.reads)/n, float64(s.used.writes)/n
	}
	return out
}

// percentile is the nearest-rank percentile of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// usage is what the process used over some ops: heap objects allocated,
// and read and write system calls when counted (Linux).
type usage struct {
	objects, reads, writes uint64
	counted                bool
}

// usageNow is what the process has used so far.
func usageNow() usage {
	r, w, ok := ioCalls()
	return usage{objects: heapObjects(), reads: r, writes: w, counted: ok}
}

// since is what was used from before to u, less the read that counted u.
func (u usage) since(before usage) usage {
	d := usage{objects: u.objects - before.objects, counted: u.counted && before.counted}
	if d.counted {
		d.reads, d.writes = u.reads-before.reads-1, u.writes-before.writes
	}
	return d
}

func (u *usage) add(v usage) {
	u.objects, u.reads, u.writes = u.objects+v.objects, u.reads+v.reads, u.writes+v.writes
	u.counted = v.counted
}

// heapObjects is the number of heap objects the process has allocated so
// far. It does not stop the world.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

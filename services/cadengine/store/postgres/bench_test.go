package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// BenchmarkCommitPerEntity measures what one more entity costs in a
// committed commit, on PostgreSQL and on SQLite in the same run: each
// iteration commits, to each store in turn (alternating which goes
// first), a commit of 1000 new entities and a commit of 1, and the
// marginal cost of an entity is the difference over 999, which leaves
// out what every commit pays (the round trip, the fsync). It reports
// pg-ns/entity, sqlite-ns/entity and their ratio pg/sqlite.
//
//	go test -run '^$' -bench CommitPerEntity -benchtime 200x ./services/cadengine/store/postgres
func BenchmarkCommitPerEntity(b *testing.B) {
	const big = 1000
	lite, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lite.Close() })
	sides := []*side{{name: "pg", s: open(b, postgrestest.URL(b))}, {name: "sqlite", s: lite}}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		for k := range sides {
			sd := sides[(i+k)%len(sides)]
			sd.bigTime += sd.commit(ctx, b, big)
			sd.smallTime += sd.commit(ctx, b, 1)
		}
		i++
	}
	per := map[string]float64{}
	for _, sd := range sides {
		per[sd.name] = float64(sd.bigTime-sd.smallTime) / float64(i) / (big - 1)
		b.ReportMetric(per[sd.name], sd.name+"-ns/entity")
	}
	b.ReportMetric(per["pg"]/per["sqlite"], "pg/sqlite")
}

// side is one store of the benchmark and the time its commits took.
type side struct {
	name               string
	s                  store.Store
	revision           int64
	next               uint64 // the next entity handle
	bigTime, smallTime time.Duration
}

// commit commits n new entities of about a real entity's size (100
// bytes) and returns how long the Commit call took.
func (sd *side) commit(ctx context.Context, b *testing.B, n int) time.Duration {
	sd.revision++
	c := &store.Commit{Document: &store.DocumentRecord{ID: "doc-bench", Name: "bench", Revision: sd.revision,
		Layers: []store.LayerRecord{{Name: "0", Color: 7, Linetype: "Continuous", On: true}}, ContentHash: fmt.Sprint(sd.revision)}}
	for range n {
		sd.next++
		c.Put = append(c.Put, store.EntityRecord{Handle: 0x100 + sd.next, Data: fmt.Appendf(nil, "%-100x", sd.next)})
	}
	start := time.Now()
	if err := sd.s.Commit(ctx, c); err != nil {
		b.Fatalf("%s: Commit of %d entities: %v", sd.name, n, err)
	}
	return time.Since(start)
}

// BenchmarkAppendEvents measures one AppendEvents of one session's n
// events under its lease (what the engine's event log sends per round
// trip), beside a Commit of one entity under a document's lease, for
// scale.
//
//	go test -run '^$' -bench AppendEvents ./services/cadengine/store/postgres
func BenchmarkAppendEvents(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			s := open(b, postgrestest.URL(b))
			l, err := s.Grant(ctx, "session:ses-bench", "engine-a", time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			seq := int64(0)
			for b.Loop() {
				a := store.EventAppend{Lease: l, SessionID: "ses-bench", Keep: 512}
				for range n {
					seq++
					a.Events = append(a.Events, store.EventRecord{Seq: seq, Type: "batch.progress", Payload: fmt.Appendf(nil, `{"operation_id":"op-bench","step":%d,"total":100}`, seq)})
				}
				if _, err := s.AppendEvents(ctx, []store.EventAppend{a}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("commit", func(b *testing.B) {
		sd := &side{name: "pg", s: open(b, postgrestest.URL(b))}
		for b.Loop() {
			sd.commit(ctx, b, 1)
		}
	})
}

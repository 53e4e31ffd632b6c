//go:build unix

package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// BenchmarkCommit is one commit of n new entities of 60 bytes and a
// journal record with a response of 57 bytes per entity (a batch step's
// share), as a batch of n entity_create_line steps commits them. Besides
// the time, it reports the process's CPU time per commit (cpu-ns/op),
// which the fsync does not blur.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "cadengine.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			next, data, response := uint64(0x100), make([]byte, 60), make([]byte, 57*n)
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				c := &store.Commit{Document: &store.DocumentRecord{ID: "doc-0123456789abcdef", CreatedAt: time.Unix(0, 1), Revision: int64(i), NextHandle: next + uint64(n)}}
				for range n {
					c.Put = append(c.Put, store.EntityRecord{Handle: next, Data: data})
					next++
				}
				c.Operations = []store.OperationRecord{{Principal: "bench", ID: fmt.Sprintf("op-%d", i), Kind: "cad.batch", DocumentID: c.Document.ID,
					RequestHash: data[:32], Response: response, StartedAt: time.Unix(0, 1), FinishedAt: time.Unix(0, 2)}}
				if err := s.Commit(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

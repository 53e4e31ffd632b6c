package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// rssPeak samples a process's resident memory until stopped and reports
// the highest value seen.
type rssPeak struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func watchRSS(t *testing.T, p *proctest.Process) *rssPeak {
	r := &rssPeak{stop: make(chan struct{}), done: make(chan struct{})}
	r.peak.Store(rssBytes(t, p))
	go func() {
		defer close(r.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-tick.C:
				if n := rssBytes(t, p); n > r.peak.Load() {
					r.peak.Store(n)
				}
			}
		}
	}()
	return r
}

func (r *rssPeak) end() int64 {
	close(r.stop)
	<-r.done
	return r.peak.Load()
}

// flood writes tools.list calls on a new WebSocket and never reads, until
// the gateway drops the connection (a write fails) or ctx ends. It
// reports whether it was dropped.
func flood(ctx context.Context, t *testing.T, addr string) bool {
	ws, _, err := wsstream.Dial(ctx, "ws://"+addr+"/rpc", wsstream.DialOptions{})
	if err != nil {
		t.Errorf("dial: %v", err)
		return false
	}
	defer ws.Close()
	for i := 0; ctx.Err() == nil; i++ {
		req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools.list"}`, i)
		if err := ws.Write(ctx, req); err != nil {
			return ctx.Err() == nil
		}
	}
	return false
}

// timeCalls appends the durations of n document.get calls of a
// well-behaved client to d.
func timeCalls(t *testing.T, c *wsClient, doc string, n int, d []time.Duration) []time.Duration {
	t.Helper()
	for i := range n {
		start := time.Now()
		var info map[string]any
		mustCall(t, c, 1000+i, "document.get", map[string]any{"document_id": doc}, &info)
		d = append(d, time.Since(start))
	}
	return d
}

// p99 is the 99th percentile of d.
func p99(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)*99/100]
}

// TestFloodMemoryBounded: clients that flood tools.list and never read
// grow the gateway by a bounded amount (one by < 64 MiB, fifty by
// < 512 MiB), the gateway gives the memory back once it has dropped them,
// and a well-behaved client is served throughout.
func TestFloodMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("floods a gateway for several seconds")
	}
	if raceEnabled {
		// It measures the resident memory of gateway binaries the race
		// detector does not instrument, from flooding clients it slows
		// several times: the run without it (CI's test step) is the one.
		t.Skip("measures uninstrumented binaries; runs without -race")
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	// The gateway as deployed: the contract checker the other tests turn
	// on checks every answer against its schema, which takes most of the
	// gateway's CPU under a flood, slows the making of answers (so fewer
	// are held at the peak) and the well-behaved client's calls alike.
	gw := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--write-timeout", "5s", "--check-contracts=false")

	good := dialWebSocket(t, gw.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, good, 1, "document.create", map[string]any{"name": "flood"}, &doc)
	var tools json.RawMessage
	mustCall(t, good, 2, "tools.list", nil, &tools)
	t.Logf("one tools.list answer is %d KiB", len(tools)>>10)
	before := p99(timeCalls(t, good, doc.DocumentID, 200, nil))
	start := rssBytes(t, gw)

	for _, tt := range []struct {
		clients int
		limit   int64
	}{
		{1, 64 << 20},
		{50, 512 << 20},
	} {
		watch := watchRSS(t, gw)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var wg sync.WaitGroup
		var dropped atomic.Int64
		for range tt.clients {
			wg.Go(func() {
				if flood(ctx, t, gw.Addr) {
					dropped.Add(1)
				}
			})
		}
		// The well-behaved client keeps calling while the floods last.
		var during []time.Duration
		floods := make(chan struct{})
		go func() {
			wg.Wait()
			close(floods)
		}()
	serve:
		for {
			select {
			case <-floods:
				break serve
			default:
			}
			during = timeCalls(t, good, doc.DocumentID, 10, during)
		}
		cancel()
		peak := watch.end()
		if n := dropped.Load(); n != int64(tt.clients) {
			t.Errorf("%d flooding clients: %d dropped by the gateway, want all", tt.clients, n)
		}
		if grew := peak - start; grew > tt.limit {
			t.Errorf("%d flooding clients grew the gateway from %d MiB to %d MiB resident, want < %d MiB growth", tt.clients, start>>20, peak>>20, tt.limit>>20)
		} else {
			t.Logf("%d flooding clients: gateway resident %d MiB → peak %d MiB", tt.clients, start>>20, peak>>20)
		}
		if len(during) > 0 {
			p := p99(during)
			t.Logf("%d flooding clients: well-behaved client's p99 during ÷ before = %.2f (%v ÷ %v, %d calls during)", tt.clients, float64(p)/float64(before), p, before, len(during))
		}
	}

	// Once the floods are dropped the gateway gives their memory back: a
	// few seconds after their connections ended, even under load.
	const wait = 20 * time.Second
	dropped := time.Now()
	deadline := dropped.Add(wait)
	var after int64
	for {
		after = rssBytes(t, gw)
		if after-start < 64<<20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after-start >= 64<<20 {
		t.Errorf("gateway resident %d MiB %v after the floods were dropped, want within 64 MiB of %d MiB", after>>20, wait, start>>20)
	} else {
		t.Logf("gateway resident after the floods: %d MiB (start %d MiB), %v after they were dropped", after>>20, start>>20, time.Since(dropped).Round(100*time.Millisecond))
	}
	// (On a new connection: the gateway pings the old one, which this
	// test does not read while it waits, and so may have dropped it.)
	var info map[string]any
	mustCall(t, dialWebSocket(t, gw.Addr), 3, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
}

// TestMemoryBudgetOverloaded: past the process-wide memory budget every new
// call is answered 4029 with retry_after_ms, over WebSocket and POST.
func TestMemoryBudgetOverloaded(t *testing.T) {
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	// One byte: the call's own payload, held while it is served, is over it.
	gw := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--memory-budget", "1")
	for name, c := range map[string]client{
		"websocket": dialWebSocket(t, gw.Addr),
		"post":      &httpClient{url: "http://" + gw.Addr + "/rpc"},
	} {
		resp := call(t, c, 1, "document.list", map[string]any{})
		var data struct {
			RetryAfterMs int64 `json:"retry_after_ms"`
		}
		if resp.Error == nil || resp.Error.Code != 4029 || json.Unmarshal(resp.Error.Data, &data) != nil || data.RetryAfterMs <= 0 {
			t.Errorf("%s: document.list past the memory budget = %+v, want 4029 with retry_after_ms", name, resp)
		}
	}
}

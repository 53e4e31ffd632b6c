package e2e_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
)

// batchCreateCall is a tools.call of entity_batch_create with n lines whose
// coordinates have as many digits as a real drawing's, and its size on the
// wire.
func batchCreateCall(t *testing.T, doc string, n int) (params map[string]any, size int) {
	t.Helper()
	entities := make([]any, n)
	for i := range entities {
		x, y := float64(i%1000)*1.234567, float64(i/1000)*2.345678
		entities[i] = map[string]any{"type": "line", "x1": x, "y1": y, "x2": x + 0.987654, "y2": y + 0.876543}
	}
	params = map[string]any{"document_id": doc, "tool": "entity_batch_create", "args": map[string]any{"entities": entities}}
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return params, len(raw)
}

// createMany runs entity_batch_create of n lines on a new document through
// the gateway at addr and checks that every entity was made, once.
func createMany(t *testing.T, addr string, n int) (size int) {
	t.Helper()
	c := dialWebSocket(t, addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": fmt.Sprint("many-", n)}, &doc)
	params, size := batchCreateCall(t, doc.DocumentID, n)
	var created struct {
		OK       bool  `json:"ok"`
		Revision int64 `json:"revision"`
		Result   struct {
			Handles []string `json:"handles"`
			Count   int      `json:"count"`
		} `json:"result"`
	}
	mustCall(t, c, 2, "tools.call", params, &created)
	distinct := map[string]bool{}
	for _, h := range created.Result.Handles {
		distinct[h] = true
	}
	if !created.OK || created.Result.Count != n || len(distinct) != n || created.Revision != 1 {
		t.Fatalf("entity_batch_create of %d: ok %v, count %d, %d distinct handles, revision %d; want every entity made once in one revision",
			n, created.OK, created.Result.Count, len(distinct), created.Revision)
	}
	var stats struct {
		Result struct {
			Total int `json:"total"`
		} `json:"result"`
	}
	mustCall(t, c, 3, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_list", "args": map[string]any{"page_size": 1}}, &stats)
	if stats.Result.Total != n {
		t.Errorf("entity_list total = %d after entity_batch_create of %d", stats.Result.Total, n)
	}
	return size
}

// TestBatchCreateFitsDefaultLimits: 10k entities in one entity_batch_create
// pass the default limits of both services (the gateway's 1 MiB read limit,
// the 16 MiB gRPC messages between them).
func TestBatchCreateFitsDefaultLimits(t *testing.T) {
	addr, _ := startServices(t)
	size := createMany(t, addr, 10_000)
	t.Logf("10k lines: %d KiB of JSON-RPC", size>>10)
}

// TestBatchCreateAtMaximum: the largest entity_batch_create (100k) needs only
// what the README says to raise, the gateway's --read-limit.
func TestBatchCreateAtMaximum(t *testing.T) {
	if testing.Short() {
		t.Skip("100k entities through both services (-short)")
	}
	e := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	g := proctest.StartGateway(t, "127.0.0.1:0", e.Addr, "--read-limit", fmt.Sprint(16<<20))
	size := createMany(t, g.Addr, 100_000)
	t.Logf("100k lines: %.1f MiB of JSON-RPC", float64(size)/(1<<20))
}

package e2e_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cadbridge/cadbridge/internal/proctest"
	"github.com/cadbridge/cadbridge/services/cadengine/store/postgres/postgrestest"
)

// TestEnginePostgres runs the engine binary on a PostgreSQL store: batches
// acknowledged before a kill -9 are there after a restart on the same
// database, and their retries replay.
func TestEnginePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	store := postgrestest.URL(t)
	engineAddr := freeAddr(t)
	engine := proctest.StartEngine(t, engineAddr, store)
	gw := proctest.StartGateway(t, "127.0.0.1:0", engineAddr)
	c := dialWebSocket(t, gw.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c, 1, "document.create", map[string]any{"name": "on postgres"}, &doc)
	const batches, perBatch = 4, 5
	id := 10
	for b := 1; b <= batches; b++ {
		id++
		var r batchResult
		mustCall(t, c, id, "cad.batch", pointsBatch(doc.DocumentID, fmt.Sprintf("op-pg-%d", b), b*100, perBatch, "rollback", false), &r)
		if !r.OK {
			t.Fatalf("batch %d = %+v, want ok", b, r)
		}
	}

	engine.Kill()
	proctest.StartEngine(t, engineAddr, store)
	id = awaitEngine(t, c, id, doc.DocumentID)
	id++
	counts := pointsByBatch(t, c, id, doc.DocumentID)
	for b := 1; b <= batches; b++ {
		if counts[b] != perBatch {
			t.Errorf("batch %d has %d points after the restart, want %d", b, counts[b], perBatch)
		}
		id++
		retry := call(t, c, id, "cad.batch", pointsBatch(doc.DocumentID, fmt.Sprintf("op-pg-%d", b), b*100, perBatch, "rollback", false))
		var r struct {
			OK       bool `json:"ok"`
			Replayed bool `json:"replayed"`
		}
		if retry.Error != nil || json.Unmarshal(retry.Result, &r) != nil || !r.OK || !r.Replayed {
			t.Errorf("retry of batch %d after the restart = %+v, want its replay", b, describe(retry))
		}
	}
}

package e2e_test

import (
	"testing"
)

// TestLeaseRoutingREST: REST under /v1/ is routed as JSON-RPC is — a call
// on a document that the other engine holds, through the gateway whose
// home engine does not hold it, reaches the holder, and so does the next.
func TestLeaseRoutingREST(t *testing.T) {
	cl := startCluster(t)
	c1 := dialWebSocket(t, cl.gatewayA.Addr)
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, c1, 1, "document.create", map[string]any{"name": "rest-routed"}, &doc) // engine A holds it
	base := "http://" + cl.gatewayB.Addr                                               // home engine B
	for i := range 2 {
		if status, called := restCreateLine(t, base, doc.DocumentID); status != 200 || !called.OK {
			t.Fatalf("call %d: POST /v1/tools/entity_create_line:call through the other gateway = %d %+v, want ok", i+1, status, called)
		}
	}
	var info struct {
		EntityCount int `json:"entity_count"`
	}
	mustCall(t, c1, 2, "document.get", map[string]any{"document_id": doc.DocumentID}, &info)
	if info.EntityCount != 2 {
		t.Errorf("entities after two REST calls = %d, want 2", info.EntityCount)
	}
}

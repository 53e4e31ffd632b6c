package e2e_test

import (
	"context"
	"encoding/hex"
	"net"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// collector is a minimal OTLP/gRPC trace receiver: it keeps, per service
// name, the trace ids of the spans it receives.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer

	mu     sync.Mutex                // guards traces
	traces map[string]map[string]int // service → trace id → spans
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, span := range ss.GetSpans() {
				if c.traces[service] == nil {
					c.traces[service] = map[string]int{}
				}
				c.traces[service][hex.EncodeToString(span.GetTraceId())]++
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func (c *collector) spans(service, traceID string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.traces[service][traceID]
}

// TestTracesReachOTLP runs both binaries exporting to an OTLP receiver on
// loopback and checks that one call's spans arrive from both processes under
// the client's trace id.
func TestTracesReachOTLP(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	col := &collector{traces: map[string]map[string]int{}}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, col)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	endpoint := "http://" + lis.Addr().String()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	gateway, _ := startServices(t)

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	mustCall(t, dialWebSocket(t, gateway), 1, "document.create", map[string]any{
		"name":  "traced",
		"_meta": map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"},
	}, &doc)

	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if col.spans("gateway", traceID) > 0 && col.spans("cadengine", traceID) > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("spans with trace id %s: gateway %d, cadengine %d; want both > 0", traceID, col.spans("gateway", traceID), col.spans("cadengine", traceID))
}

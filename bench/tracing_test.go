package bench_test

import (
	"context"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cadbridge/cadbridge/bench"
	"github.com/cadbridge/cadbridge/internal/telemetry"
)

// tracing returns providers that sample every span (into memory) or none.
func tracing(sampled bool) *telemetry.Providers {
	sampler := sdktrace.NeverSample()
	if sampled {
		sampler = sdktrace.AlwaysSample()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	p := telemetry.Disabled()
	p.Tracer = tp
	p.Meter = metricnoop.NewMeterProvider()
	return p
}

// BenchmarkTracingOverhead measures the gateway hop (WebSocket tools.call →
// engine → back) with every span sampled against no span sampled, side by
// side in one process; it reports the ratio as sampled/unsampled.
func BenchmarkTracingOverhead(b *testing.B) {
	ctx := context.Background()
	type setup struct {
		client *bench.Client
		doc    string
		handle string
		spent  time.Duration
	}
	var setups [2]*setup
	for i, sampled := range []bool{false, true} {
		st := bench.StartTB(b, bench.Options{EngineTelemetry: tracing(sampled), GatewayTelemetry: tracing(sampled)})
		c, err := bench.Dial(ctx, st.Gateway, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		s := &setup{client: c}
		var doc struct {
			DocumentID string `json:"document_id"`
		}
		if err := c.Call(ctx, "document.create", map[string]any{}, &doc); err != nil {
			b.Fatal(err)
		}
		s.doc = doc.DocumentID
		var line struct {
			Result struct {
				Handle string `json:"handle"`
			} `json:"result"`
		}
		if err := c.Call(ctx, "tools.call", map[string]any{"document_id": s.doc, "tool": "entity_create_line", "args": map[string]any{"x1": 0, "y1": 0, "x2": 1, "y2": 1}}, &line); err != nil {
			b.Fatal(err)
		}
		s.handle = line.Result.Handle
		setups[i] = s
	}
	call := func(s *setup) {
		start := time.Now()
		err := s.client.Call(ctx, "tools.call", map[string]any{"document_id": s.doc, "tool": "entity_get", "args": map[string]any{"handle": s.handle}}, nil)
		s.spent += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate so that machine noise hits both sides alike.
		call(setups[i%2])
		call(setups[(i+1)%2])
	}
	b.ReportMetric(float64(setups[1].spent)/float64(setups[0].spent), "sampled/unsampled")
}

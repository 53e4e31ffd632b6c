package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cadbridge/cadbridge/internal/telemetry"
)

func TestLogHandlerAddsTraceIDs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil))).With("service", "x")
	ctx, span := sdktrace.NewTracerProvider().Tracer("t").Start(context.Background(), "call")
	log.InfoContext(ctx, "inside a call")
	span.End()
	log.Info("outside any call")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sc := span.SpanContext()
	if !strings.Contains(lines[0], "trace_id="+sc.TraceID().String()) || !strings.Contains(lines[0], "span_id="+sc.SpanID().String()) {
		t.Errorf("log line in a call = %q, want its trace_id and span_id", lines[0])
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Errorf("log line outside a call = %q, want no trace_id", lines[1])
	}
}

package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cadbridge/cadbridge/bench"
	"github.com/cadbridge/cadbridge/internal/telemetry"
)

// TestMetricsAfterTraffic scrapes both services' /metrics after some calls
// and finds the named series with non-zero counts.
func TestMetricsAfterTraffic(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	ctx := context.Background()
	engineTel, err := telemetry.FromEnv(ctx, "cadengine")
	if err != nil {
		t.Fatal(err)
	}
	gatewayTel, err := telemetry.FromEnv(ctx, "gateway")
	if err != nil {
		t.Fatal(err)
	}
	st := bench.StartTB(t, bench.Options{EngineTelemetry: engineTel, GatewayTelemetry: gatewayTel, CheckContracts: true})
	c, err := bench.Dial(ctx, st.Gateway, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var doc struct {
		DocumentID string `json:"document_id"`
	}
	if err := c.Call(ctx, "document.create", map[string]any{}, &doc); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := c.Call(ctx, "tools.call", map[string]any{"document_id": doc.DocumentID, "tool": "entity_create_point", "args": map[string]any{"x": i, "y": 0}}, nil); err != nil {
			t.Fatal(err)
		}
	}

	if err := c.Call(ctx, "cad.batch", map[string]any{"document_id": doc.DocumentID, "steps": []any{
		map[string]any{"tool": "entity_create_point", "args": map[string]any{"x": 9, "y": 9}},
		map[string]any{"tool": "entity_move", "args": map[string]any{"handle": "FFFFFF", "dx": 1, "dy": 0}},
	}}, nil); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get("http://" + st.Gateway + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	gatewayText := readAll(t, resp)
	rec := httptest.NewRecorder()
	engineTel.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	engineText := rec.Body.String()

	checks := []struct {
		service, text, series string
		min                   float64
	}{
		{"gateway", gatewayText, `rpc_server_duration_count\{outcome="ok",rpc_method="tools.call"\}`, 3},
		{"gateway", gatewayText, `cadbridge_gateway_connections`, 1},
		{"engine", engineText, `cadbridge_engine_call_duration_count\{cad_call="call_tool",outcome="ok"\}`, 3},
		{"engine", engineText, `cadbridge_engine_sessions_open`, 0},
		{"engine", engineText, `cadbridge_engine_steps_total\{cad_error_kind="ok",cad_tool="entity_create_point"\}`, 4},
		{"engine", engineText, `cadbridge_engine_steps_total\{cad_error_kind="failed",cad_tool="entity_move"\}`, 1},
		{"engine", engineText, `cadbridge_engine_batch_size_count`, 1},
		{"engine", engineText, `cadbridge_engine_journal_commit_duration_count`, 4},
	}
	// The Go runtime and process collectors, named as everyone expects.
	for _, s := range []struct{ service, text string }{{"gateway", gatewayText}, {"engine", engineText}} {
		for _, series := range []string{"go_goroutines", "go_memstats_alloc_bytes", "go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "process_open_fds", "process_max_fds"} {
			checks = append(checks, struct {
				service, text, series string
				min                   float64
			}{s.service, s.text, series, 1})
		}
		// The whole page is valid Prometheus text: one family per name.
		parser := expfmt.NewTextParser(model.LegacyValidation)
		if _, err := parser.TextToMetricFamilies(strings.NewReader(s.text)); err != nil {
			t.Errorf("%s /metrics does not parse as Prometheus text: %v", s.service, err)
		}
	}
	for _, c := range checks {
		m := regexp.MustCompile(`(?m)^` + c.series + ` (\S+)$`).FindStringSubmatch(c.text)
		if m == nil {
			t.Errorf("%s /metrics lacks %s:\n%s", c.service, c.series, c.text)
			continue
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v < c.min {
			t.Errorf("%s %s = %v, want ≥ %v", c.service, c.series, v, c.min)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package telemetry

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// PrometheusHandler serves, in the Prometheus text exposition format
// (version 0.0.4), the Go runtime and process metrics (go_goroutines,
// go_memstats_*, process_resident_memory_bytes, process_open_fds, … as
// prometheus/client_golang names them), then what reader collects:
// counters as NAME_total, gauges as NAME, histograms as
// NAME_bucket/_sum/_count; dots in names and label keys become
// underscores.
func PrometheusHandler(reader sdkmetric.Reader) http.Handler {
	runtime := runtimeRegistry()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(r.Context(), &rm); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		if err := writeRuntime(&buf, runtime); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writePrometheus(&buf, &rm)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(buf.Bytes())
	})
}

func writePrometheus(w io.Writer, rm *metricdata.ResourceMetrics) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			name := promName(m.Name)
			if m.Description != "" {
				fmt.Fprintf(w, "# HELP %s %s\n", name, strings.ReplaceAll(m.Description, "\n", " "))
			}
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				writeSum(w, name, data.IsMonotonic, data.DataPoints)
			case metricdata.Sum[float64]:
				writeSum(w, name, data.IsMonotonic, data.DataPoints)
			case metricdata.Gauge[int64]:
				writeGauge(w, name, data.DataPoints)
			case metricdata.Gauge[float64]:
				writeGauge(w, name, data.DataPoints)
			case metricdata.Histogram[int64]:
				writeHistogram(w, name, data.DataPoints)
			case metricdata.Histogram[float64]:
				writeHistogram(w, name, data.DataPoints)
			}
		}
	}
}

func writeSum[N int64 | float64](w io.Writer, name string, monotonic bool, points []metricdata.DataPoint[N]) {
	typ := "gauge"
	if monotonic {
		typ = "counter"
		name += "_total"
	}
	fmt.Fprintf(w, "# TYPE %s %s\n", name, typ)
	for _, p := range points {
		fmt.Fprintf(w, "%s%s %s\n", name, labels(p.Attributes, ""), number(float64(p.Value)))
	}
}

func writeGauge[N int64 | float64](w io.Writer, name string, points []metricdata.DataPoint[N]) {
	fmt.Fprintf(w, "# TYPE %s gauge\n", name)
	for _, p := range points {
		fmt.Fprintf(w, "%s%s %s\n", name, labels(p.Attributes, ""), number(float64(p.Value)))
	}
}

func writeHistogram[N int64 | float64](w io.Writer, name string, points []metricdata.HistogramDataPoint[N]) {
	fmt.Fprintf(w, "# TYPE %s histogram\n", name)
	for _, p := range points {
		var cumulative uint64
		for i, bound := range p.Bounds {
			cumulative += p.BucketCounts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(p.Attributes, number(bound)), cumulative)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(p.Attributes, "+Inf"), p.Count)
		fmt.Fprintf(w, "%s_sum%s %s\n", name, labels(p.Attributes, ""), number(float64(p.Sum)))
		fmt.Fprintf(w, "%s_count%s %d\n", name, labels(p.Attributes, ""), p.Count)
	}
}

func labels(set attribute.Set, le string) string {
	var parts []string
	for _, kv := range set.ToSlice() {
		parts = append(parts, fmt.Sprintf("%s=%q", promName(string(kv.Key)), kv.Value.Emit()))
	}
	sort.Strings(parts)
	if le != "" {
		parts = append(parts, fmt.Sprintf("le=%q", le))
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func promName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ':' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

func number(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	default:
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
}

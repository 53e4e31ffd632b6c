package telemetry

import (
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// runtimeRegistry holds the Go runtime and process collectors of
// prometheus/client_golang, which define the names every Prometheus user
// knows: go_goroutines, go_memstats_*, go_gc_duration_seconds,
// process_resident_memory_bytes, process_open_fds, process_cpu_seconds_total
// and the rest. The service's own instruments come from OpenTelemetry.
func runtimeRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// writeRuntime writes what reg gathers in the Prometheus text format.
func writeRuntime(w io.Writer, reg prometheus.Gatherer) error {
	families, err := reg.Gather()
	if err != nil {
		return err
	}
	for _, mf := range families {
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			return err
		}
	}
	return nil
}

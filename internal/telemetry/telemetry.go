// Package telemetry builds a service's OpenTelemetry providers from the
// standard OTEL_* environment, serves its metrics as Prometheus text, and
// puts trace and span ids on log lines. Mains call FromEnv and inject the
// providers into the services' configs; nothing here is global.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Providers are one service's telemetry.
type Providers struct {
	// Tracer makes spans.
	Tracer trace.TracerProvider
	// Meter makes instruments.
	Meter metric.MeterProvider
	// Metrics serves the meter's current values as Prometheus text.
	Metrics  http.Handler
	shutdown []func(context.Context) error
}

// Shutdown flushes and stops the exporters.
func (p *Providers) Shutdown(ctx context.Context) error {
	var errs []error
	for _, fn := range p.shutdown {
		errs = append(errs, fn(ctx))
	}
	return errors.Join(errs...)
}

// Disabled returns providers that record nothing (tests, benchmarks).
func Disabled() *Providers {
	return &Providers{Tracer: tracenoop.NewTracerProvider(), Meter: metricnoop.NewMeterProvider(), Metrics: http.NotFoundHandler()}
}

// FromEnv builds the providers of service from the environment:
// OTEL_SDK_DISABLED=true records nothing; OTEL_EXPORTER_OTLP_ENDPOINT (or
// the _TRACES_/_METRICS_ variants) exports over OTLP, gRPC unless
// OTEL_EXPORTER_OTLP_PROTOCOL is http/protobuf; without an endpoint nothing
// is exported, spans still carry ids (for logs and propagation) but are
// not recorded (unless OTEL_TRACES_SAMPLER says otherwise), and metrics
// are served at /metrics. OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_TRACES_SAMPLER are honoured by the SDK.
func FromEnv(ctx context.Context, service string) (*Providers, error) {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return Disabled(), nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	p := &Providers{}
	traceOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if endpointSet("TRACES") {
		exp, err := traceExporter(ctx)
		if err != nil {
			return nil, err
		}
		traceOpts = append(traceOpts, sdktrace.WithBatcher(exp))
	} else if os.Getenv("OTEL_TRACES_SAMPLER") == "" {
		// Nothing would receive a recorded span: spans still carry trace
		// and span ids (for the logs and the next hop), but record
		// nothing, which costs a fraction of recording them.
		traceOpts = append(traceOpts, sdktrace.WithSampler(sdktrace.NeverSample()))
	}
	tp := sdktrace.NewTracerProvider(traceOpts...)
	p.Tracer = tp
	p.shutdown = append(p.shutdown, tp.Shutdown)

	prom := sdkmetric.NewManualReader()
	meterOpts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(prom)}
	if endpointSet("METRICS") && !strings.HasPrefix(protocol("METRICS"), "http") {
		exp, err := otlpmetricgrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp metrics: %w", err)
		}
		meterOpts = append(meterOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	mp := sdkmetric.NewMeterProvider(meterOpts...)
	p.Meter = mp
	p.Metrics = PrometheusHandler(prom)
	p.shutdown = append(p.shutdown, mp.Shutdown)
	return p, nil
}

func endpointSet(signal string) bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != ""
}

func protocol(signal string) string {
	if p := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"); p != "" {
		return p
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
}

func traceExporter(ctx context.Context) (*otlptrace.Exporter, error) {
	var (
		exp *otlptrace.Exporter
		err error
	)
	if strings.HasPrefix(protocol("TRACES"), "http") {
		exp, err = otlptracehttp.New(ctx)
	} else {
		exp, err = otlptracegrpc.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp traces: %w", err)
	}
	return exp, nil
}

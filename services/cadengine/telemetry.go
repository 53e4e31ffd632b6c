package cadengine

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/telemetry"
)

const instrumentation = "github.com/cadbridge/cadbridge/services/cadengine"

// observability is the engine's tracer and instruments.
type observability struct {
	providers *telemetry.Providers
	tracer    trace.Tracer
	duration  metric.Float64Histogram
	callSets  *telemetry.OutcomeSets // of duration
	openReqs  metric.Int64UpDownCounter
}

func newObservability(p *telemetry.Providers, sessions *sessions) (*observability, error) {
	if p == nil {
		p = telemetry.Disabled()
	}
	m := p.Meter.Meter(instrumentation)
	o := &observability{providers: p, tracer: p.Tracer.Tracer(instrumentation), callSets: telemetry.NewOutcomeSets("cad.call")}
	var err error
	if o.duration, err = m.Float64Histogram("cadbridge.engine.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of Session stream calls by call and outcome.")); err != nil {
		return nil, err
	}
	if o.openReqs, err = m.Int64UpDownCounter("cadbridge.engine.server_requests.open",
		metric.WithDescription("Server requests waiting for a client.")); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableGauge("cadbridge.engine.sessions.open",
		metric.WithDescription("Sessions the engine keeps."),
		metric.WithInt64Callback(func(_ context.Context, obs metric.Int64Observer) error {
			obs.Observe(sessions.count())
			return nil
		})); err != nil {
		return nil, err
	}
	return o, nil
}

// callSpans are the names of the spans of Session stream calls,
// "cad.engine/<call>", where the calls are SessionCall's fields.
var callSpans = telemetry.NewSpanNames("cad.engine/")

// startCall starts the span of one Session stream call, continuing the
// trace context its frame carries.
func (o *observability) startCall(ctx context.Context, carrier map[string]string, call string) (context.Context, trace.Span) {
	ctx = telemetry.Propagator.Extract(ctx, propagation.MapCarrier(carrier))
	ctx, span := o.tracer.Start(ctx, callSpans.Of(call), telemetry.ServerSpan...)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", enginev1.EngineService_ServiceDesc.ServiceName), attribute.String("cad.call", call))
	}
	return ctx, span
}

func (o *observability) endCall(ctx context.Context, span trace.Span, call string, start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		span.SetStatus(codes.Error, err.Error())
	}
	o.duration.Record(ctx, time.Since(start).Seconds(), o.callSets.Options(call, outcome)...)
	span.End()
}

// startWait starts the span of a wait on the client and returns the carrier
// to send with the server request.
func (o *observability) startWait(ctx context.Context, method string) (context.Context, trace.Span, map[string]string) {
	ctx, span := o.tracer.Start(ctx, "cad.wait "+method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("cad.server_request.method", method)))
	carrier := propagation.MapCarrier{}
	telemetry.Propagator.Inject(ctx, carrier)
	return ctx, span, carrier
}

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/telemetry"
)

const instrumentation = "github.com/cadbridge/cadbridge/services/gateway"

// observability is the gateway's tracer and instruments.
type observability struct {
	providers     *telemetry.Providers
	tracer        trace.Tracer
	duration      metric.Float64Histogram
	connections   metric.Int64UpDownCounter
	serverReqOpen metric.Int64UpDownCounter
	callSets      *telemetry.OutcomeSets // of rpc.server.duration
}

func newObservability(p *telemetry.Providers) (*observability, error) {
	if p == nil {
		p = telemetry.Disabled()
	}
	m := p.Meter.Meter(instrumentation)
	o := &observability{providers: p, tracer: p.Tracer.Tracer(instrumentation), callSets: telemetry.NewOutcomeSets("rpc.method")}
	var err error
	if o.duration, err = m.Float64Histogram("rpc.server.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of JSON-RPC calls by method and outcome.")); err != nil {
		return nil, err
	}
	if o.connections, err = m.Int64UpDownCounter("cadbridge.gateway.connections",
		metric.WithDescription("Open client connections.")); err != nil {
		return nil, err
	}
	if o.serverReqOpen, err = m.Int64UpDownCounter("cadbridge.gateway.server_requests.open",
		metric.WithDescription("Server requests relayed to clients and not yet answered.")); err != nil {
		return nil, err
	}
	return o, nil
}

// meta is the part of params the gateway reads before validating them.
type meta struct {
	Meta struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
	} `json:"_meta"`
}

// parentOf is the W3C trace context of HTTP headers (nil for stdio), or
// the zero SpanContext.
func parentOf(headers http.Header) trace.SpanContext {
	if headers == nil {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(telemetry.Propagator.Extract(context.Background(), propagation.HeaderCarrier(headers)))
}

// startCall starts the server span of one JSON-RPC message. The parent is
// params._meta's W3C context, else the connection's (see parentOf).
func (o *observability) startCall(ctx context.Context, parent trace.SpanContext, req *jsonrpc.Request) (context.Context, trace.Span) {
	var m meta
	if bytes.Contains(req.Params, []byte(`"_meta"`)) { // spare most calls a second parse
		_ = json.Unmarshal(req.Params, &m) // bad params are reported by validation
	}
	if m.Meta.Traceparent != "" {
		ctx = telemetry.Propagator.Extract(ctx, propagation.MapCarrier{"traceparent": m.Meta.Traceparent, "tracestate": m.Meta.Tracestate})
	} else if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	ctx, span := o.tracer.Start(ctx, req.Method, telemetry.ServerSpan...)
	// Most spans are not recorded (nothing exports them): building their
	// attributes anyway was 1 % of a call's CPU, client, gateway and engine
	// together (gateway-hop/64).
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("rpc.system", "jsonrpc"),
			attribute.String("rpc.method", req.Method),
			attribute.String("rpc.jsonrpc.version", "2.0"),
		)
		if req.IsCall() {
			span.SetAttributes(attribute.String("rpc.jsonrpc.request_id", req.ID.String()))
		}
	}
	return ctx, span
}

// endCall records a call's outcome on its span and metrics.
func (o *observability) endCall(ctx context.Context, span trace.Span, method string, start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		if rpcErr := rpcError(err, ""); rpcErr != nil {
			span.SetAttributes(attribute.Int64("rpc.jsonrpc.error_code", rpcErr.Code))
			span.SetStatus(codes.Error, rpcErr.Message)
		}
	}
	o.duration.Record(ctx, time.Since(start).Seconds(), o.callSets.Options(method, outcome)...)
	span.End()
}

// startFrame starts the client span of a call's hop over the Session stream
// and returns the W3C carrier to put in the frame (nil when the span has
// no context to carry).
func (o *observability) startFrame(ctx context.Context, call string) (context.Context, trace.Span, map[string]string) {
	ctx, span := o.tracer.Start(ctx, frameSpans.Of(call), telemetry.ClientSpan...)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", sessionService), attribute.String("rpc.method", sessionMethod))
	}
	if !span.SpanContext().IsValid() {
		return ctx, span, nil
	}
	carrier := propagation.MapCarrier{}
	telemetry.Propagator.Inject(ctx, carrier)
	return ctx, span, carrier
}

// sessionService and sessionMethod name the Session stream:
// "/cad.engine.v1.EngineService/Session".
var sessionService, sessionMethod, _ = strings.Cut(strings.TrimPrefix(enginev1.EngineService_Session_FullMethodName, "/"), "/")

// frameSpans are the names of the frame spans, by call:
// "EngineService.Session/<call>", where the calls are SessionCall's
// fields.
var frameSpans = telemetry.NewSpanNames(string(protoreflect.FullName(sessionService).Name()) + "." + sessionMethod + "/")

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
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

	callSets     sync.Map     // [2]string{method, outcome} → []metric.RecordOption (callAttributes)
	callSetCount atomic.Int64 // how many callSets were made to keep
}

func newObservability(p *telemetry.Providers) (*observability, error) {
	if p == nil {
		p = telemetry.Disabled()
	}
	m := p.Meter.Meter(instrumentation)
	o := &observability{providers: p, tracer: p.Tracer.Tracer(instrumentation)}
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

// startCall starts the server span of one JSON-RPC message. The parent is
// params._meta's W3C context, else the connection's HTTP headers.
func (o *observability) startCall(ctx context.Context, headers http.Header, req *jsonrpc.Request) (context.Context, trace.Span) {
	var m meta
	if bytes.Contains(req.Params, []byte(`"_meta"`)) { // spare most calls a second parse
		_ = json.Unmarshal(req.Params, &m) // bad params are reported by validation
	}
	if m.Meta.Traceparent != "" {
		ctx = telemetry.Propagator.Extract(ctx, propagation.MapCarrier{"traceparent": m.Meta.Traceparent, "tracestate": m.Meta.Tracestate})
	} else if headers != nil {
		ctx = telemetry.Propagator.Extract(ctx, propagation.HeaderCarrier(headers))
	}
	attrs := []attribute.KeyValue{
		attribute.String("rpc.system", "jsonrpc"),
		attribute.String("rpc.method", req.Method),
		attribute.String("rpc.jsonrpc.version", "2.0"),
	}
	if req.IsCall() {
		attrs = append(attrs, attribute.String("rpc.jsonrpc.request_id", req.ID.String()))
	}
	return o.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
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
	o.duration.Record(ctx, time.Since(start).Seconds(), o.callAttributes(method, outcome)...)
	span.End()
}

// maxCallSets bounds the attribute sets callAttributes keeps: methods are
// the client's words, and one that names no method must not grow them.
const maxCallSets = 1024

// callAttributes are the options of the duration histogram for a method
// and an outcome, made once for each (there are a few hundred) and passed
// as they are, instead of a new attribute set per call.
func (o *observability) callAttributes(method, outcome string) []metric.RecordOption {
	key := [2]string{method, outcome}
	if opts, ok := o.callSets.Load(key); ok {
		return opts.([]metric.RecordOption)
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("rpc.method", method), attribute.String("outcome", outcome)))}
	if o.callSetCount.Add(1) <= maxCallSets {
		o.callSets.Store(key, opts)
	}
	return opts
}

// startFrame starts the client span of a call's hop over the Session stream
// and returns the W3C carrier to put in the frame.
func (o *observability) startFrame(ctx context.Context, call string) (context.Context, trace.Span, map[string]string) {
	// "/cad.engine.v1.EngineService/Session": the span is
	// "EngineService.Session/<call>".
	service, method, _ := strings.Cut(strings.TrimPrefix(enginev1.EngineService_Session_FullMethodName, "/"), "/")
	ctx, span := o.tracer.Start(ctx, string(protoreflect.FullName(service).Name())+"."+method+"/"+call, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", service), attribute.String("rpc.method", method)))
	carrier := propagation.MapCarrier{}
	telemetry.Propagator.Inject(ctx, carrier)
	return ctx, span, carrier
}

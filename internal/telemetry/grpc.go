package telemetry

import (
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/grpc/stats"
)

// Propagator is W3C trace context, the only format on cadbridge's wires.
var Propagator = propagation.TraceContext{}

// GRPCServerHandler traces and measures a server's unary RPCs.
func (p *Providers) GRPCServerHandler() stats.Handler {
	return otelgrpc.NewServerHandler(p.grpcOptions()...)
}

// GRPCClientHandler traces and measures a client's unary RPCs.
func (p *Providers) GRPCClientHandler() stats.Handler {
	return otelgrpc.NewClientHandler(p.grpcOptions()...)
}

// grpcOptions leave the Session stream out: it carries many calls, each
// traced by its own frame (a stream-wide span would lump them together).
func (p *Providers) grpcOptions() []otelgrpc.Option {
	return []otelgrpc.Option{
		otelgrpc.WithTracerProvider(p.Tracer),
		otelgrpc.WithMeterProvider(p.Meter),
		otelgrpc.WithPropagators(Propagator),
		otelgrpc.WithFilter(func(info *stats.RPCTagInfo) bool {
			return !strings.HasSuffix(info.FullMethodName, "/Session")
		}),
	}
}

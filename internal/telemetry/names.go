package telemetry

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ServerSpan and ClientSpan are the start options of a server's and a
// client's span, made once: trace.WithSpanKind makes a closure, and a
// variadic call through the Tracer interface a slice, on every span.
var (
	ServerSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
	ClientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
)

// maxOutcomeSets bounds the attribute sets an OutcomeSets keeps: a name
// may be a client's word, and one that names nothing must not grow them.
const maxOutcomeSets = 1024

// OutcomeSets are the options of a measurement attributed by a name (a
// method, a call) and an outcome, made once for each pair and passed as
// they are, instead of a new attribute set per measurement.
type OutcomeSets struct {
	key   string   // the name's attribute key
	sets  sync.Map // [2]string{name, outcome} → []metric.RecordOption
	count atomic.Int64
}

// NewOutcomeSets are the sets of names under attribute key.
func NewOutcomeSets(key string) *OutcomeSets { return &OutcomeSets{key: key} }

// Options are the record options of name and outcome.
func (o *OutcomeSets) Options(name, outcome string) []metric.RecordOption {
	k := [2]string{name, outcome}
	if opts, ok := o.sets.Load(k); ok {
		return opts.([]metric.RecordOption)
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String(o.key, name), attribute.String("outcome", outcome)))}
	if o.count.Add(1) <= maxOutcomeSets {
		o.sets.Store(k, opts)
	}
	return opts
}

// SpanNames are the names of spans made of a prefix and a name from a
// small set (a call, a method known to the service), each made once
// instead of a concatenation per span.
type SpanNames struct {
	prefix string
	names  sync.Map // name → prefix + name
}

// NewSpanNames are the span names that start with prefix.
func NewSpanNames(prefix string) *SpanNames { return &SpanNames{prefix: prefix} }

// Of is prefix + name.
func (n *SpanNames) Of(name string) string {
	if s, ok := n.names.Load(name); ok {
		return s.(string)
	}
	s := n.prefix + name
	n.names.Store(name, s)
	return s
}

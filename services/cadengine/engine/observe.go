package engine

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

const instrumentation = "github.com/cadbridge/cadbridge/services/cadengine/engine"

// observer makes the core's spans (batch, step, rollback, journal commit)
// and records its metrics (steps by tool and outcome, batch size, journal
// commit latency).
type observer struct {
	tracer     trace.Tracer
	tracing    bool // the tracer is not a no-op one
	steps      metric.Int64Counter
	batchSize  metric.Int64Histogram
	commitTime metric.Float64Histogram
	stepSets   sync.Map // [2]string{tool, outcome} → []metric.AddOption; see stepAttributes
}

func newObserver(tp trace.TracerProvider, mp metric.MeterProvider) (*observer, error) {
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	m := mp.Meter(instrumentation)
	_, noop := tp.(tracenoop.TracerProvider)
	o := &observer{tracer: tp.Tracer(instrumentation), tracing: !noop}
	var err error
	if o.steps, err = m.Int64Counter("cadbridge.engine.steps",
		metric.WithDescription("Tool steps run, by tool and error kind (\"ok\" for success).")); err != nil {
		return nil, err
	}
	if o.batchSize, err = m.Int64Histogram("cadbridge.engine.batch.size",
		metric.WithDescription("Steps per cad.batch."),
		metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)); err != nil {
		return nil, err
	}
	if o.commitTime, err = m.Float64Histogram("cadbridge.engine.journal.commit.duration", metric.WithUnit("s"),
		metric.WithDescription("Latency of journal commits (document changes and operation records in one transaction).")); err != nil {
		return nil, err
	}
	return o, nil
}

// startBatch starts the span of a batch run.
func (o *observer) startBatch(ctx context.Context, opID, docID string, req *enginev1.ExecuteBatchRequest) (context.Context, trace.Span) {
	o.batchSize.Record(ctx, int64(len(req.GetSteps())))
	ctx, span := o.tracer.Start(ctx, "cad.batch.run")
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("cad.operation_id", opID),
			attribute.String("cad.document.id", docID),
			attribute.String("cad.on_error", onErrorName(req.GetOnError())),
			attribute.Bool("cad.dry_run", req.GetDryRun()),
			attribute.Int("cad.batch.steps", len(req.GetSteps())),
		)
	}
	return ctx, span
}

func onErrorName(m enginev1.OnError) string {
	if m == enginev1.OnError_ON_ERROR_UNSPECIFIED {
		m = enginev1.OnError_ON_ERROR_STOP
	}
	return m.WireName()
}

// startStep starts the span of one step. Its attributes are set only on
// a span that records: building them costs more than the step.
func (o *observer) startStep(ctx context.Context, i int, tool, opID string) (context.Context, trace.Span) {
	if !o.tracing {
		return ctx, trace.SpanFromContext(ctx) // nothing to record, and no context to make
	}
	ctx, span := o.tracer.Start(ctx, "cad.step")
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("cad.tool", tool),
			attribute.Int("cad.step.index", i),
			attribute.String("cad.operation_id", opID),
		)
	}
	return ctx, span
}

// endStep ends a step's span and counts the step.
func (o *observer) endStep(ctx context.Context, span trace.Span, tool string, revision int64, res *enginev1.StepResult) {
	kind := "ok"
	if e := res.GetError(); e != nil {
		kind = e.GetKind().WireName()
	}
	o.steps.Add(ctx, 1, o.stepAttributes(tool, kind)...)
	if !o.tracing {
		return // span is not the step's (see startStep)
	}
	if e := res.GetError(); e != nil {
		span.SetAttributes(attribute.String("cad.error.kind", kind))
		span.SetStatus(codes.Error, e.GetMessage())
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.Int64("cad.document.revision", revision))
	}
	span.End()
}

// stepAttributes are the options of the steps counter for a tool and an
// outcome, made once (there are a few hundred at most) and passed as they
// are (a new slice per call would cost an allocation).
func (o *observer) stepAttributes(tool, kind string) []metric.AddOption {
	key := [2]string{tool, kind}
	if opts, ok := o.stepSets.Load(key); ok {
		return opts.([]metric.AddOption)
	}
	opts, _ := o.stepSets.LoadOrStore(key, []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("cad.tool", tool), attribute.String("cad.error.kind", kind)))})
	return opts.([]metric.AddOption)
}

// commit times one journal commit under a span.
func (o *observer) commit(ctx context.Context, opID string, fn func() error) error {
	ctx, span := o.tracer.Start(ctx, "cad.journal.commit", trace.WithAttributes(attribute.String("cad.operation_id", opID)))
	start := time.Now()
	err := fn()
	o.commitTime.Record(ctx, time.Since(start).Seconds())
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return err
}

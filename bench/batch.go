package bench

import (
	"context"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// batchAmortisation measures what cad.batch saves: one batch of n
// entity_create_line steps against n tools.call round trips doing the
// same, both over one WebSocket connection through the gateway.
func batchAmortisation(ctx context.Context, e *env, row *Row) error {
	n := e.sizes.BatchSteps
	row.Title = fmt.Sprintf("%d entity_create_line: one cad.batch of %d steps vs %d tools.call round trips, over WebSocket", n, n, n)
	row.Size = fmt.Sprintf("%d steps, %d ops per side", n, e.sizes.BatchRounds*e.sizes.BatchOps)
	st, err := Start(Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := Dial(ctx, st.Gateway, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	var docs [2]string
	for i := range docs {
		if docs[i], err = createDocument(ctx, c); err != nil {
			return err
		}
	}
	calls := make([]any, n)
	for i := range calls {
		calls[i] = mustJSON(obj{"document_id": docs[0], "tool": enginev1.ToolEntityCreateLine, "args": lineArgs(i)})
	}
	batch := mustJSON(obj{"document_id": docs[1], "steps": lineSteps(n)})

	baseline := &contender{
		name: fmt.Sprintf("%d tools.call round trips", n), unit: "op", perBlock: e.sizes.BatchOps,
		op: func(ctx context.Context, _ int) error {
			for _, p := range calls {
				raw, err := c.CallRaw(ctx, gatewayv1.MethodToolsCall, p)
				if err != nil {
					return err
				}
				if err := checkOK("tools.call entity_create_line", raw); err != nil {
					return err
				}
			}
			return nil
		},
	}
	subject := &contender{
		name: fmt.Sprintf("one cad.batch of %d steps", n), unit: "op", perBlock: e.sizes.BatchOps,
		op: func(ctx context.Context, _ int) error { return runBatch(ctx, c, batch) },
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.BatchRounds, 2, baseline, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	var steps []*enginev1.BatchStep
	for i := range n {
		steps = append(steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: jsonOf(lineArgs(i))})
	}
	batchAlone, err := engineAlone(ctx, 30, func(ctx context.Context, eng *engine.Engine, doc string) error {
		return okBatch(eng.ExecuteBatch(ctx, engine.Caller{Principal: principal}, &enginev1.ExecuteBatchRequest{DocumentId: doc, Steps: steps}))
	}, nil)
	if err != nil {
		return err
	}
	callsAlone, err := engineAlone(ctx, 30, func(ctx context.Context, eng *engine.Engine, doc string) error {
		for _, s := range steps {
			if err := okCall(eng.CallTool(ctx, engine.Caller{Principal: principal}, &enginev1.CallToolRequest{DocumentId: &doc, Tool: s.GetTool(), ArgsJson: s.GetArgsJson()})); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	row.Checks = []Check{
		check("speed-up", fmt.Sprintf("speed-up, p50 of %d calls ÷ p50 of one batch (higher is better)", n), ratio(float64(b.P50), float64(s.P50)), "x", Goal{">=", 25}),
	}
	row.Notes = []string{
		"Memory store, so that the round trips and not fsync are compared (durable-journal measures the store); calls are stateless (no session, no events).",
		"Both sides write the same lines, each into its own document; the batch result lists a handle per step.",
		fmt.Sprintf("For scale, the engine core alone (in process, no network) takes %s (p50) for the batch and %s for the %d calls: the rest of the batch's %s is the gateway's decoding, validation and encoding of %d steps and results and the hops.",
			fmtDur(batchAlone), fmtDur(callsAlone), n, fmtDur(s.P50), n),
	}
	return nil
}

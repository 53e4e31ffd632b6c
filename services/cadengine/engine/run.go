package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// run is one operation in progress: a batch, or a tool call run as a batch
// of one step. It owns its steps' results and, while it runs, the
// document: a writer run (one with a step that is not read-only) holds the
// document's lane and mu for writing, a reader run holds mu for reading.
// Either lets go while it waits on the client (suspend) and takes the
// document back after (resume).
//
// Revisions and commits. Every successful mutating step (a document tool
// that is not read-only, checkpoint tools aside) adds one to the revision
// in memory; nothing reaches the store until a commit point — one at the
// end, and one before each wait on the client if something changed — so a
// batch of a hundred steps costs one store transaction. The revision is
// always durableRev (the stored revision, as of the last commit point or
// resume) plus the mutating steps since then that are still in effect,
// plus one if the run has undone changes that were already stored (the
// commit of that undo is a change of its own). So a rollback that undoes
// only uncommitted work restores the revision, and one that undoes
// committed work moves it forward by one.
type run struct {
	e       *Engine
	ctx     context.Context
	caller  Caller
	op      *opEntry
	d       *document // nil for engine tools (tools.call only)
	steps   []*stepPlan
	mode    enginev1.OnError
	verbose bool
	single  bool // a tools.call: the step shares the call's id, results are whole

	writer  bool        // holds d's lane and d.mu for writing; else d.mu for reading
	locked  bool        // holds them now
	t       *drawing.Tx // writer runs only
	flushed int         // t's changes before this mark are in the store

	resp   *enginev1.ExecuteBatchResponse
	outs   []map[string]any // by step: the result, in generic form, of a step that later steps refer to (nil when none is)
	failed bool             // a step failed
	halted bool             // no more steps run
	broke  string           // why it halted, for the atomicity note

	startHash   drawing.Hash
	guarded     bool
	checked     int64 // the revision the guard checked
	durableRev  int64
	epoch       int              // commit points and resumes so far
	pending     int              // mutating steps since the last of them, still in effect
	reverted    []drawing.Change // stored changes undone since the last commit point
	live        []int32          // mutating steps that succeeded and are in effect
	base        checkpoint
	checkpoints []checkpoint // open transaction_begin checkpoints, innermost last
	transaction bool         // a checkpoint was held
	rolledBack  bool
	undone      []string // step operations a rollback undid, newest first
	undoneN     int      // changes a batch rollback undid
	interleaved []string // operations of others that committed while the run waited
	incomplete  bool     // interleaved may miss some (commit notes were dropped)
	releasedAt  int64    // the revision when the run last let go
	notes       []commitNote
	created     *document    // document_create's or document_import's new document, committed by the run
	call        call         // the running step's call (one per run: no tool keeps it past its return)
	historyMove *historyMove // what a document_undo or document_redo step does to the history when it commits
	handles     []string     // by step: the handle a step's result names, for its StepResult.Handle (one allocation for all)

	reports  *reports                   // room for resp's reports, until finish takes it
	callResp *enginev1.CallToolResponse // room for a tools.call's answer, made with resp (see callResponse)

	// own is a tools.call's one step and ownSteps the steps that list it:
	// the plan of a call lives in its run (see Engine.CallTool).
	own      stepPlan
	ownSteps [1]*stepPlan
}

// runs are spare runs. A run is the largest allocation of a tools.call
// and the same shape every time, so it is reused: the code that got one
// (Engine.CallTool, Engine.ExecuteBatch, answerClaimed, dryRun) puts it
// back with release when the operation is over. That is safe because
// nothing that outlives the operation points into a run: the response,
// its step results, handles and reports, the journal record, the
// operation's state and the events are allocations of their own (the
// slices the run keeps, such as live and undone, are copied into them),
// tools do not keep their call, and every error that reaches a response
// carries its own copy of an operation id, not a pointer into a plan.
var runs = sync.Pool{New: func() any { return new(run) }}

// release empties r, letting go of everything it pointed to, and puts it
// back in runs. Nothing may use r after.
func (r *run) release() {
	if r.t != nil {
		r.t.Release()
	}
	*r = run{}
	runs.Put(r)
}

// stepPlan is a step after validation (see Engine.planBatch).
type stepPlan struct {
	i          int
	name       string
	tool       *tool  // nil for an unknown tool
	raw        []byte // the args as given (JSON)
	bind       string
	opID       string
	decoded    proto.Message  // the args, when they hold no references
	dense      denseArgs      // the args in the tool's dense form, when it took them (then decoded is nil)
	template   any            // the args in generic form, when they hold references
	refs       map[string]int // binding name → the step it names, for this step's references
	referenced bool           // a later step refers to this step's result
	invalid    *toolError     // why validation refused it
}

// mutating says whether a tool's successful call counts as a change: a
// document tool that is not read-only, except the checkpoint tools, which
// change nothing themselves.
func mutating(t *tool) bool {
	switch t.info.Name {
	case enginev1.ToolTransactionBegin, enginev1.ToolTransactionCommit, enginev1.ToolTransactionRollback:
		return false
	}
	return t.spec.scope == scopeDocument && !t.info.Annotations.GetReadOnly()
}

// newRun is a run from runs, started (see start); release it when the
// operation is over.
func newRun(ctx context.Context, e *Engine, caller Caller, o *opEntry, d *document, steps []*stepPlan) *run {
	return runs.Get().(*run).start(ctx, e, caller, o, d, steps)
}

// start readies an empty run (one from runs, whose own step may be
// planned already) for the operation o of steps.
func (r *run) start(ctx context.Context, e *Engine, caller Caller, o *opEntry, d *document, steps []*stepPlan) *run {
	r.e, r.ctx, r.caller, r.op, r.d, r.steps = e, ctx, caller, o, d, steps
	r.newResponse(len(steps))
	r.resp.OperationId, r.resp.Status = o.key.id, enginev1.BatchStatus_BATCH_STATUS_COMPLETED
	referenced := false
	for i, s := range steps {
		res := r.resp.Results[i]
		res.I, res.Tool, res.Status, res.OperationId = int32(s.i), s.name, enginev1.StepStatus_STEP_STATUS_SKIPPED, s.opID
		r.resp.Results[i] = res
		if s.tool != nil && s.tool.spec.scope == scopeDocument && !s.tool.info.Annotations.GetReadOnly() {
			r.writer = true
		}
		referenced = referenced || s.referenced
	}
	if referenced {
		r.outs = make([]map[string]any, len(steps))
	}
	return r
}

// newResponse makes r's empty response with n empty step results and
// room for its reports: in one allocation for a tools.call (n = 1),
// which holds its handle and the call's answer too, and in three for a
// batch. None of it is the run's: it outlives r as the caller's answer
// and the operation's result.
func (r *run) newResponse(n int) {
	if n == 1 {
		one := &struct {
			resp    enginev1.ExecuteBatchResponse
			result  enginev1.StepResult
			results [1]*enginev1.StepResult
			reports reports
			handles [1]string
			call    enginev1.CallToolResponse
		}{}
		one.results[0] = &one.result
		one.resp.Results = one.results[:]
		r.resp, r.reports, r.handles, r.callResp = &one.resp, &one.reports, one.handles[:], &one.call
		return
	}
	withReports := &struct {
		resp    enginev1.ExecuteBatchResponse
		reports reports
	}{}
	resp := &withReports.resp
	resp.Results = make([]*enginev1.StepResult, n)
	results := make([]enginev1.StepResult, n)
	for i := range results {
		resp.Results[i] = &results[i]
	}
	r.resp, r.reports = resp, &withReports.reports
}

// lock takes the document for the run, or returns the context's error
// when ctx ends first.
func (r *run) lock() error {
	if err := r.ctx.Err(); err != nil || r.d == nil {
		return err
	}
	if r.writer {
		if err := r.d.acquire(r.ctx); err != nil {
			return err
		}
		r.d.mu.Lock()
		r.t = drawing.NewTx(r.d.Document, len(r.steps))
	} else {
		r.d.mu.RLock()
	}
	r.locked = true
	r.startHash, r.durableRev = r.d.ContentHash(), r.d.Revision
	r.base = r.checkpoint("", -1)
	return nil
}

func (r *run) unlock() {
	if r.d == nil || !r.locked {
		return
	}
	r.locked = false
	if r.writer {
		r.d.mu.Unlock()
		r.d.release()
	} else {
		r.d.mu.RUnlock()
	}
}

// announce tells Options.OnCommit about the commits made since the last
// call; the run holds no lock then.
func (r *run) announce() {
	notes := r.notes
	r.notes = nil
	if r.e.onCommit == nil {
		return
	}
	for _, n := range notes {
		r.e.onCommit(r.d.ID, n.revision, n.op)
	}
}

// ---- steps ----

// runSteps runs the steps in order under on_error; a non-nil error is a
// protocol failure (a store failure at a commit point) that ends the run.
func (r *run) runSteps() error {
	n := int32(len(r.steps))
	// The batch.progress payloads, only when someone listens, are made
	// together, one allocation for the batch: each is handed out once and
	// never written after, so a listener that keeps one keeps its own
	// (and, with it, the memory of the others).
	var progress []enginev1.BatchProgressPayload
	if !r.single && r.caller.Events != nil {
		progress = make([]enginev1.BatchProgressPayload, len(r.steps))
	}
	for k, s := range r.steps {
		if r.halted {
			break
		}
		ok, err := r.runStep(s)
		if err != nil {
			return err
		}
		if progress != nil {
			p := &progress[k]
			p.OperationId, p.Step, p.Total = r.op.key.id, int32(s.i)+1, n
			r.caller.emit(gatewayv1.EventBatchProgress, p)
		}
		if ok {
			continue
		}
		r.failed = true
		switch {
		case r.mode == enginev1.OnError_ON_ERROR_ROLLBACK:
			r.undoneN = r.rollbackTo(r.base)
			r.checkpoints = nil
			r.rolledBack, r.halted = true, true
			r.broke = fmt.Sprintf("step %d failed", s.i)
		case r.mode != enginev1.OnError_ON_ERROR_CONTINUE || r.ctx.Err() != nil:
			r.halted = true
			r.broke = fmt.Sprintf("step %d failed", s.i)
		}
	}
	return nil
}

// runStep runs one step: resolve its references, check and decode its
// arguments, ask for approval if the session wants it, run the tool. A
// failed step leaves no trace (its changes are undone); ok false says it
// failed, a non-nil error is a protocol failure.
func (r *run) runStep(s *stepPlan) (ok bool, err error) {
	res := r.resp.Results[s.i]
	// The step's span is the context of everything the step does, its
	// waits on the client included.
	outer := r.ctx
	ctx, span := r.e.obs.startStep(outer, s.i, s.name, s.opID)
	r.ctx = ctx
	defer func() {
		r.ctx = outer
		revision := int64(0)
		if r.d != nil {
			revision = r.d.Revision
		}
		r.e.obs.endStep(ctx, span, s.name, revision, res)
	}()
	fail := func(te *toolError) (bool, error) {
		te.pb.OperationId = new(s.opID) // not &s.opID: the plan may be the run's own
		res.Status, res.Error = enginev1.StepStatus_STEP_STATUS_ERROR, te.pb
		return false, nil
	}
	if err := r.ctx.Err(); err != nil {
		r.halted = true
		return fail(contextError(err, "the call ended before step %d ran", s.i))
	}
	args, te := r.argsOf(s)
	if te != nil {
		return fail(te)
	}
	if r.needsApproval(s) {
		if err := r.approve(s, args); err != nil {
			if te, ok := asToolError(err); ok {
				return fail(te)
			}
			return false, err
		}
	}
	r.call = call{ctx: r.ctx, e: r.e, principal: r.caller.Principal, opID: s.opID, d: r.d, r: r, step: s.i, args: args}
	c := &r.call
	mark := 0
	if r.writer {
		c.tx = r.t
		mark = r.t.Mark()
	}
	var (
		out     proto.Message
		encoded []byte // the result's JSON, from a tool's dense form (then out is nil)
	)
	if s.dense != nil {
		encoded, err = s.dense.run(c)
	} else {
		out, err = s.tool.spec.run(c, args)
	}
	if err == nil && r.writer {
		// Constraints hold through every edit (DESIGN §14): re-solved in
		// the same step, or the step is refused.
		err = c.holdConstraints(s.name, mark)
	}
	if err != nil {
		if r.writer {
			r.UndoTo(mark)
		}
		if te, ok := asToolError(err); ok {
			return fail(te)
		}
		return false, err
	}
	if c.created != nil {
		r.created = c.created
	}
	if mutating(s.tool) && !c.dry {
		r.pending++
		if r.live == nil {
			r.live = make([]int32, 0, len(r.steps)) // at most one a step: no growing
		}
		r.live = append(r.live, int32(s.i))
		r.syncRevision()
	}
	res.Status = enginev1.StepStatus_STEP_STATUS_OK
	var h string
	hasHandle := false
	if hf := s.tool.handle; hf != nil && out != nil {
		if s.tool.handleGetter {
			h, hasHandle = out.(handleGetter).GetHandle(), true
		} else if m := out.ProtoReflect(); m.Has(hf) || !hf.HasPresence() {
			h, hasHandle = m.Get(hf).String(), true
		}
		if hasHandle {
			if r.handles == nil {
				r.handles = make([]string, len(r.resp.Results))
			}
			r.handles[s.i] = h
			res.Handle = &r.handles[s.i]
		}
	}
	whole := encoded
	if whole == nil && (!hasHandle || r.verbose || r.single || s.referenced) {
		if whole, err = contract.Marshal(out); err != nil {
			return false, fmt.Errorf("encode %s result: %w", s.name, err)
		}
	}
	if !hasHandle || r.verbose || r.single {
		res.ResultJson = whole
	}
	if s.bind != "" {
		if s.referenced {
			v, err := contract.ParseJSON(whole)
			if err != nil {
				return false, fmt.Errorf("read %s result: %w", s.name, err)
			}
			r.outs[s.i], _ = v.(map[string]any)
		}
		if r.resp.Bindings == nil {
			r.resp.Bindings = map[string]string{}
		}
		if hasHandle {
			r.resp.Bindings[s.bind] = h
		} else {
			delete(r.resp.Bindings, s.bind)
		}
	}
	return true, nil
}

// argsOf is a step's decoded arguments, its references replaced by the
// values they name and checked against the contract again; nil for
// arguments in the tool's dense form (s.dense).
func (r *run) argsOf(s *stepPlan) (proto.Message, *toolError) {
	if s.decoded != nil || s.dense != nil {
		return s.decoded, nil
	}
	v, err := mapStrings(s.tool.args, true, s.template, "", func(ptr string, _ slot, _ bool, str string) (any, error) {
		lit, ref, _ := parseValue(str) // validation parsed it already
		if ref == nil {
			return lit, nil
		}
		j := s.refs[ref.name]
		out := r.outs[j]
		if out == nil {
			return nil, unresolvedRef(ptr, "%s: step %d (bound as %q) did not succeed", ref.text, j, ref.name)
		}
		val, err := ref.resolve(out)
		if err != nil {
			return nil, unresolvedRef(ptr, "%v", err)
		}
		return val, nil
	})
	if err != nil {
		return nil, err.(*toolError)
	}
	data, err := contract.AppendGeneric(nil, v)
	if err != nil {
		return nil, invalidArgs("", reasonInvalid, "%v", err)
	}
	return s.tool.decodeArgs(data)
}

// ---- undo, revisions, checkpoints ----

// checkpoint is a point a run can roll back to: the batch's own (for
// on_error rollback) or one a transaction_begin step opened.
type checkpoint struct {
	id       string       // the transaction_begin step's operation id
	step     int          // that step, -1 for the batch's
	mark     int          // undo log position
	pending  int          // r.pending then
	epoch    int          // r.epoch then
	live     int          // len(r.live) then
	hash     drawing.Hash // content hash then
	revision int64
}

func (r *run) checkpoint(id string, step int) checkpoint {
	cp := checkpoint{id: id, step: step, pending: r.pending, epoch: r.epoch, live: len(r.live)}
	if r.t != nil {
		cp.mark = r.t.Mark()
	}
	if r.d != nil {
		cp.hash, cp.revision = r.d.ContentHash(), r.d.Revision
	}
	return cp
}

// UndoTo reverts the run's changes after mark, remembering those already
// stored: the next commit must store their undoing.
func (r *run) UndoTo(mark int) []drawing.Change {
	if mark >= r.t.Mark() {
		return nil // nothing after mark (a rollback step may have cut below it)
	}
	if mark < r.flushed {
		r.reverted = append(r.reverted, r.t.Since(mark)[:r.flushed-mark]...)
		r.flushed = mark
	}
	return r.t.UndoTo(mark)
}

// rollbackTo undoes everything since cp — only the run's own changes, in
// reverse order; what others committed while the run waited stays, except
// where they changed an entity the run had changed too, which gets back
// its state from before the run's change — and returns how many changes
// it undid.
func (r *run) rollbackTo(cp checkpoint) int {
	if r.t == nil {
		return 0
	}
	_, span := r.e.obs.tracer.Start(r.ctx, "cad.rollback")
	defer span.End()
	n := len(r.UndoTo(cp.mark))
	span.SetAttributes(attribute.Int("cad.rollback.changes", n))
	if cp.epoch == r.epoch {
		r.pending = cp.pending
	} else {
		r.pending = 0 // every step since the last commit point came after cp
	}
	for j := len(r.live) - 1; j >= cp.live; j-- {
		r.undone = append(r.undone, r.steps[r.live[j]].opID)
	}
	r.live = r.live[:cp.live]
	r.syncRevision()
	return n
}

func (r *run) syncRevision() {
	rev := r.durableRev + int64(r.pending)
	if len(r.reverted) > 0 {
		rev++
	}
	r.d.Revision = rev
}

// dirty says whether the document holds changes the store does not.
func (r *run) dirty() bool {
	return r.writer && (r.t.Mark() > r.flushed || len(r.reverted) > 0 || r.d.Revision != r.durableRev)
}

// ---- commit points ----

// commit is a commit point: the run's document changes since the last one
// (if any) and the operation's journal record, in one store transaction.
// On failure the document is brought back to what is stored (see abort)
// and the error returned.
func (r *run) commit(rec store.OperationRecord) error {
	c := &store.Commit{Operations: []store.OperationRecord{rec}}
	doc := r.dirty()
	var changes []drawing.Change
	reverted := len(r.reverted) > 0
	if doc {
		// commitOf only reads the changes: the undo log's own are passed
		// as they are, and copied only behind stored ones undone.
		changes = r.t.Since(r.flushed)
		if len(r.reverted) > 0 {
			changes = append(slices.Clone(r.reverted), changes...)
		}
		c = commitOf(r.d.Document, changes)
		c.Operations = []store.OperationRecord{rec}
	} else if r.created != nil {
		if err := r.e.adopt(r.ctx, r.created); err != nil {
			r.abort()
			return fmt.Errorf("commit operation %s: %w", r.op.key.id, err)
		}
		c = fullCommit(r.created.Document)
		c.Operations = []store.OperationRecord{rec}
		c.Lease = r.created.fence()
	}
	if r.d != nil && c.Lease == nil {
		c.Lease = r.d.fence()
	}
	if err := r.e.obs.commit(r.ctx, r.op.key.id, func() error { return r.e.store.Commit(context.WithoutCancel(r.ctx), c) }); err != nil {
		r.abort()
		return r.e.fenced(r.d, fmt.Errorf("commit operation %s: %w", r.op.key.id, err))
	}
	if doc {
		r.noteHistory(changes, reverted)
		r.flushed = r.t.Mark()
		r.reverted = nil
		r.durableRev, r.pending = r.d.Revision, 0
		r.epoch++
		r.d.noteCommit(r.d.Revision, r.op.key.id)
		r.notes = append(r.notes, commitNote{r.d.Revision, r.op.key.id})
	}
	r.e.ops.update(r.op, func(st *opState) {
		st.status, st.committed, st.revision = rec.Status, rec.CommittedSteps, rec.Revision
		st.response, st.finished, st.journaled = rec.Response, rec.FinishedAt, true
	})
	return nil
}

// abort ends a run that cannot record its outcome (a commit failed, or a
// tool failed as a protocol error): the document goes back to what is
// stored, and the operation becomes interrupted — with the committed steps
// and result of its last commit point — or, if it never reached one, is
// forgotten, so that a retry runs it afresh. Undoing what is stored cannot
// be taken back in memory, so a run that had done that quarantines the
// document (a restart reloads the stored state).
func (r *run) abort() {
	if r.writer && r.t != nil {
		r.t.UndoTo(r.flushed)
		if len(r.reverted) > 0 {
			r.d.quarantined = true
			r.reverted = nil
		}
		r.pending = 0
		r.syncRevision()
	}
	st := r.e.ops.state(r.op)
	if !st.journaled {
		r.e.ops.drop(r.op)
		return
	}
	r.e.ops.update(r.op, func(st *opState) {
		st.status = enginev1.OperationStatus_OPERATION_STATUS_INTERRUPTED
		st.finished = r.e.now().UTC()
	})
}

// record is the operation's journal record with the given status and
// result.
func (r *run) record(status enginev1.OperationStatus, resp *enginev1.ExecuteBatchResponse, finished bool) (store.OperationRecord, error) {
	b, err := encodeResponse(resp)
	if err != nil {
		return store.OperationRecord{}, err
	}
	st := r.e.ops.state(r.op)
	st.status, st.committed, st.response = status, slices.Clone(r.live), b
	if r.d != nil {
		st.revision = r.d.Revision
	}
	if finished {
		st.finished = r.e.now().UTC()
	}
	return r.op.record(st), nil
}

// ---- waiting on the client ----

// suspend lets go of the document before the run waits on its client. A
// writer that changed something first commits it, journaled as running
// with the result the operation would have if it stopped here (partial).
func (r *run) suspend(step int) error {
	if r.d == nil {
		return nil
	}
	if r.dirty() {
		rec, err := r.record(enginev1.OperationStatus_OPERATION_STATUS_RUNNING, r.partial(step), false)
		if err != nil {
			return err
		}
		if err := r.commit(rec); err != nil {
			return err
		}
	}
	r.releasedAt = r.d.Revision
	r.unlock()
	r.announce()
	r.e.ops.update(r.op, func(st *opState) { st.waiting = true })
	return nil
}

// resume takes the document back after a wait and notes who committed
// meanwhile. Waiting for the lane is not cancellable: the run must come
// back to finish its record, and lane holders never wait on clients.
func (r *run) resume() {
	r.e.ops.update(r.op, func(st *opState) { st.waiting = false })
	if r.d == nil {
		return
	}
	if r.writer {
		r.d.acquire(context.Background())
		r.d.mu.Lock()
	} else {
		r.d.mu.RLock()
	}
	r.locked = true
	ops, complete := r.d.committedSince(r.releasedAt, r.op.key.id)
	for _, op := range ops {
		if !slices.Contains(r.interleaved, op) {
			r.interleaved = append(r.interleaved, op)
		}
	}
	r.incomplete = r.incomplete || !complete
	if r.writer {
		r.durableRev, r.pending = r.d.Revision, 0
		r.epoch++
	}
}

// ask sends a server request to the caller's client for step, letting go
// of the document while it waits. Failures are step failures (*toolError):
// no client or a client without the method is unsupported, a context that
// ended is cancelled or timed_out; other errors are protocol failures.
func (r *run) ask(step int, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
	capability := "server_request:" + req.Method
	if r.caller.Client == nil {
		return nil, unsupported(capability, "%s needs a session whose client answers %s; this call has none", r.steps[step].name, req.Method)
	}
	if err := r.suspend(step); err != nil {
		return nil, err
	}
	ans, err := r.caller.Client.Ask(r.ctx, req)
	r.resume()
	switch {
	case err == nil && ans.GetError() != nil:
		if ans.GetError().GetCode() == int32(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND) {
			return nil, unsupported(capability, "the client does not implement %s", req.Method)
		}
		return nil, failed("the client answered %s with error %d: %s", req.Method, ans.GetError().GetCode(), ans.GetError().GetMessage())
	case err == nil:
		return ans, nil
	case errors.Is(err, ErrUnsupported):
		return nil, unsupported(capability, "the client does not implement %s", req.Method)
	case r.ctx.Err() != nil:
		return nil, contextError(r.ctx.Err(), "the call ended while step %d waited on the client (%s)", step, req.Method)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, contextError(err, "the %s request was withdrawn: %v", req.Method, err)
	default:
		return nil, failed("asking the client (%s) failed: %v", req.Method, err)
	}
}

package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	otelcodes "go.opentelemetry.io/otel/codes"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// ExecuteBatch runs cad.batch: an ordered list of tool calls on one
// document (DESIGN §3, "cad.batch"). In order:
//
//  1. A replay: the principal's operation id seen before answers from the
//     operation table (replay, operation_conflict or busy; see opTable.claim).
//  2. Validation of every step before anything runs (planBatch): unknown
//     tools, denied tools, arguments against the tool's input schema,
//     references against the binding step's output schema. Any failure
//     refuses the batch: status refused, the first failure as error, every
//     failure in errors, every step skipped (a step with a failure carries
//     it). More steps than Options.MaxBatchSteps (or none) is a refusal
//     too: invalid_args at path "/steps", reason out_of_range.
//  3. A dry run stops here with the validation report and a preview
//     (status validated or refused; see dryRun). It is not an operation:
//     it neither claims nor consults the operation id.
//  4. Under the document's lane: the guards (expected_revision and
//     preconditions; a mismatch refuses with stale_revision, the current
//     revision and the moved handles), then the steps, under on_error
//     (stop, continue or rollback; see run.runSteps), with waits on the
//     client as the steps need them (run.ask).
//  5. One commit of everything, with the operation's journal record.
//
// Tool failures are results. Errors are for the protocol: no
// document_id or a bad operation_id (ErrInvalid), no such document
// (ErrNotFound), a context that ended before the batch began (its
// error), a store failure at a commit point (then the document is as the
// store holds it, and the operation interrupted or forgotten; see
// run.abort), a closed engine.
//
// malformed_step (a step key other than tool, args and bind) cannot reach
// the engine through the typed request — the gateway refuses unknown keys
// with 4000 — so the engine uses the kind for the one step-shape rule the
// proto type cannot hold: a bind name that breaks its pattern.
func (e *Engine) ExecuteBatch(ctx context.Context, caller Caller, req *enginev1.ExecuteBatchRequest) (*enginev1.ExecuteBatchResponse, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	id := req.GetDocumentId()
	if id == "" {
		return nil, fmt.Errorf("%w: cad.batch needs document_id", ErrInvalid)
	}
	d, err := e.docFor(ctx, id)
	if err != nil {
		return nil, err
	}
	opID, explicit, err := operationID(req.OperationId)
	if err != nil {
		return nil, err
	}
	if explicit && !req.GetDryRun() {
		if err := e.recall(ctx, caller.Principal, opID, d); err != nil {
			return nil, err
		}
	}
	set := planSets.Get().(*planSet)
	defer set.release()
	plans, errs := e.planBatchIn(req, opID, set)
	if req.GetDryRun() {
		return e.dryRun(d, req, opID, plans, errs), nil
	}
	now := e.now()
	e.pruneOperations(ctx, now)
	o := e.newOp(caller.Principal, opID, explicit, gatewayv1.MethodCadBatch, id, batchHash(req, plans), now)
	prior, st, claimed := e.ops.claim(o)
	if claimed != claimNew {
		return e.answerClaimed(prior, st, claimed, opID, plans, d)
	}
	ctx, span := e.obs.startBatch(ctx, opID, id, req)
	defer span.End()
	r := newRun(ctx, e, caller, o, d, plans)
	defer r.release()
	r.mode, r.verbose = req.GetOnError(), req.GetVerbose()
	resp, err := r.execute(errs, req.ExpectedRevision, req.GetPreconditions())
	if err != nil {
		span.SetStatus(otelcodes.Error, err.Error())
	} else if !resp.GetOk() {
		span.SetStatus(otelcodes.Error, "batch "+resp.GetStatus().WireName())
	}
	return resp, err
}

// operationID is the request's operation id, or a new one.
func operationID(id *string) (string, bool, error) {
	if id == nil || *id == "" {
		return newOperationID(), false, nil
	}
	if len(*id) > 128 || strings.IndexFunc(*id, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
		return "", false, fmt.Errorf("%w: operation_id must be 1-128 printable ASCII characters", ErrInvalid)
	}
	return *id, true, nil
}

// newOperationID is "op-" and 64 random bits in hex. An operation id
// only needs to be unique among its principal's operations, not secret
// (operations are keyed by principal), so it comes from math/rand/v2's
// generator, which costs nothing next to crypto/rand's system call.
func newOperationID() string {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], rand.Uint64())
	var b [3 + 16]byte
	copy(b[:], "op-")
	hex.Encode(b[3:], raw[:])
	return string(b[:])
}

// newOp is a running operation that started at the engine's time now.
func (e *Engine) newOp(principal, id string, explicit bool, kind, doc string, hash requestHash, now time.Time) *opEntry {
	return &opEntry{
		key: opKey{principal, id}, kind: kind, doc: doc, hash: hash, explicit: explicit,
		st: opState{status: enginev1.OperationStatus_OPERATION_STATUS_RUNNING, started: now.UTC()},
	}
}

// answerClaimed answers a request whose operation id is taken: the
// recorded result again, or a refusal (operation_conflict, busy) that is
// not recorded — the id belongs to the first request.
func (e *Engine) answerClaimed(prior *opEntry, st opState, c claimResult, opID string, plans []*stepPlan, d *document) (*enginev1.ExecuteBatchResponse, error) {
	var te *toolError
	switch c {
	case claimReplay:
		if !st.recorded() {
			return nil, fmt.Errorf("operation %q has no recorded result", opID)
		}
		res, err := st.recordedResult()
		if err != nil {
			return nil, err
		}
		res.Replayed = true
		return res, nil
	case claimConflict:
		te = toolErr(enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT,
			"operation id %q was used for a different request (%s); a new request needs a new id", opID, prior.kind)
	default:
		wait := retryRunning
		if st.waiting {
			wait = retryWaiting
		}
		te = toolErr(enginev1.ErrorKind_ERROR_KIND_BUSY, "operation %q is still running; retry after %d ms", opID, wait.Milliseconds())
		te.pb.RetryAfterMs = new(wait.Milliseconds())
	}
	r := newRun(context.Background(), e, Caller{}, &opEntry{key: opKey{id: opID}}, nil, plans)
	defer r.release()
	r.refuse(te, nil)
	if d != nil {
		r.resp.Revision.After = d.durable.Load()
	}
	return r.resp, nil
}

// execute runs a claimed operation to its end: refusal, or the steps,
// then the final commit point.
func (r *run) execute(errs []*enginev1.ToolError, expected *int64, pre []*enginev1.Precondition) (*enginev1.ExecuteBatchResponse, error) {
	if len(errs) > 0 {
		r.writer = false // a refusal only reads
	}
	if err := r.lock(); err != nil {
		r.e.ops.drop(r.op)
		return nil, err
	}
	switch {
	case len(errs) > 0:
		r.refuse(&toolError{pb: proto.Clone(errs[0]).(*enginev1.ToolError)}, errs)
	case r.d != nil && r.d.quarantined:
		r.refuse(toolErr(enginev1.ErrorKind_ERROR_KIND_QUARANTINED,
			"document %s is quarantined: a commit failed after part of a rollback was stored; restart the engine to reload it", r.d.ID), nil)
	default:
		if r.d != nil && (expected != nil || len(pre) > 0) {
			r.guarded, r.checked = true, r.d.Revision
			if te := guard(r.d, expected, pre); te != nil {
				r.refuse(te, nil)
				break
			}
		}
		r.transaction = r.mode == enginev1.OnError_ON_ERROR_ROLLBACK
		if err := r.runSteps(); err != nil {
			r.abort()
			r.unlock()
			r.announce()
			return nil, err
		}
		status := enginev1.BatchStatus_BATCH_STATUS_COMPLETED
		switch {
		case r.rolledBack:
			status = enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK
		case r.halted && r.failed:
			status = enginev1.BatchStatus_BATCH_STATUS_FAILED
		}
		r.checkpoints = nil // open checkpoints close with the batch, keeping their changes
		r.finish(r.resp, status)
	}
	if err := r.conclude(); err != nil {
		r.unlock()
		r.announce()
		return nil, err
	}
	if r.created != nil {
		r.e.publish(r.created)
	}
	r.unlock()
	r.announce()
	if r.caller.Events != nil {
		r.caller.emit(gatewayv1.EventOperationFinished, &enginev1.OperationFinishedPayload{OperationId: r.op.key.id, Status: r.resp.Status.WireName()})
	}
	return r.resp, nil
}

// conclude is the final commit point: the document's remaining changes
// and the finished operation's record in one transaction, or, when there
// is nothing to store, the record in memory only (see opTable).
func (r *run) conclude() error {
	status := enginev1.OperationStatus_OPERATION_STATUS_SUCCEEDED
	if !r.resp.Ok {
		status = enginev1.OperationStatus_OPERATION_STATUS_FAILED
	}
	if r.dirty() || r.created != nil || r.op.explicit || r.e.ops.state(r.op).journaled {
		rec, err := r.record(status, r.resp, true)
		if err != nil {
			r.abort()
			return err
		}
		return r.commit(rec)
	}
	committed := slices.Clone(r.live)
	var revision int64
	if r.d != nil {
		revision = r.d.Revision
	}
	finished := r.e.now().UTC()
	r.e.ops.update(r.op, func(st *opState) {
		st.status, st.committed, st.revision = status, committed, revision
		st.result, st.response, st.finished = r.resp, nil, finished
	})
	return nil
}

// refuse makes the response a refusal: top is the error, errs the
// per-step errors that caused it; no step ran.
func (r *run) refuse(top *toolError, errs []*enginev1.ToolError) {
	for _, s := range r.steps {
		if s.invalid != nil {
			r.resp.Results[s.i].Error = s.invalid.pb
		}
	}
	top.pb.OperationId = &r.op.key.id
	r.resp.Error, r.resp.Errors = top.pb, errs
	r.finish(r.resp, enginev1.BatchStatus_BATCH_STATUS_REFUSED)
}

// guard checks expected_revision and the preconditions; the caller holds
// d.mu. Handles whose entity is gone, or whose fingerprint differs, moved.
func guard(d *document, expected *int64, pre []*enginev1.Precondition) *toolError {
	var moved []string
	for _, p := range pre {
		h, ok := drawing.ParseHandle(p.GetHandle())
		var ent *drawing.Entity
		if ok {
			ent = d.Entity(h)
		}
		if ent == nil || !strings.EqualFold(ent.Fingerprint(), p.GetFingerprint()) {
			name := p.GetHandle()
			if ok {
				name = drawing.FormatHandle(h)
			}
			moved = append(moved, name)
		}
	}
	stale := expected != nil && *expected != d.Revision
	if !stale && len(moved) == 0 {
		return nil
	}
	var msg string
	switch {
	case stale && len(moved) > 0:
		msg = fmt.Sprintf("the document is at revision %d, not %d, and %d guarded entities moved", d.Revision, *expected, len(moved))
	case stale:
		msg = fmt.Sprintf("the document is at revision %d, not %d", d.Revision, *expected)
	default:
		msg = fmt.Sprintf("%d guarded entities moved: %s", len(moved), strings.Join(moved, ", "))
	}
	te := toolErr(enginev1.ErrorKind_ERROR_KIND_STALE_REVISION, "%s", msg)
	te.pb.CurrentRevision = new(d.Revision)
	te.pb.MovedHandles = moved
	return te
}

// ---- validation ----

// planBatch validates every step (see ExecuteBatch) and returns the plans
// and, in step order, the failures, each with its step and operation id.
func (e *Engine) planBatch(req *enginev1.ExecuteBatchRequest, opID string) ([]*stepPlan, []*enginev1.ToolError) {
	return e.planBatchIn(req, opID, new(planSet))
}

// planBatchIn is planBatch with the plans in set.
func (e *Engine) planBatchIn(req *enginev1.ExecuteBatchRequest, opID string, set *planSet) ([]*stepPlan, []*enginev1.ToolError) {
	steps := req.GetSteps()
	all, plans := set.make(len(steps))
	for i, s := range steps {
		all[i] = stepPlan{i: i, name: s.GetTool(), bind: s.GetBind(), raw: argsOf(s.ArgsJson, s.GetArgs())}
	}
	setStepOperationIDs(opID, all)
	if n := len(steps); n == 0 || n > int(e.maxStep) {
		te := invalidArgs("/steps", reasonOutOfRange, "a batch has 1 to %d steps, this one %d", e.maxStep, n)
		te.pb.OperationId = new(opID) // not &opID, which would move opID to the heap on every batch
		return plans, []*enginev1.ToolError{te.pb}
	}
	var errs []*enginev1.ToolError
	binds := map[string]int{}
	var slab argsSlab
	for _, p := range plans {
		if te := e.validateStep(p, binds, plans, &slab); te != nil {
			te.pb.OperationId, te.pb.Step = new(p.opID), new(int32(p.i)) // not &p.opID: the plans are reused
			p.invalid = te
			errs = append(errs, te.pb)
		}
		if p.bind != "" {
			binds[p.bind] = p.i // a later bind of the same name shadows this one
		}
	}
	return plans, errs
}

// setStepOperationIDs gives each of a batch's plans its operation id,
// "<opID>.<i>": substrings of one string, the only allocation.
func setStepOperationIDs(opID string, plans []stepPlan) {
	var b strings.Builder
	b.Grow(len(plans) * (len(opID) + 5))
	var num [20]byte
	for i := range plans {
		b.WriteString(opID)
		b.WriteByte('.')
		b.Write(strconv.AppendInt(num[:0], int64(i), 10))
	}
	all, start := b.String(), 0
	for i := range plans {
		end := start + len(opID) + 1 + len(strconv.AppendInt(num[:0], int64(i), 10))
		plans[i].opID, start = all[start:end], end
	}
}

// planSet is the room for a batch's plans, reused from planSets: after
// the run's step list, the plans are a batch's largest allocation (some
// 140 bytes a step). A set goes back when ExecuteBatch returns, emptied.
// That is safe because nothing that outlives the batch points at a plan:
// the response and the journal record copy what they report of a step
// (its tool, its operation id — a string of its own — and its errors,
// which carry their own copy of the id), the run that listed the plans
// is released first, and a dry run's preview holds only the steps' own
// argument bytes, which are the request's.
type planSet struct {
	all   []stepPlan
	plans []*stepPlan
	n     int // the plans in use
}

// planSets are spare plan sets.
var planSets = sync.Pool{New: func() any { return new(planSet) }}

// maxPooledPlans is the most plans a set keeps when it goes back: a rare
// huge batch does not pin its room.
const maxPooledPlans = 1024

// make returns n empty plans and the list of them.
func (set *planSet) make(n int) ([]stepPlan, []*stepPlan) {
	if cap(set.all) < n {
		set.all, set.plans = make([]stepPlan, n), make([]*stepPlan, n)
	}
	set.n = n
	all, plans := set.all[:n], set.plans[:n]
	for i := range all {
		plans[i] = &all[i]
	}
	return all, plans
}

// release empties set, letting go of what its plans pointed to, and puts
// it back in planSets. Nothing may use its plans after.
func (set *planSet) release() {
	if cap(set.all) > maxPooledPlans {
		return
	}
	clear(set.all[:set.n])
	clear(set.plans[:set.n])
	set.n = 0
	planSets.Put(set)
}

// validateStep checks one step against the tool catalog and its args
// message, with its references type-checked against the result messages
// of the steps they name (see parseValue). A step without a "$" string is
// decoded straight from its JSON; one with references goes through the
// generic form, where they are found.
func (e *Engine) validateStep(p *stepPlan, binds map[string]int, plans []*stepPlan, slab *argsSlab) *toolError {
	if p.bind != "" && !refNameRE.MatchString(p.bind) {
		return toolErr(enginev1.ErrorKind_ERROR_KIND_MALFORMED_STEP, "bind %q is not a name (letters, digits and _, not starting with a digit)", p.bind)
	}
	if p.name == gatewayv1.MethodCadBatch {
		return denied("a batch step cannot be cad.batch")
	}
	t := e.tools[p.name]
	if t == nil {
		return toolErr(enginev1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL, "no tool is named %q", p.name)
	}
	p.tool = t
	if !t.info.Annotations.GetBatchable() {
		return denied("%s cannot be a batch step (it is not batchable); call it on its own", p.name)
	}
	if !bytes.Contains(p.raw, []byte(`"$`)) {
		// No references: decode straight away. Arguments that do not decode
		// go the generic way below, which reports what is wrong in the same
		// order as for a step with references.
		if p.dense = t.decodeDense(p.raw); p.dense != nil {
			return nil
		}
		if args, te := t.decodeArgsInto(p.raw, slab.get(t, plans, p.i)); te == nil {
			if te := checkHandles(args.ProtoReflect()); te != nil {
				return te
			}
			p.decoded = args
			return nil
		}
	}
	v, err := contract.ParseJSON(p.raw)
	if err != nil {
		_, te := t.decodeArgs(p.raw)
		return te
	}
	refs := map[string]int{}
	checked, err := mapStrings(t.args, true, v, "", func(ptr string, s slot, known bool, str string) (any, error) {
		lit, r, err := parseValue(str)
		switch {
		case err != nil:
			return nil, unresolvedRef(ptr, "%v", err)
		case r == nil:
			if _, ok := drawing.ParseHandle(lit); known && s.isHandle() && !ok {
				return nil, invalidArgs(ptr, reasonInvalid, "%q is not an entity handle (hex digits)", lit)
			}
			return lit, nil
		}
		j, ok := binds[r.name]
		if !ok {
			return nil, unresolvedRef(ptr, "%s: no earlier step binds %q", r.text, r.name)
		}
		refs[r.name] = j
		if bt := plans[j].tool; bt != nil {
			out, err := r.outputSlot(bt.result.md)
			if err != nil {
				return nil, unresolvedRef(ptr, "%v (step %d, %s)", err, j, bt.info.Name)
			}
			if known && !fits(out, s) {
				return nil, invalidArgs(ptr, reasonWrongType, "%s is %s in the result of step %d (%s), where %s expects %s",
					r.text, out.describe(), j, bt.info.Name, p.name, s.describe())
			}
		}
		if !known {
			return str, nil // the decoder reports the unknown field
		}
		return placeholder(s), nil
	})
	if err != nil {
		return err.(*toolError)
	}
	data, err := contract.AppendGeneric(nil, checked)
	if err != nil {
		return invalidArgs("", reasonInvalid, "%v", err)
	}
	args, te := t.decodeArgs(data)
	if te != nil {
		return te
	}
	if len(refs) == 0 {
		p.decoded = args // "$$" literals only
		return nil
	}
	p.template, p.refs = v, refs
	for _, j := range refs {
		plans[j].referenced = true
	}
	return nil
}

// argsSlab makes the empty args messages that planBatch decodes steps
// into, those of a run of consecutive steps of one tool (the common
// batch: a hundred entity_create_line) in one allocation rather than one
// each. A message handed out is the step's alone (it becomes its decoded
// arguments, or is dropped when they do not decode), so sharing the
// allocation shares no state: it only keeps the run's messages alive
// together, for as long as the batch's plans are.
type argsSlab struct {
	t    *tool
	msgs reflect.Value // a slice of t's args structs, those before next handed out
	next int
}

// get is an empty args message for plans[i], whose tool is t.
func (a *argsSlab) get(t *tool, plans []*stepPlan, i int) proto.Message {
	if a.t != t || a.next == a.msgs.Len() {
		n := 1
		for i+n < len(plans) && plans[i+n].name == plans[i].name {
			n++
		}
		if n == 1 || t.argsSlice == nil {
			a.t = nil
			return t.info.Args.ProtoReflect().New().Interface()
		}
		a.t, a.msgs, a.next = t, reflect.MakeSlice(t.argsSlice, n, n), 0
	}
	m := a.msgs.Index(a.next).Addr().Interface().(proto.Message)
	a.next++
	return m
}

// ---- dry run ----

// dryRun is the validation report of a batch and its preview: the
// document's revision, the fingerprint of every literal handle in a
// handle parameter (x-cad-handle fields and list items; not references,
// and not handles that name no entity now, such as those a step would
// create), and the planned steps. The guards are checked too, so a dry run
// also tells whether the batch would be refused as stale. Nothing runs and
// nothing is journaled.
func (e *Engine) dryRun(d *document, req *enginev1.ExecuteBatchRequest, opID string, plans []*stepPlan, errs []*enginev1.ToolError) *enginev1.ExecuteBatchResponse {
	r := newRun(context.Background(), e, Caller{}, &opEntry{key: opKey{id: opID}}, d, plans)
	defer r.release()
	r.mode = req.GetOnError()
	d.mu.RLock()
	defer d.mu.RUnlock()
	switch {
	case len(errs) > 0:
		r.refuse(&toolError{pb: proto.Clone(errs[0]).(*enginev1.ToolError)}, errs)
	default:
		if req.ExpectedRevision != nil || len(req.GetPreconditions()) > 0 {
			r.guarded, r.checked = true, d.Revision
			if te := guard(d, req.ExpectedRevision, req.GetPreconditions()); te != nil {
				r.refuse(te, nil)
				break
			}
		}
		r.finish(r.resp, enginev1.BatchStatus_BATCH_STATUS_VALIDATED)
		r.resp.Atomicity.Note = "dry run: the batch is valid; nothing ran"
	}
	r.resp.Preview = preview(d, plans)
	return r.resp
}

func preview(d *document, plans []*stepPlan) *enginev1.Preview {
	p := &enginev1.Preview{DocumentId: d.ID, Revision: d.Revision}
	seen := map[uint64]bool{}
	for i, s := range plans {
		ps := &enginev1.PlannedStep{I: int32(i), Tool: s.name, ArgsJson: s.raw}
		if s.bind != "" {
			ps.Bind = new(s.bind)
		}
		if s.tool != nil {
			ps.Destructive = s.tool.info.Annotations.GetDestructive()
			if s.decoded != nil {
				ps.Moves = wouldMove(d.Document, s.decoded)
			}
			v, err := contract.ParseJSON(s.raw)
			if err != nil {
				v = map[string]any{}
			}
			mapStrings(s.tool.args, true, v, "", func(_ string, sl slot, known bool, str string) (any, error) {
				if !known || !sl.isHandle() {
					return nil, nil
				}
				lit, r, err := parseValue(str)
				if err != nil || r != nil {
					return nil, nil
				}
				h, ok := drawing.ParseHandle(lit)
				if !ok || seen[h] || d.Entity(h) == nil {
					return nil, nil
				}
				seen[h] = true
				p.Preconditions = append(p.Preconditions, &enginev1.Precondition{Handle: drawing.FormatHandle(h), Fingerprint: d.Entity(h).Fingerprint()})
				return nil, nil
			})
		}
		p.Steps = append(p.Steps, ps)
	}
	return p
}

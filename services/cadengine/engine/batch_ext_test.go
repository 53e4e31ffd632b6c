package engine_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// st is a batch step: tool, args and an optional binding.
func st(tool string, args obj, bind ...string) *enginev1.BatchStep {
	s := &enginev1.BatchStep{Tool: tool}
	if args != nil {
		s.ArgsJson = mustJSON(args)
	}
	if len(bind) > 0 {
		s.Bind = &bind[0]
	}
	return s
}

// batchReq is a batch request on the fixture's document.
func (f *fixture) batchReq(steps ...*enginev1.BatchStep) *enginev1.ExecuteBatchRequest {
	return &enginev1.ExecuteBatchRequest{DocumentId: f.doc, Steps: steps}
}

// batch runs a batch as principal "tester" without a client; a protocol
// error fails the test, and every successful step's whole result is
// checked against its tool's output schema.
func (f *fixture) batch(req *enginev1.ExecuteBatchRequest) *enginev1.ExecuteBatchResponse {
	f.t.Helper()
	return runBatch(f.t, f.e, engine.Caller{Principal: "tester"}, req)
}

func runBatch(t testing.TB, e *engine.Engine, caller engine.Caller, req *enginev1.ExecuteBatchRequest) *enginev1.ExecuteBatchResponse {
	t.Helper()
	resp, err := e.ExecuteBatch(context.Background(), caller, req)
	if err != nil {
		t.Fatalf("ExecuteBatch: %v", err)
	}
	checkBatchResponse(t, req, resp)
	return resp
}

// checkBatchResponse checks what every batch response must satisfy.
func checkBatchResponse(t testing.TB, req *enginev1.ExecuteBatchRequest, resp *enginev1.ExecuteBatchResponse) {
	t.Helper()
	if len(resp.Results) != len(req.Steps) {
		t.Fatalf("ExecuteBatch returned %d results for %d steps", len(resp.Results), len(req.Steps))
	}
	var c enginev1.Counts
	for i, r := range resp.Results {
		if r.I != int32(i) || r.Tool != req.Steps[i].Tool || r.OperationId != resp.OperationId+"."+strconv.Itoa(i) {
			t.Errorf("result %d = i %d, tool %s, operation %s; want %d, %s, %s.%d", i, r.I, r.Tool, r.OperationId, i, req.Steps[i].Tool, resp.OperationId, i)
		}
		switch r.Status {
		case enginev1.StepStatus_STEP_STATUS_OK:
			c.Executed++
			c.Succeeded++
			if r.ResultJson != nil {
				if s := outputSchemas[r.Tool]; s != nil {
					if v := s.Validate(resultObj(r.ResultJson)); v != nil {
						t.Errorf("step %d (%s) result breaks its output schema: %v", i, r.Tool, v)
					}
				}
			}
			if r.Error != nil {
				t.Errorf("step %d ok with an error %v", i, r.Error)
			}
		case enginev1.StepStatus_STEP_STATUS_ERROR:
			c.Executed++
			c.Failed++
			if r.Error == nil || r.Error.Kind == enginev1.ErrorKind_ERROR_KIND_UNSPECIFIED || r.Error.GetOperationId() != r.OperationId {
				t.Errorf("step %d error = %v, want a kind and the step's operation id %s", i, r.Error, r.OperationId)
			}
		default:
			c.Skipped++
		}
	}
	if !proto.Equal(resp.Counts, &c) {
		t.Errorf("counts = %v, want %v", resp.Counts, &c)
	}
	if resp.Atomicity.GetGuarantee() != "undo_log" || resp.Revision == nil {
		t.Errorf("atomicity = %v, revision = %v; want guarantee undo_log and a revision report", resp.Atomicity, resp.Revision)
	}
}

const (
	statusCompleted  = enginev1.BatchStatus_BATCH_STATUS_COMPLETED
	statusFailed     = enginev1.BatchStatus_BATCH_STATUS_FAILED
	statusRolledBack = enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK
	statusRefused    = enginev1.BatchStatus_BATCH_STATUS_REFUSED
	statusValidated  = enginev1.BatchStatus_BATCH_STATUS_VALIDATED

	stepOK      = enginev1.StepStatus_STEP_STATUS_OK
	stepError   = enginev1.StepStatus_STEP_STATUS_ERROR
	stepSkipped = enginev1.StepStatus_STEP_STATUS_SKIPPED

	kindUnresolved = enginev1.ErrorKind_ERROR_KIND_UNRESOLVED_REF
	kindDenied     = enginev1.ErrorKind_ERROR_KIND_DENIED
	kindStale      = enginev1.ErrorKind_ERROR_KIND_STALE_REVISION
)

func statuses(resp *enginev1.ExecuteBatchResponse) string {
	var b strings.Builder
	for _, r := range resp.Results {
		switch r.Status {
		case stepOK:
			b.WriteByte('o')
		case stepError:
			b.WriteByte('e')
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestBatchReferences(t *testing.T) {
	f := newFixture(t)
	req := f.batchReq(
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0}, "l"),
		st(enginev1.ToolPointFromSnap, obj{"handle": "$l", "snap": "end", "ref_x": 11, "ref_y": 0}, "end"),
		// References nested in a list of objects.
		st(enginev1.ToolEntityCreatePolyline, obj{"points": []any{obj{"x": "$end.x", "y": "$end.y"}, obj{"x": 0, "y": 5}}}, "pl"),
		st(enginev1.ToolEntityBatchCreate, obj{"entities": []any{obj{"type": "point", "x": 1, "y": 1}, obj{"type": "point", "x": 2, "y": 2}}}, "pts"),
		// A negative index counts from the end.
		st(enginev1.ToolEntityMove, obj{"handle": "$pts.handles.-1", "dx": 10, "dy": 0}),
		// $$ is a literal $.
		st(enginev1.ToolEntityCreateText, obj{"text": "$$5", "x": 0, "y": 0}, "txt"),
		st(enginev1.ToolEntityGet, obj{"handle": "$pl"}, "got"),
	)
	resp := f.batch(req)
	if !resp.Ok || resp.Status != statusCompleted || statuses(resp) != "ooooooo" {
		t.Fatalf("batch = ok %v status %v steps %s, errors %v", resp.Ok, resp.Status, statuses(resp), resp.Results)
	}
	line, poly, txt := resp.Results[0].GetHandle(), resp.Results[2].GetHandle(), resp.Results[5].GetHandle()
	if got := f.get(poly)["points"].([]any); !nearPt(pt(got[0]), [2]float64{10, 0}) {
		t.Errorf("polyline's first vertex = %v, want (10, 0) from $end", got[0])
	}
	handles := resultObj(resp.Results[3].ResultJson)["handles"].([]any)
	if p := pt(f.get(handles[1].(string))["location"]); !nearPt(p, [2]float64{12, 2}) {
		t.Errorf("$pts.handles.-1 = point at %v, want the last point moved to (12, 2)", p)
	}
	if p := pt(f.get(handles[0].(string))["location"]); !nearPt(p, [2]float64{1, 1}) {
		t.Errorf("first point = %v, want it unmoved at (1, 1)", p)
	}
	if got := f.get(txt)["text"]; got != "$5" {
		t.Errorf("text from $$5 = %q, want $5", got)
	}
	// Short results: a handle only, unless the result has none.
	if r := resp.Results[0]; r.ResultJson != nil || r.GetHandle() != line {
		t.Errorf("create result = %v, want only the handle", r)
	}
	if r := resp.Results[1]; r.Handle != nil || r.ResultJson == nil {
		t.Errorf("point_from_snap result = %v, want the whole result (it has no handle)", r)
	}
	want := map[string]string{"l": line, "pl": poly, "txt": txt, "got": poly}
	if !equalMaps(resp.Bindings, want) {
		t.Errorf("bindings = %v, want %v (only steps with a handle)", resp.Bindings, want)
	}
	if info := f.info(); resp.Revision.GetAfter() != info.Revision || info.Revision != 5 {
		t.Errorf("revision after = %d, document %d; want 5 (one per mutating step)", resp.Revision.GetAfter(), info.Revision)
	}

	// verbose returns whole results beside the handle.
	resp = f.batch(&enginev1.ExecuteBatchRequest{DocumentId: f.doc, Verbose: ptr(true), Steps: []*enginev1.BatchStep{
		st(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1}),
	}})
	if r := resp.Results[0]; r.GetHandle() == "" || resultObj(r.ResultJson)["handle"] != r.GetHandle() {
		t.Errorf("verbose result = %v, want handle and whole result", r)
	}
}

// TestBatchReferencesIntoValueDomains checks that a reference may stand
// for a linetype or a lineweight: fields whose schemas hold a value domain.
func TestBatchReferencesIntoValueDomains(t *testing.T) {
	f := newFixture(t)
	f.ok(enginev1.ToolLayerCreate, obj{"name": "walls", "linetype": "dashed", "lineweight": 35})
	resp := f.batch(f.batchReq(
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 10, "y2": 0, "linetype": "hidden"}, "l"),
		st(enginev1.ToolEntityGet, obj{"handle": "$l"}, "g"),
		st(enginev1.ToolLayerList, obj{}, "layers"),
		st(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1, "linetype": "$g.linetype"}, "c"),
		st(enginev1.ToolLayerCreate, obj{"name": "copy", "linetype": "$layers.layers.-1.linetype", "lineweight": "$layers.layers.-1.lineweight"}),
	))
	if !resp.Ok || statuses(resp) != "ooooo" {
		t.Fatalf("batch = ok %v steps %s, results %v", resp.Ok, statuses(resp), resp.Results)
	}
	if got := f.get(resp.Results[3].GetHandle())["linetype"]; got != "HIDDEN" {
		t.Errorf("circle linetype from $g.linetype = %v, want HIDDEN", got)
	}
	for _, l := range f.info().Layers {
		if l.Name == "copy" && (l.Linetype != "DASHED" || l.Lineweight != 35) {
			t.Errorf("layer copy = %v, want DASHED, 35 from the references", l)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestBatchValidationRefusesEverything(t *testing.T) {
	f := newFixture(t)
	line := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	before := f.info()
	req := f.batchReq(
		st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 5, "y2": 5}, "l"), // valid
		st("entity_create_hexagon", obj{}),
		st(enginev1.ToolDocumentCreate, obj{}),
		st("cad.batch", obj{}),
		st(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": -1}),
		st(enginev1.ToolEntityMove, obj{"handle": "$nobody", "dx": 1, "dy": 1}),
		st(enginev1.ToolEntityMove, obj{"handle": line, "dx": "$l", "dy": 1}),
		st(enginev1.ToolEntityMove, obj{"handle": "$later", "dx": 1, "dy": 1}),
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}, "later"),
		st(enginev1.ToolEntityGet, obj{"handle": "zz"}),
		st(enginev1.ToolEntityDeleteMany, obj{"handles": []string{line, "zz"}}),
	)
	resp := f.batch(req)
	type want struct {
		step   int32
		kind   enginev1.ErrorKind
		path   string
		reason enginev1.ViolationReason
	}
	wants := []want{
		{1, kindUnknownTool, "", 0},
		{2, kindDenied, "", 0},
		{3, kindDenied, "", 0},
		{4, kindInvalid, "/radius", enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE},
		{5, kindUnresolved, "/handle", 0},
		{6, kindInvalid, "/dx", enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE}, // a reference of the wrong type
		{7, kindUnresolved, "/handle", 0},
		{9, kindInvalid, "/handle", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
		{10, kindInvalid, "/handles/1", enginev1.ViolationReason_VIOLATION_REASON_INVALID},
	}
	if resp.Ok || resp.Status != statusRefused || len(resp.Errors) != len(wants) {
		t.Fatalf("batch = ok %v status %v errors %v; want refused with %d errors", resp.Ok, resp.Status, resp.Errors, len(wants))
	}
	for i, w := range wants {
		e := resp.Errors[i]
		if e.GetStep() != w.step || e.Kind != w.kind || e.GetPath() != w.path || e.GetReason() != w.reason {
			t.Errorf("errors[%d] = step %d %v path %q reason %v (%s); want step %d %v %q %v", i, e.GetStep(), e.Kind, e.GetPath(), e.GetReason(), e.Message, w.step, w.kind, w.path, w.reason)
		}
		if r := resp.Results[w.step]; r.Status != stepSkipped || !proto.Equal(r.Error, e) {
			t.Errorf("results[%d] = %v, want skipped with its error %v", w.step, r, e)
		}
	}
	if top := resp.Error; top.GetKind() != kindUnknownTool || top.GetStep() != 1 || top.GetOperationId() != resp.OperationId {
		t.Errorf("top-level error = %v, want the first failure (unknown_tool, step 1) with the batch's operation id", top)
	}
	if statuses(resp) != "-----------" || resp.Counts.Executed != 0 {
		t.Errorf("steps = %s, counts %v; want every step skipped", statuses(resp), resp.Counts)
	}
	if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash || resp.Revision.GetAfter() != before.Revision {
		t.Errorf("a refused batch changed the document: %v → %v (reported after %d)", before, after, resp.Revision.GetAfter())
	}
}

func TestBatchReferenceTypes(t *testing.T) {
	f := newFixture(t)
	// A reference of the wrong type makes its argument invalid
	// (invalid_args at its path); one that names nothing, or a field the
	// result has not, is unresolved_ref (DESIGN §3 cad.batch, item 2).
	const ok, wrongType, unresolved = 0, kindInvalid, kindUnresolved
	tests := []struct {
		name string
		step *enginev1.BatchStep
		kind enginev1.ErrorKind // ok: the dry run validates
	}{
		{"number into number", st(enginev1.ToolEntityMove, obj{"handle": "$l", "dx": "$p.x", "dy": 0}), ok},
		{"integer into number", st(enginev1.ToolEntityMove, obj{"handle": "$l", "dx": "$w.count", "dy": 0}), ok},
		{"handle into number", st(enginev1.ToolEntityMove, obj{"handle": "$l", "dx": "$l", "dy": 0}), wrongType},
		{"number into integer", st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 1, "color": "$p.x"}), wrongType},
		{"no handle in result", st(enginev1.ToolEntityGet, obj{"handle": "$p"}), unresolved},
		{"missing field", st(enginev1.ToolEntityMove, obj{"handle": "$l", "dx": "$p.z", "dy": 0}), unresolved},
		{"list element", st(enginev1.ToolEntityGet, obj{"handle": "$w.handles.0"}), ok},
		{"field of a list", st(enginev1.ToolEntityGet, obj{"handle": "$w.handles.first"}), unresolved},
		{"object into object", st(enginev1.ToolPointPick, obj{"prompt": "p", "base": "$g.center"}), ok},
		{"object into number", st(enginev1.ToolEntityMove, obj{"handle": "$l", "dx": "$g.center", "dy": 0}), wrongType},
		{"string into enum", st(enginev1.ToolEntityList, obj{"types": []any{"$g.type"}}), ok},
		{"malformed", st(enginev1.ToolEntityCreateText, obj{"text": "$5", "x": 0, "y": 0}), unresolved},
		{"escaped", st(enginev1.ToolEntityCreateText, obj{"text": "$$5", "x": 0, "y": 0}), ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := f.batchReq(
				st(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0}, "l"),
				st(enginev1.ToolPointFromSnap, obj{"handle": "$l", "snap": "mid"}, "p"),
				st(enginev1.ToolSelectionWindow, obj{"x1": -1, "y1": -1, "x2": 2, "y2": 2}, "w"),
				st(enginev1.ToolEntityGet, obj{"handle": "$l"}, "g"),
				tt.step,
			)
			req.DryRun = ptr(true)
			resp := f.batch(req)
			if valid := resp.Status == statusValidated; valid != (tt.kind == ok) {
				t.Fatalf("dry run of %s = %v %v, want validated %v", string(tt.step.ArgsJson), resp.Status, resp.Errors, tt.kind == ok)
			}
			if tt.kind != ok && (len(resp.Errors) != 1 || resp.Errors[0].Kind != tt.kind || resp.Errors[0].GetStep() != 4) {
				t.Errorf("errors = %v, want one %v at step 4", resp.Errors, tt.kind)
			}
		})
	}
}

func TestBatchMaxSteps(t *testing.T) {
	e, err := engine.New(memory.New(), engine.Options{MaxBatchSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, _ := e.CreateDocument(context.Background(), &enginev1.CreateDocumentRequest{})
	f := &fixture{t: t, e: e, doc: info.DocumentId}
	p := st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	resp := f.batch(f.batchReq(p, p, p, p))
	if resp.Status != statusRefused || resp.Error.GetKind() != kindInvalid || resp.Error.GetPath() != "/steps" ||
		resp.Error.GetReason() != enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE {
		t.Errorf("4 steps with MaxBatchSteps 3 = %v %v, want refused invalid_args /steps out_of_range", resp.Status, resp.Error)
	}
	if resp := f.batch(f.batchReq(p, p, p)); !resp.Ok {
		t.Errorf("3 steps with MaxBatchSteps 3 = %v", resp.Error)
	}
}

func TestDryRunPreview(t *testing.T) {
	f := newFixture(t)
	a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	b := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	before := f.info()
	req := f.batchReq(
		st(enginev1.ToolEntityMove, obj{"handle": strings.ToLower(b), "dx": 1, "dy": 0}),
		st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0}, "p"),
		st(enginev1.ToolEntityMove, obj{"handle": "$p", "dx": 1, "dy": 0}),
		st(enginev1.ToolPointIntersection, obj{"handle1": a, "handle2": b}),
		st(enginev1.ToolEntityGet, obj{"handle": "FFFF"}),
		st(enginev1.ToolLayerDelete, obj{"name": "0"}),
	)
	req.DryRun, req.OperationId = ptr(true), ptr("dry-1")
	resp := f.batch(req)
	if !resp.Ok || resp.Status != statusValidated || resp.Counts.Skipped != 6 {
		t.Fatalf("dry run = ok %v %v %v, want validated with every step skipped", resp.Ok, resp.Status, resp.Errors)
	}
	pv := resp.Preview
	if pv.GetDocumentId() != f.doc || pv.GetRevision() != before.Revision || len(pv.Steps) != 6 {
		t.Fatalf("preview = %v", pv)
	}
	// Literal handles only, each once, upper-case; not $p, not FFFF.
	want := []string{b + "=" + f.get(b)["fingerprint"].(string), a + "=" + f.get(a)["fingerprint"].(string)}
	var got []string
	for _, p := range pv.Preconditions {
		got = append(got, p.Handle+"="+p.Fingerprint)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("preview preconditions = %v, want %v", got, want)
	}
	if s := pv.Steps[1]; s.Tool != enginev1.ToolEntityCreatePoint || s.GetBind() != "p" || s.Destructive {
		t.Errorf("planned step 1 = %v", s)
	}
	if !pv.Steps[5].Destructive || string(pv.Steps[0].ArgsJson) != string(req.Steps[0].ArgsJson) {
		t.Errorf("planned steps = %v, want layer_delete destructive and args as given", pv.Steps)
	}
	if after := f.info(); after.Revision != before.Revision || after.EntityCount != before.EntityCount {
		t.Errorf("a dry run changed the document: %v → %v", before, after)
	}
	// Nothing was journaled: the id is free for the real run.
	if _, err := f.e.GetOperation(context.Background(), "tester", "dry-1"); err == nil {
		t.Error("a dry run was recorded as an operation")
	}
	req.DryRun = nil
	if resp := f.batch(req); resp.Replayed || resp.Error.GetKind() == enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT {
		t.Errorf("real run after a dry run with the same id = %v", resp)
	}

	// An invalid dry run is refused, with its preview.
	bad := f.batchReq(st(enginev1.ToolEntityMove, obj{"handle": a, "dx": "x", "dy": 0}))
	bad.DryRun = ptr(true)
	if resp := f.batch(bad); resp.Ok || resp.Status != statusRefused || resp.Preview == nil || resp.Errors[0].GetPath() != "/dx" {
		t.Errorf("invalid dry run = %v %v, want refused with invalid_args /dx and a preview", resp.Status, resp.Errors)
	}
}

func TestBatchGuards(t *testing.T) {
	f := newFixture(t)
	a := f.handle(enginev1.ToolEntityCreateLine, obj{"x1": 0, "y1": 0, "x2": 1, "y2": 0})
	b := f.handle(enginev1.ToolEntityCreateCircle, obj{"cx": 0, "cy": 0, "radius": 1})
	c := f.handle(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	fpA, fpB, fpC := f.get(a)["fingerprint"].(string), f.get(b)["fingerprint"].(string), f.get(c)["fingerprint"].(string)
	rev := f.info().Revision
	move := st(enginev1.ToolEntityMove, obj{"handle": a, "dx": 1, "dy": 0})

	// A guard that holds: the batch runs and reports what it checked.
	req := f.batchReq(move)
	req.ExpectedRevision = ptr(rev)
	req.Preconditions = []*enginev1.Precondition{{Handle: a, Fingerprint: fpA}, {Handle: b, Fingerprint: fpB}}
	resp := f.batch(req)
	if !resp.Ok || resp.Revision.GetChecked() != rev || resp.Revision.GetAfter() != rev+1 {
		t.Fatalf("guarded batch = %v %v revision %v, want ok, checked %d, after %d", resp.Status, resp.Error, resp.Revision, rev, rev+1)
	}

	// Now a moved, b unchanged, c deleted.
	f.ok(enginev1.ToolEntityDelete, obj{"handle": c})
	for _, tt := range []struct {
		name     string
		expected *int64
		pre      []*enginev1.Precondition
		moved    string
	}{
		{"stale revision", ptr(rev), nil, ""},
		{"moved entities", nil, []*enginev1.Precondition{{Handle: a, Fingerprint: fpA}, {Handle: b, Fingerprint: fpB}, {Handle: c, Fingerprint: fpC}}, a + " " + c},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := f.info()
			req := f.batchReq(move)
			req.ExpectedRevision, req.Preconditions = tt.expected, tt.pre
			resp := f.batch(req)
			e := resp.Error
			if resp.Ok || resp.Status != statusRefused || e.GetKind() != kindStale || e.GetCurrentRevision() != before.Revision {
				t.Fatalf("batch = %v %v, want refused stale_revision at current revision %d", resp.Status, e, before.Revision)
			}
			if got := strings.Join(e.GetMovedHandles(), " "); got != tt.moved {
				t.Errorf("moved handles = %q, want %q", got, tt.moved)
			}
			if statuses(resp) != "-" || resp.Revision.GetChecked() != before.Revision {
				t.Errorf("steps %s, revision %v; want skipped, checked %d", statuses(resp), resp.Revision, before.Revision)
			}
			if after := f.info(); after.Revision != before.Revision || after.ContentHash != before.ContentHash {
				t.Errorf("a refused batch changed the document")
			}
		})
	}
}

func TestBatchOnError(t *testing.T) {
	good := func(x float64) *enginev1.BatchStep { return st(enginev1.ToolEntityCreatePoint, obj{"x": x, "y": 0}) }
	bad := st(enginev1.ToolEntityMove, obj{"handle": "FFFF", "dx": 1, "dy": 1})
	tests := []struct {
		mode      enginev1.OnError
		status    enginev1.BatchStatus
		steps     string
		entities  int64
		revision  int64
		rolled    bool
		transactn bool
	}{
		{enginev1.OnError_ON_ERROR_UNSPECIFIED, statusFailed, "oe--", 1, 1, false, false},
		{enginev1.OnError_ON_ERROR_STOP, statusFailed, "oe--", 1, 1, false, false},
		{enginev1.OnError_ON_ERROR_CONTINUE, statusCompleted, "oeoo", 3, 3, false, false},
		{enginev1.OnError_ON_ERROR_ROLLBACK, statusRolledBack, "oe--", 0, 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			f := newFixture(t)
			before := f.info()
			req := f.batchReq(good(1), bad, good(2), good(3))
			req.OnError = tt.mode.Enum()
			resp := f.batch(req)
			if resp.Ok || resp.Status != tt.status || statuses(resp) != tt.steps {
				t.Fatalf("batch = ok %v %v %s, want not ok, %v %s", resp.Ok, resp.Status, statuses(resp), tt.status, tt.steps)
			}
			if e := resp.Results[1].Error; e.GetKind() != kindFailed {
				t.Errorf("step 1 error = %v, want failed", e)
			}
			info := f.info()
			if info.EntityCount != tt.entities || info.Revision != tt.revision || resp.Revision.GetAfter() != tt.revision {
				t.Errorf("after the batch: %d entities, revision %d (reported %d); want %d, %d", info.EntityCount, info.Revision, resp.Revision.GetAfter(), tt.entities, tt.revision)
			}
			a := resp.Atomicity
			wantMode := tt.mode
			if wantMode == enginev1.OnError_ON_ERROR_UNSPECIFIED {
				wantMode = enginev1.OnError_ON_ERROR_STOP
			}
			if a.Mode != wantMode || a.RolledBack != tt.rolled || a.Transaction != tt.transactn || a.Verified != tt.rolled || a.Note == "" {
				t.Errorf("atomicity = %v, want mode %v rolled_back %v transaction %v verified %v and a note", a, wantMode, tt.rolled, tt.transactn, tt.rolled)
			}
			if tt.rolled && (info.ContentHash != before.ContentHash || len(a.Undone) != 1 || a.Undone[0] != resp.OperationId+".0") {
				t.Errorf("rollback: content hash %s → %s, undone %v; want equal and [step 0]", before.ContentHash, info.ContentHash, a.Undone)
			}
		})
	}
}

func TestTransactionsInsideBatch(t *testing.T) {
	f := newFixture(t)
	pt := func(x float64) *enginev1.BatchStep { return st(enginev1.ToolEntityCreatePoint, obj{"x": x, "y": 0}) }
	// A checkpoint rolled back by its own step: the revision goes back.
	resp := f.batch(f.batchReq(
		pt(1),
		st(enginev1.ToolTransactionBegin, obj{"label": "try"}, "tx"),
		pt(2), pt(3),
		st(enginev1.ToolTransactionRollback, nil),
		pt(4),
		st(enginev1.ToolTransactionBegin, nil),
		pt(5),
		st(enginev1.ToolTransactionCommit, nil),
	))
	if !resp.Ok || statuses(resp) != "ooooooooo" {
		t.Fatalf("batch = %v %s %v", resp.Status, statuses(resp), resp.Results)
	}
	begin := resultObj(resp.Results[1].ResultJson)
	if begin["transaction_id"] != resp.OperationId+".1" || begin["revision"] != 1.0 {
		t.Errorf("transaction_begin = %v, want its step's id and revision 1", begin)
	}
	rb := resultObj(resp.Results[4].ResultJson)
	if rb["transaction_id"] != begin["transaction_id"] || rb["undone"] != 2.0 || rb["verified"] != true {
		t.Errorf("transaction_rollback = %v, want the begin's id, 2 changes undone, verified", rb)
	}
	if info := f.info(); info.EntityCount != 3 || info.Revision != 3 || !resp.Atomicity.Transaction {
		t.Errorf("after: %d entities, revision %d, transaction %v; want 3 (points 1, 4, 5), revision 3, transaction true", info.EntityCount, info.Revision, resp.Atomicity.Transaction)
	}

	// Inside a rollback batch, a transaction is undone with the batch.
	before := f.info()
	req := f.batchReq(
		pt(6),
		st(enginev1.ToolTransactionBegin, nil),
		pt(7),
		st(enginev1.ToolTransactionCommit, nil),
		st(enginev1.ToolTransactionBegin, nil),
		pt(8),
		st(enginev1.ToolEntityDelete, obj{"handle": "FFFF"}),
		pt(9),
	)
	req.OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum()
	resp = f.batch(req)
	if resp.Status != statusRolledBack || statuses(resp) != "ooooooe-" || !resp.Atomicity.Verified {
		t.Fatalf("rollback batch = %v %s %v", resp.Status, statuses(resp), resp.Atomicity)
	}
	if after := f.info(); after.ContentHash != before.ContentHash || after.Revision != before.Revision || after.EntityCount != before.EntityCount {
		t.Errorf("rolled-back batch left changes: %v → %v", before, after)
	}
	if got, want := strings.Join(resp.Atomicity.Undone, " "), resp.OperationId+".5 "+resp.OperationId+".2 "+resp.OperationId+".0"; got != want {
		t.Errorf("undone = %q, want %q (newest first)", got, want)
	}

	// Misuse fails the step.
	resp = f.batch(f.batchReq(st(enginev1.ToolTransactionCommit, nil)))
	if resp.Results[0].Error.GetKind() != kindFailed {
		t.Errorf("transaction_commit without a checkpoint = %v, want failed", resp.Results[0].Error)
	}
}

func TestBatchProtocolErrors(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p := st(enginev1.ToolEntityCreatePoint, obj{"x": 0, "y": 0})
	if _, err := f.e.ExecuteBatch(ctx, engine.Caller{}, &enginev1.ExecuteBatchRequest{DocumentId: "doc-nope", Steps: []*enginev1.BatchStep{p}}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("batch on doc-nope = %v, want ErrNotFound", err)
	}
	if _, err := f.e.ExecuteBatch(ctx, engine.Caller{}, &enginev1.ExecuteBatchRequest{Steps: []*enginev1.BatchStep{p}}); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("batch without document_id = %v, want ErrInvalid", err)
	}
	req := f.batchReq(p)
	req.OperationId = ptr("has space")
	if _, err := f.e.ExecuteBatch(ctx, engine.Caller{}, req); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("batch with a bad operation_id = %v, want ErrInvalid", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.e.ExecuteBatch(cctx, engine.Caller{}, f.batchReq(p)); !errors.Is(err, context.Canceled) {
		t.Errorf("batch with a cancelled context = %v, want context.Canceled", err)
	}
	if f.info().Revision != 0 {
		t.Error("failed batches changed the document")
	}
}

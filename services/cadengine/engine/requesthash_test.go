package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// hashCase is a change of one request field: whether it must change the
// request hash (a retry that changes it is another request) or must not
// (a retry may change it).
type hashCase struct {
	change func(proto.Message)
	counts bool
}

// TestRequestHashCoversEveryField changes each field of the requests a
// hash covers, one at a time, and checks that exactly the fields a retry
// may change leave the hash alone. A field added to a request fails the
// test until it has a case here (and, when it counts, a place in
// callHash or batchHash).
func TestRequestHashCoversEveryField(t *testing.T) {
	e, err := New(memory.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	other, _ := structpb.NewStruct(map[string]any{"handle": "101"})

	call := &enginev1.CallToolRequest{SessionId: new("s"), DocumentId: new("d"), Tool: enginev1.ToolEntityGet,
		ArgsJson: []byte(`{"handle":"100"}`), OperationId: new("op")}
	callHashOf := func(m proto.Message) []byte {
		req := m.(*enginev1.CallToolRequest)
		h := callHash(req, e.planCall(req, "op"))
		return h[:]
	}
	checkHashCases(t, call, callHashOf, map[protoreflect.Name]hashCase{
		"session_id":   {func(m proto.Message) { m.(*enginev1.CallToolRequest).SessionId = new("s2") }, false},
		"operation_id": {func(m proto.Message) { m.(*enginev1.CallToolRequest).OperationId = new("op2") }, false},
		"document_id":  {func(m proto.Message) { m.(*enginev1.CallToolRequest).DocumentId = new("d2") }, true},
		"tool":         {func(m proto.Message) { m.(*enginev1.CallToolRequest).Tool = enginev1.ToolEntityDelete }, true},
		"args_json":    {func(m proto.Message) { m.(*enginev1.CallToolRequest).ArgsJson = []byte(`{"handle":"101"}`) }, true},
		// The Struct form is read when args_json is absent.
		"args": {func(m proto.Message) {
			m.(*enginev1.CallToolRequest).ArgsJson, m.(*enginev1.CallToolRequest).Args = nil, other
		}, true},
	})

	batch := &enginev1.ExecuteBatchRequest{SessionId: new("s"), DocumentId: "d", OperationId: new("op"),
		Steps: []*enginev1.BatchStep{{Tool: enginev1.ToolEntityGet, ArgsJson: []byte(`{"handle":"100"}`), Bind: new("a")}}}
	batchHashOf := func(m proto.Message) []byte {
		req := m.(*enginev1.ExecuteBatchRequest)
		plans, _ := e.planBatch(req, "op")
		h := batchHash(req, plans)
		return h[:]
	}
	b := func(m proto.Message) *enginev1.ExecuteBatchRequest { return m.(*enginev1.ExecuteBatchRequest) }
	checkHashCases(t, batch, batchHashOf, map[protoreflect.Name]hashCase{
		"session_id":        {func(m proto.Message) { b(m).SessionId = new("s2") }, false},
		"operation_id":      {func(m proto.Message) { b(m).OperationId = new("op2") }, false},
		"document_id":       {func(m proto.Message) { b(m).DocumentId = "d2" }, true},
		"dry_run":           {func(m proto.Message) { b(m).DryRun = new(true) }, true},
		"verbose":           {func(m proto.Message) { b(m).Verbose = new(true) }, true},
		"on_error":          {func(m proto.Message) { b(m).OnError = enginev1.OnError_ON_ERROR_ROLLBACK.Enum() }, true},
		"expected_revision": {func(m proto.Message) { b(m).ExpectedRevision = new(int64(3)) }, true},
		"preconditions": {func(m proto.Message) {
			b(m).Preconditions = []*enginev1.Precondition{{Handle: "100", Fingerprint: "ab"}}
		}, true},
		"steps": {func(m proto.Message) {
			b(m).Steps = append(b(m).Steps, &enginev1.BatchStep{Tool: enginev1.ToolEntityGet})
		}, true},
	})
	step := func(m proto.Message) *enginev1.BatchStep { return b(m).Steps[0] }
	checkHashCases(t, batch, batchHashOf, map[protoreflect.Name]hashCase{
		"tool":      {func(m proto.Message) { step(m).Tool = enginev1.ToolEntityDelete }, true},
		"bind":      {func(m proto.Message) { step(m).Bind = new("b") }, true},
		"args_json": {func(m proto.Message) { step(m).ArgsJson = []byte(`{"handle":"101"}`) }, true},
		"args":      {func(m proto.Message) { step(m).ArgsJson, step(m).Args = nil, other }, true},
	}, (&enginev1.BatchStep{}).ProtoReflect().Descriptor())
}

// checkHashCases checks each case against base, and that cases name
// every field of the message whose fields they change (base's own, or
// of, when given).
func checkHashCases(t *testing.T, base proto.Message, hash func(proto.Message) []byte, cases map[protoreflect.Name]hashCase, of ...protoreflect.MessageDescriptor) {
	t.Helper()
	md := base.ProtoReflect().Descriptor()
	if len(of) > 0 {
		md = of[0]
	}
	for i := range md.Fields().Len() {
		if name := md.Fields().Get(i).Name(); cases[name].change == nil {
			t.Errorf("%s.%s has no hash case: say whether it counts in the request hash", md.FullName(), name)
		}
	}
	before := hash(base)
	for name, c := range cases {
		m := proto.Clone(base)
		c.change(m)
		if changed := !bytes.Equal(hash(m), before); changed != c.counts {
			t.Errorf("%s.%s: the hash changed %v, want %v", md.FullName(), name, changed, c.counts)
		}
	}
}

// TestRequestHashCanonicalArgs: arguments that say the same in other
// words hash alike.
func TestRequestHashCanonicalArgs(t *testing.T) {
	e, err := New(memory.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	hashOf := func(args string) []byte {
		req := &enginev1.CallToolRequest{DocumentId: new("d"), Tool: enginev1.ToolEntityCreateLine, ArgsJson: []byte(args)}
		h := callHash(req, e.planCall(req, "op"))
		return h[:]
	}
	a := hashOf(`{"x1":0,"y1":0,"x2":1,"y2":2}`)
	if b := hashOf(`{ "y2":2.0, "x2":1, "y1":0, "x1":0e0 }`); !bytes.Equal(a, b) {
		t.Errorf("the same arguments in other words hash differently: %x, %x", a, b)
	}
	if b := hashOf(`{"x1":0,"y1":0,"x2":1,"y2":3}`); bytes.Equal(a, b) {
		t.Error("other arguments hash alike")
	}
}

// TestRequestHashEncoding: the canonical forms callHash and batchHash
// write field by field are the deterministic protobuf encoding of the
// request's canonical copy, which they stand for.
func TestRequestHashEncoding(t *testing.T) {
	e, err := New(memory.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	marshal := func(m proto.Message) []byte {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	args, _ := structpb.NewStruct(map[string]any{"handle": "101", "extra": []any{1.5, "x"}})
	for _, req := range []*enginev1.CallToolRequest{
		{Tool: enginev1.ToolEntityGet, DocumentId: new("d"), ArgsJson: []byte(`{"handle":"100"}`), OperationId: new("x"), SessionId: new("s")},
		{Tool: enginev1.ToolEntityGet, DocumentId: new(""), ArgsJson: []byte(`{}`)},
		{Tool: enginev1.ToolSystemStatus},
		{Tool: enginev1.ToolEntityGet, Args: args},
		{Tool: "no_such_tool", ArgsJson: []byte(`{"a":1}`)},
		{Tool: enginev1.ToolEntityGet, ArgsJson: []byte(`{"handle":5}`)},
		{Tool: enginev1.ToolEntityCreateLine, ArgsJson: []byte(`{"x1":-0.0,"y1":1e300,"x2":3,"y2":4,"color":256}`)},
		// entity_batch_create's dense form writes the encoding itself.
		{Tool: enginev1.ToolEntityBatchCreate, DocumentId: new("d"), ArgsJson: []byte(`{"entities":[` +
			`{"type":"line","x1":-0.0,"y1":1e300,"x2":3,"y2":4,"color":256,"layer":"w","linetype":"dashed"},` +
			`{"type":"polyline","points":[{"x":0,"y":-0.0},{"x":1,"y":0,"bulge":0},{"x":0,"y":1,"bulge":-0.5}],"closed":false},` +
			`{"type":"text","text":"héllo","x":1,"y":2,"height":0.5,"rotation":-90},` +
			`{"type":"ellipse","cx":0,"cy":0,"major_x":2,"major_y":0,"ratio":0.5,"start_angle":10,"end_angle":20,"color":0}]}`)},
		{Tool: enginev1.ToolEntityBatchCreate, ArgsJson: []byte(`{"entities":[{"type":"line","x1":0,"y1":0,"x2":0,"y2":0}]}`)},
		// Large enough to be read in halves and hashed while the call runs
		// (setCallHash).
		{Tool: enginev1.ToolEntityBatchCreate, DocumentId: new("d"), ArgsJson: []byte(manyNewEntities(8000))},
		{Tool: enginev1.ToolEntityBatchCreate, DocumentId: new("d"), ArgsJson: plainLines(8000, 0)},
	} {
		s := e.planCall(req, "op")
		want := marshal(&enginev1.CallToolRequest{DocumentId: req.DocumentId, Tool: req.Tool, ArgsJson: append([]byte{}, canonicalArgs(t, s)...)})
		if got := callCanonical(nil, req, s); !bytes.Equal(got, want) {
			t.Errorf("call %v:\n got %x\nwant %x", req, got, want)
		}
		// The hash is of the method, a zero byte and that (hashed in two
		// parts for dense arguments).
		if got, want := callHash(req, s), requestHash(sha256.Sum256(append(append([]byte(gatewayv1.MethodToolsCall), 0), want...))); got != want {
			t.Errorf("call %v: hash %x, want %x", req, got, want)
		}
		o := &opEntry{}
		setCallHash(o, req, s)
		if got, want := o.requestHash(), callHash(req, s); got != want {
			t.Errorf("call %.200v: setCallHash's hash %x, callHash's %x", req, got, want)
		}
		// The first entity_batch_create case is one the dense form takes.
		if s.dense == nil && req.Tool == enginev1.ToolEntityBatchCreate && strings.Contains(string(req.ArgsJson), `"x2":3`) {
			t.Errorf("call %v: not decoded densely", req)
		}
	}
	for _, req := range []*enginev1.ExecuteBatchRequest{
		{DocumentId: "d", Steps: []*enginev1.BatchStep{
			{Tool: enginev1.ToolEntityGet, ArgsJson: []byte(`{"handle":"100"}`), Bind: new("a")},
			{Tool: enginev1.ToolEntityGet, ArgsJson: []byte(`{"handle":"$a.handle"}`), Bind: new("")},
			{Tool: enginev1.ToolEntityGet, Args: args},
			{Tool: "no_such_tool"},
			{ArgsJson: []byte(`[]`)},
			{Tool: enginev1.ToolEntityBatchCreate, ArgsJson: []byte(`{"entities":[{"type":"arc","cx":1,"cy":2,"radius":3,"start_angle":0,"end_angle":90}]}`)},
		}},
		{DocumentId: "d", DryRun: new(false), Verbose: new(true), OnError: enginev1.OnError_ON_ERROR_ROLLBACK.Enum(),
			ExpectedRevision: new(int64(-3)), Preconditions: []*enginev1.Precondition{{Handle: "1", Fingerprint: "ab"}, {}},
			Steps: []*enginev1.BatchStep{{Tool: enginev1.ToolEntityGet, ArgsJson: []byte(`{"handle":"100"}`)}}},
		{OnError: enginev1.OnError(-1).Enum()},
	} {
		plans, _ := e.planBatch(req, "op")
		c := &enginev1.ExecuteBatchRequest{DocumentId: req.DocumentId, DryRun: req.DryRun, Verbose: req.Verbose, OnError: req.OnError,
			Preconditions: req.Preconditions, ExpectedRevision: req.ExpectedRevision}
		for i, step := range req.Steps {
			c.Steps = append(c.Steps, &enginev1.BatchStep{Tool: step.Tool, Bind: step.Bind, ArgsJson: canonicalArgs(t, plans[i])})
		}
		if got, want := batchCanonical(nil, new([]byte(nil)), req, plans), marshal(c); !bytes.Equal(got, want) {
			t.Errorf("batch %v:\n got %x\nwant %x", req, got, want)
		}
	}
}

// canonicalArgs is a step's canonical arguments as appendArgs defines
// them, made the plain way.
func canonicalArgs(t testing.TB, s *stepPlan) []byte {
	t.Helper()
	switch {
	case s.dense != nil:
		// What the args message they stand for marshals to.
		m, te := s.tool.decodeArgs(s.raw)
		if te != nil {
			t.Fatalf("dense arguments %s do not decode the ordinary way: %v", s.raw, te.pb)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case s.decoded != nil:
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(s.decoded)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case s.template != nil:
		b, err := contract.AppendGeneric(nil, s.template)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return s.raw
}

// plainLines is the arguments of an entity_batch_create of n lines
// without a style, the i-th from (i+dx, 0.5).
func plainLines(n int, dx float64) []byte {
	b := []byte(`{"entities":[`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"type":"line","x1":%v,"y1":0.5,"x2":%v,"y2":-0.0}`, float64(i)+dx, float64(i)+dx+0.25)
	}
	return append(b, "]}"...)
}

// TestLargeCallRetried: a call whose hash is taken while it runs
// (setCallHash) journals the hash callHash takes; a retry under its id is
// answered with its result, and another request under its id is refused,
// as for any call.
func TestLargeCallRetried(t *testing.T) {
	ctx := context.Background()
	e, err := New(memory.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, err := e.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	caller := Caller{Principal: "tester"}
	call := func(args []byte) *enginev1.CallToolResponse {
		t.Helper()
		resp, err := e.CallTool(ctx, caller, &enginev1.CallToolRequest{Tool: enginev1.ToolEntityBatchCreate, DocumentId: &info.DocumentId, OperationId: new("big-1"), ArgsJson: args})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	args := plainLines(8000, 0)
	req := &enginev1.CallToolRequest{Tool: enginev1.ToolEntityBatchCreate, DocumentId: &info.DocumentId, ArgsJson: args}
	if s := e.planCall(req, "big-1"); s.dense == nil || s.dense.canonicalSize() < hashLaterFrom {
		t.Fatalf("the arguments are not hashed while the call runs")
	}
	first := call(args)
	if !first.Ok || first.Replayed {
		t.Fatalf("first call = ok %v, replayed %v: %v", first.Ok, first.Replayed, first.Error)
	}
	var stored []byte
	if err := e.store.LoadOperations(ctx, func(op *store.OperationRecord) error {
		if op.ID == "big-1" {
			stored = op.RequestHash
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := callHash(req, e.planCall(req, "big-1")); !bytes.Equal(stored, want[:]) {
		t.Errorf("journaled request hash %x, want %x", stored, want)
	}
	// The same request again, with its arguments spelled otherwise.
	again := call(bytes.ReplaceAll(args, []byte(`"y2":-0.0`), []byte(`"y2":-0e0`)))
	if !again.Ok || !again.Replayed || !bytes.Equal(again.ResultJson, first.ResultJson) {
		t.Errorf("retry = ok %v, replayed %v, same result %v; want a replay of the first", again.Ok, again.Replayed, bytes.Equal(again.ResultJson, first.ResultJson))
	}
	other := call(plainLines(8000, 1))
	if other.Ok || other.Error.GetKind() != enginev1.ErrorKind_ERROR_KIND_OPERATION_CONFLICT {
		t.Errorf("another request under the id = ok %v, %v; want operation_conflict", other.Ok, other.Error)
	}
}

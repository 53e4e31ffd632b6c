package protocodec_test

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/protocodec"
)

// lineArgs is the args of an entity_create_line step.
const lineArgs = `{"x1":1,"y1":0,"x2":2.5,"y2":10}`

// batchRequest is a cad.batch call of n entity_create_line steps, with a
// call id and a trace context, as the gateway sends it.
func batchRequest(n int) *enginev1.SessionRequest {
	steps := make([]*enginev1.BatchStep, n)
	for i := range steps {
		steps[i] = &enginev1.BatchStep{Tool: enginev1.ToolEntityCreateLine, ArgsJson: []byte(lineArgs)}
	}
	return callOf(&enginev1.SessionCall{
		CallId: 42,
		TraceContext: map[string]string{
			"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
			"tracestate":  "congo=t61rcWkgMzE",
		},
		WireJson: true,
		Request: &enginev1.SessionCall_ExecuteBatch{ExecuteBatch: &enginev1.ExecuteBatchRequest{
			DocumentId: "doc-1",
			Steps:      steps,
		}},
	})
}

// callOf is the SessionRequest carrying call.
func callOf(call *enginev1.SessionCall) *enginev1.SessionRequest {
	return &enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Call{Call: call}}
}

// marshal is m's encoding.
func marshal(tb testing.TB, m proto.Message) []byte {
	tb.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// field is the encoding of a field of bytes type: tag, length, value.
func field(num protowire.Number, value ...[]byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, bytes.Join(value, nil))
}

// varint is the encoding of a field of varint type.
func varint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

// batchOf is the encoding of a SessionRequest whose call has the fields
// call (before and after the batch, unknown ones among them) and whose
// batch, field 17, has the fields batch.
func batchOf(call [][]byte, batch ...[]byte) []byte {
	return field(2, bytes.Join(call, nil), field(17, batch...))
}

// step is the encoding of a BatchStep of the fields given.
func step(fields ...[]byte) []byte { return field(3, fields...) }

// checkAgrees fails unless the codec reads data, in frames of each size,
// as proto.Unmarshal does: the same message, or an error when it fails.
// Beyond proto.Equal, a step's args_json is nil exactly when it is for
// proto.Unmarshal (the engine tells a step without args_json from one
// with empty args).
func checkAgrees(t *testing.T, data []byte) {
	t.Helper()
	want := new(enginev1.SessionRequest)
	werr := proto.Unmarshal(data, want)
	for _, frame := range []int{1 << 20, 64, 1} {
		got := new(enginev1.SessionRequest)
		gerr := protocodec.New().Unmarshal(split(data, frame), got)
		if (gerr == nil) != (werr == nil) || werr == nil && !proto.Equal(got, want) {
			t.Fatalf("Unmarshal(%d bytes in frames of %d) = %v, error %v; proto.Unmarshal = %v, error %v", len(data), frame, got, gerr, want, werr)
		}
		gs, ws := got.GetCall().GetExecuteBatch().GetSteps(), want.GetCall().GetExecuteBatch().GetSteps()
		for i := range gs {
			if (gs[i].ArgsJson == nil) != (ws[i].ArgsJson == nil) {
				t.Fatalf("Unmarshal: step %d's args_json = %q (nil %v); proto.Unmarshal's nil %v", i, gs[i].ArgsJson, gs[i].ArgsJson == nil, ws[i].ArgsJson == nil)
			}
		}
	}
}

// TestCodecUnmarshalBatchAgrees: on encodings of cad.batch calls, plain
// (0, 1, 100 steps, binds, args absent or empty, the other fields of a
// batch) or not (the deprecated Struct args, unknown fields in a step, in
// the batch, in the call, a field twice, another request beside the
// batch, strings that are not UTF-8, a steps field of another wire type),
// on other calls and frames, and on every prefix of a batch, the codec
// reads what protobuf reads, or fails as it does.
func TestCodecUnmarshalBatchAgrees(t *testing.T) {
	bind := func(s string) *string { return &s }
	full := batchRequest(3)
	b := full.GetCall().GetExecuteBatch()
	b.SessionId, b.DryRun, b.Verbose, b.OperationId, b.ExpectedRevision = bind("ses-1"), new(true), new(false), bind("op-7"), new(int64(9))
	b.OnError = enginev1.OnError_ON_ERROR_CONTINUE.Enum()
	b.Preconditions = []*enginev1.Precondition{{Handle: "1A", Fingerprint: "f"}}
	b.Steps[0].Bind, b.Steps[2].Bind = bind("first"), bind("")
	b.Steps[1].ArgsJson = nil

	withStruct := batchRequest(2)
	withStruct.GetCall().GetExecuteBatch().Steps[1] = &enginev1.BatchStep{Tool: "entity_get", Args: &structpb.Struct{Fields: map[string]*structpb.Value{"handle": structpb.NewStringValue("1A")}}}

	line := field(1, []byte(enginev1.ToolEntityCreateLine))
	args := field(4, []byte(lineArgs))
	callID := varint(1, 5)
	doc := field(2, []byte("doc-1"))

	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"no steps", marshal(t, batchRequest(0))},
		{"one step", marshal(t, batchRequest(1))},
		{"100 steps", marshal(t, batchRequest(100))},
		{"every field of a batch, binds", marshal(t, full)},
		{"an empty batch", batchOf(nil)},
		{"an empty step", batchOf(nil, step())},
		{"empty args", batchOf(nil, step(line, field(4)))},
		{"args, then empty args", batchOf(nil, step(line, args, field(4)))},
		{"empty args, then args", batchOf(nil, step(line, field(4), args))},
		{"the tool twice", batchOf(nil, step(line, args, field(1, []byte("entity_get"))))},
		{"the bind twice", batchOf(nil, step(field(3, []byte("a")), line, field(3, []byte("bb"))))},
		{"a tool not in the catalog", batchOf(nil, step(field(1, []byte("no_such_tool")), args))},
		{"the steps among other fields", batchOf([][]byte{callID}, step(line), doc, step(args), varint(4, 1), step(line, args))},
		{"the call's fields after the batch", field(2, field(17, doc, step(line)), callID, varint(3, 1))},
		{"deprecated Struct args", marshal(t, withStruct)},
		{"an unknown field in a step", batchOf(nil, step(line, varint(99, 1), args))},
		{"an unknown group in a step", batchOf(nil, step(line, protowire.AppendTag(nil, 98, protowire.StartGroupType), protowire.AppendTag(nil, 98, protowire.EndGroupType)))},
		{"an unknown field in the batch", batchOf(nil, doc, step(line), varint(99, 1), step(args))},
		{"an unknown field in the call", batchOf([][]byte{varint(99, 1), callID}, doc, step(line))},
		{"an unknown field in the request", append(batchOf(nil, step(line)), varint(99, 1)...)},
		{"the batch twice", field(2, field(17, doc, step(line)), field(17, step(args)))},
		{"the call twice", append(batchOf(nil, step(line)), batchOf(nil, step(args))...)},
		{"another request after the batch", field(2, field(17, step(line)), field(16, field(1, []byte("entity_get"))))},
		{"another request before the batch", field(2, field(16, field(1, []byte("entity_get"))), field(17, step(line)))},
		{"a tool that is not UTF-8", batchOf(nil, step(field(1, []byte("entity_\xff")), args))},
		{"a bind that is not UTF-8", batchOf(nil, step(line, field(3, []byte("b\xc0"))))},
		{"a document id that is not UTF-8", batchOf(nil, field(2, []byte("doc-\xff")), step(line))},
		{"a trace context that is not UTF-8", batchOf([][]byte{field(2, field(1, []byte("k\xff")), field(2, []byte("v")))}, step(line))},
		{"a tool of varint type", batchOf(nil, step(varint(1, 7)))},
		{"args of varint type", batchOf(nil, step(line, varint(4, 7)))},
		{"steps of varint type", batchOf(nil, doc, varint(3, 1), step(line))},
		{"the batch of varint type", field(2, callID, varint(17, 1))},
		{"a step cut short", batchOf(nil, field(3, line[:len(line)-1]))},
		{"a call of tools.call", marshal(t, callOf(&enginev1.SessionCall{CallId: 1, Request: &enginev1.SessionCall_CallTool{CallTool: &enginev1.CallToolRequest{Tool: "entity_get", ArgsJson: []byte(`{}`)}}}))},
		{"a call without a request", marshal(t, callOf(&enginev1.SessionCall{CallId: 1}))},
		{"an open frame", marshal(t, &enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Open{Open: &enginev1.OpenStream{Principal: "p"}}})},
		{"nothing", nil},
	} {
		t.Run(tc.name, func(t *testing.T) { checkAgrees(t, tc.data) })
	}
	t.Run("every prefix", func(t *testing.T) {
		data := marshal(t, full)
		for n := range data {
			checkAgrees(t, data[:n])
		}
	})
}

// TestCodecUnmarshalBatchArgs: a step's args are capped at their length,
// so that appending to them leaves the next step's as they were, and they
// are not the received bytes, which grpc reuses.
func TestCodecUnmarshalBatchArgs(t *testing.T) {
	data := marshal(t, batchRequest(3))
	got := new(enginev1.SessionRequest)
	if err := protocodec.New().Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, got); err != nil {
		t.Fatal(err)
	}
	steps := got.GetCall().GetExecuteBatch().GetSteps()
	for i, s := range steps {
		if cap(s.ArgsJson) != len(s.ArgsJson) {
			t.Errorf("step %d: cap(args_json) = %d, want its length %d", i, cap(s.ArgsJson), len(s.ArgsJson))
		}
	}
	_ = append(steps[0].ArgsJson, bytes.Repeat([]byte("x"), 200)...) // longer than a step
	if string(steps[1].ArgsJson) != lineArgs {
		t.Errorf("after an append to step 0's args, step 1's = %s, want %s", steps[1].ArgsJson, lineArgs)
	}
	clear(data)
	if string(steps[2].ArgsJson) != lineArgs || steps[2].Tool != enginev1.ToolEntityCreateLine {
		t.Errorf("after the received bytes were cleared, step 2 = %q %s, want %q %s", steps[2].Tool, steps[2].ArgsJson, enginev1.ToolEntityCreateLine, lineArgs)
	}
}

// TestCodecUnmarshalBatchAllocs: what the codec allocates for a batch
// does not grow with its steps, binds or no binds.
func TestCodecUnmarshalBatchAllocs(t *testing.T) {
	c := protocodec.New()
	allocs := func(req *enginev1.SessionRequest) float64 {
		data := mem.BufferSlice{mem.SliceBuffer(marshal(t, req))}
		return testing.AllocsPerRun(100, func() {
			if err := c.Unmarshal(data, new(enginev1.SessionRequest)); err != nil {
				t.Fatal(err)
			}
		})
	}
	bound := func(n int) *enginev1.SessionRequest {
		req := batchRequest(n)
		for i, s := range req.GetCall().GetExecuteBatch().GetSteps() {
			s.Bind = proto.String(fmt.Sprintf("l%d", i))
		}
		return req
	}
	for _, tc := range []struct {
		name string
		make func(int) *enginev1.SessionRequest
	}{{"no binds", batchRequest}, {"binds", bound}} {
		if one, many := allocs(tc.make(1)), allocs(tc.make(100)); many > one {
			t.Errorf("%s: Unmarshal of a batch of 100 steps = %v allocations, of 1 step %v; want no more", tc.name, many, one)
		}
	}
}

// TestBatchStepFields: the messages the codec reads by hand are as it
// reads them. A BatchStep field it does not know would not be lost (a
// step with it is left to proto.Unmarshal, and so is anything unknown in
// the request, the call or the batch, which are spliced around their
// other fields), but every batch using it would quietly be read the slow
// way: this fails first, for the decoder to learn it.
func TestBatchStepFields(t *testing.T) {
	type want struct {
		number   protowire.Number
		kind     protoreflect.Kind
		list     bool
		presence bool
		message  protoreflect.FullName
		oneof    protoreflect.Name
	}
	check := func(m proto.Message, fields map[protoreflect.Name]want, all bool) {
		md := m.ProtoReflect().Descriptor()
		for name, w := range fields {
			fd := md.Fields().ByName(name)
			if fd == nil {
				t.Errorf("%s has no field %s, which the codec reads", md.FullName(), name)
				continue
			}
			got := want{fd.Number(), fd.Kind(), fd.IsList(), fd.HasPresence(), "", ""}
			if fd.Message() != nil {
				got.message = fd.Message().FullName()
			}
			if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
				got.oneof = o.Name()
			}
			if got != w {
				t.Errorf("%s = %+v, want %+v as the codec reads it", fd.FullName(), got, w)
			}
		}
		for i := 0; all && i < md.Fields().Len(); i++ {
			if fd := md.Fields().Get(i); fields[fd.Name()] == (want{}) {
				t.Errorf("%s has field %s (%d), which the codec does not read: teach scanStep and decodeStep", md.FullName(), fd.Name(), fd.Number())
			}
		}
	}
	check(&enginev1.SessionRequest{}, map[protoreflect.Name]want{"call": {2, protoreflect.MessageKind, false, true, "cad.engine.v1.SessionCall", "frame"}}, false)
	check(&enginev1.SessionCall{}, map[protoreflect.Name]want{"execute_batch": {17, protoreflect.MessageKind, false, true, "cad.engine.v1.ExecuteBatchRequest", "request"}}, false)
	check(&enginev1.ExecuteBatchRequest{}, map[protoreflect.Name]want{"steps": {3, protoreflect.MessageKind, true, false, "cad.engine.v1.BatchStep", ""}}, false)
	check(&enginev1.BatchStep{}, map[protoreflect.Name]want{
		"tool":      {1, protoreflect.StringKind, false, false, "", ""},
		"args":      {2, protoreflect.MessageKind, false, true, "google.protobuf.Struct", ""}, // left to proto.Unmarshal
		"bind":      {3, protoreflect.StringKind, false, true, "", ""},
		"args_json": {4, protoreflect.BytesKind, false, false, "", ""},
	}, true)
}

// BenchmarkCodecUnmarshalBatch: the engine's read of a cad.batch call of
// 100 entity_create_line steps, by the codec and by proto.Unmarshal.
func BenchmarkCodecUnmarshalBatch(b *testing.B) {
	data := marshal(b, batchRequest(100))
	b.Run("codec", func(b *testing.B) {
		c := protocodec.New()
		in := mem.BufferSlice{mem.SliceBuffer(data)}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(in, new(enginev1.SessionRequest)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proto", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := proto.Unmarshal(data, new(enginev1.SessionRequest)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package protocodec_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/protocodec"
)

// wireResult is a SessionResponse answering call id with wire JSON of n
// bytes and the open requests it lists.
func wireResult(id uint64, n int) *enginev1.SessionResponse {
	wire := []byte(`{"events":[` + strings.Repeat(`{"seq":1},`, n/10) + `{}]}`)
	return &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Result{Result: &enginev1.SessionCallResult{
		CallId:       id,
		Response:     &enginev1.SessionCallResult_WireJson{WireJson: wire},
		OpenRequests: []*enginev1.OpenServerRequest{{Id: "srq-1", Method: "approval"}, {Id: "srq-2", Method: "pick.point"}},
	}}}
}

// wireJSON is the wire JSON of a SessionResponse's result, if any.
func wireJSON(m proto.Message) []byte {
	r, _ := m.(*enginev1.SessionResponse)
	return r.GetResult().GetWireJson()
}

// split cuts data into pieces of at most n bytes, as frames arrive.
func split(data []byte, n int) mem.BufferSlice {
	var out mem.BufferSlice
	for len(data) > 0 {
		k := min(n, len(data))
		out = append(out, mem.SliceBuffer(bytes.Clone(data[:k])))
		data = data[k:]
	}
	return out
}

// frames cuts data as it may arrive: a first frame of at most first
// bytes, then frames of 16 KiB. What the codec does depends on the first
// frame only, and on whether there are more; cut into frames of a byte, a
// large input would take the fuzzer's minimizer minutes.
func frames(data []byte, first int) mem.BufferSlice {
	k := min(first, len(data))
	head := split(data[:k], k)
	return append(head, split(data[k:], 16<<10)...)
}

// TestCodecRoundTrip: what the codec marshals, protobuf reads back as the
// message it was (wire JSON of a frame or more passed on, not copied),
// and the codec reads back what protobuf marshals,
// however the bytes are cut into frames: a result with wire JSON large
// enough to be sent as it is, one too small for that, and other messages.
func TestCodecRoundTrip(t *testing.T) {
	c := protocodec.New()
	for _, tc := range []struct {
		name string
		msg  proto.Message
	}{
		{"large wire JSON", wireResult(7, 200<<10)},
		{"large wire JSON, call 0, no open requests", &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Result{Result: &enginev1.SessionCallResult{
			Response: &enginev1.SessionCallResult_WireJson{WireJson: bytes.Repeat([]byte(" "), 20<<10)},
		}}}},
		{"small wire JSON", wireResult(8, 100)},
		{"an event", &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: &enginev1.Event{SessionId: "ses-1", Seq: 3, Type: "batch.progress", PayloadJson: []byte(`{}`)}}}},
		{"a large message", &enginev1.ListDocumentsResponse{Documents: []*enginev1.DocumentInfo{{DocumentId: strings.Repeat("d", 50<<10)}}}},
		{"a call", &enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Call{Call: &enginev1.SessionCall{CallId: 1, WireJson: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := c.Marshal(tc.msg)
			if err != nil {
				t.Fatalf("Marshal = %v", err)
			}
			got := tc.msg.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(data.Materialize(), got); err != nil || !proto.Equal(got, tc.msg) {
				t.Fatalf("proto.Unmarshal(Marshal(m)) = %v, %v; want m", got, err)
			}
			if wire := wireJSON(tc.msg); len(wire) >= 16<<10 {
				last := data[len(data)-1].ReadOnlyData()
				if len(last) != len(wire) || &last[0] != &wire[0] {
					t.Errorf("Marshal copied %d bytes of wire JSON; want them passed on as they are, in the last buffer", len(wire))
				}
			}
			data.Free()

			want, err := proto.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			for _, frame := range []int{1 << 20, 16 << 10, 1000} {
				got := tc.msg.ProtoReflect().New().Interface()
				if err := c.Unmarshal(split(want, frame), got); err != nil || !proto.Equal(got, tc.msg) {
					t.Fatalf("Unmarshal(proto.Marshal(m)) in frames of %d bytes = %v, %v; want m", frame, got, err)
				}
			}
		})
	}
}

// TestCodecRefusesOtherValues: a value that is not a message is an
// error, both ways.
func TestCodecRefusesOtherValues(t *testing.T) {
	c := protocodec.New()
	if _, err := c.Marshal("not a message"); err == nil {
		t.Error("Marshal(a string) = nil error, want one")
	}
	var s string
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer("x")}, &s); err == nil {
		t.Error("Unmarshal(into a string) = nil error, want one")
	}
}

// TestCodecUnmarshalAgrees: on encodings of a SessionResponse a frame or
// more long that are not plainly one result with its wire JSON (another
// response after or before it, the wire JSON twice, more than one frame,
// cut short) or whose open requests are not plain references (params,
// invalid UTF-8, a field twice, none), the codec reads what protobuf
// reads, or fails as it does.
func TestCodecUnmarshalAgrees(t *testing.T) {
	big := wireResult(3, 40<<10)
	plain, err := proto.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := proto.Marshal(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Result{Result: &enginev1.SessionCallResult{
		Response: &enginev1.SessionCallResult_Error{Error: &statuspb.Status{Code: 5, Message: "gone"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	event, err := proto.Marshal(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: &enginev1.Event{SessionId: "ses-1", Seq: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// ref is the encoding of an open request's reference among a
	// result's fields.
	ref := func(o *enginev1.OpenServerRequest) []byte {
		b, err := proto.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, 31, protowire.BytesType), b)
	}
	badID := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("srq-\xff"))
	// inner is the result's fields of an encoding made of one result.
	inner := func(b []byte) []byte {
		_, _, n := protowire.ConsumeTag(b)
		v, _ := protowire.ConsumeBytes(b[n:])
		return v
	}
	result := func(fields ...[]byte) []byte {
		b := protowire.AppendTag(nil, 2, protowire.BytesType)
		return protowire.AppendBytes(b, bytes.Join(fields, nil))
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain", plain},
		{"an error after the wire JSON", result(inner(plain), inner(failed))},
		{"an error before the wire JSON", result(inner(failed), inner(plain))},
		{"the wire JSON twice", result(inner(plain), inner(plain))},
		{"an event after the result", append(bytes.Clone(plain), event...)},
		{"the result twice", append(bytes.Clone(plain), plain...)},
		{"cut short", plain[:len(plain)-1]},
		{"a reference with params", result(inner(plain), ref(&enginev1.OpenServerRequest{Id: "srq-3", ParamsJson: []byte(`{}`)}))},
		{"a reference whose id is not UTF-8", result(inner(plain), protowire.AppendBytes(protowire.AppendTag(nil, 31, protowire.BytesType), badID))},
		{"a reference with its id twice", result(inner(plain), protowire.AppendBytes(protowire.AppendTag(nil, 31, protowire.BytesType), []byte("\x0a\x01a\x0a\x01b\x12\x01m")))},
		{"an empty reference", result(inner(plain), ref(&enginev1.OpenServerRequest{}))},
		{"the call id twice", result(inner(plain), protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 99))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := new(enginev1.SessionResponse)
			werr := proto.Unmarshal(tc.data, want)
			got := new(enginev1.SessionResponse)
			gerr := protocodec.New().Unmarshal(split(tc.data, 16<<10), got)
			if (gerr == nil) != (werr == nil) || werr == nil && !proto.Equal(got, want) {
				t.Errorf("Unmarshal = %v, %v; proto.Unmarshal = %v, %v", got.GetResult().GetResponse() != nil, gerr, want.GetResult().GetResponse() != nil, werr)
			}
		})
	}
}

// TestCodecWireResult: a WireResult marshals as the SessionResponse of
// its result with the wire JSON its Append writes as the response, also
// when that is longer than its Size; an Append that fails fails Marshal.
func TestCodecWireResult(t *testing.T) {
	c := protocodec.New()
	for _, n := range []int{0, 100, 40 << 10, 300 << 10} {
		want := wireResult(9, n)
		wire := want.GetResult().GetWireJson()
		w := &protocodec.WireResult{
			Result: &enginev1.SessionCallResult{CallId: 9, OpenRequests: want.GetResult().GetOpenRequests()},
			Size:   20 << 10,
			Append: func(b []byte) ([]byte, error) { return append(b, wire...), nil },
		}
		data, err := c.Marshal(w)
		if err != nil {
			t.Fatalf("Marshal(a WireResult of %d bytes) = %v", len(wire), err)
		}
		got := new(enginev1.SessionResponse)
		if err := proto.Unmarshal(data.Materialize(), got); err != nil || !proto.Equal(got, want) {
			t.Errorf("proto.Unmarshal(Marshal(a WireResult of %d bytes)) = %v; want the result with its wire JSON", len(wire), err)
		}
		data.Free()
	}
	w := &protocodec.WireResult{Result: &enginev1.SessionCallResult{CallId: 1}, Size: 100, Append: func(b []byte) ([]byte, error) {
		return b, errors.New("cannot encode")
	}}
	if _, err := c.Marshal(w); err == nil {
		t.Error("Marshal(a WireResult whose Append fails) = nil error, want one")
	}
}

// FuzzCodecUnmarshal: on any bytes, the first frame of any size (see
// frames), the codec's Unmarshal of a SessionResponse, and of a
// SessionRequest, fails when proto.Unmarshal does and otherwise reads the
// same message (a result's wire JSON kept in place, a batch's steps read
// by hand, are ways of reading, not different messages).
func FuzzCodecUnmarshal(f *testing.F) {
	bound := batchRequest(3)
	bound.GetCall().GetExecuteBatch().Steps[1].Bind = proto.String("b")
	for _, m := range []proto.Message{
		wireResult(3, 40<<10), wireResult(4, 100),
		&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: &enginev1.Event{SessionId: "ses-1", Seq: 1}}},
		batchRequest(1), batchRequest(20), bound,
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(16<<10))
		f.Add(b[:len(b)/2], uint16(1000))
	}
	line := field(1, []byte(enginev1.ToolEntityCreateLine))
	f.Add(batchOf(nil, step(line, field(4), varint(99, 1)), step(line, field(3, []byte("a")), field(3, []byte("b")))), uint16(16<<10))
	c := protocodec.New() // shared, as a server's: buffers go back to its pool and come out again
	f.Fuzz(func(t *testing.T, data []byte, frame uint16) {
		want := new(enginev1.SessionResponse)
		werr := proto.Unmarshal(data, want)
		got := new(enginev1.SessionResponse)
		gerr := c.Unmarshal(frames(data, int(frame)+1), got)
		if (gerr == nil) != (werr == nil) || werr == nil && !proto.Equal(got, want) {
			t.Fatalf("Unmarshal(%d bytes) = %v, error %v; proto.Unmarshal = %v, error %v", len(data), got, gerr, want, werr)
		}
		rcv := new(protocodec.Received)
		rerr := c.Unmarshal(frames(data, int(frame)+1), rcv)
		if (rerr == nil) != (werr == nil) || werr == nil && !proto.Equal(rcv.Response, want) {
			t.Fatalf("Unmarshal(%d bytes, a Received) = %v, error %v; proto.Unmarshal = %v, error %v", len(data), rcv.Response, rerr, want, werr)
		}
		rcv.Release()
		wantReq := new(enginev1.SessionRequest)
		werr = proto.Unmarshal(data, wantReq)
		gotReq := new(enginev1.SessionRequest)
		gerr = c.Unmarshal(frames(data, int(frame)+1), gotReq)
		if (gerr == nil) != (werr == nil) || werr == nil && !proto.Equal(gotReq, wantReq) {
			t.Fatalf("Unmarshal(%d bytes, a SessionRequest) = %v, error %v; proto.Unmarshal = %v, error %v", len(data), gotReq, gerr, wantReq, werr)
		}
		gs, ws := gotReq.GetCall().GetExecuteBatch().GetSteps(), wantReq.GetCall().GetExecuteBatch().GetSteps()
		for i := range gs {
			if (gs[i].ArgsJson == nil) != (ws[i].ArgsJson == nil) {
				t.Fatalf("Unmarshal(%d bytes, a SessionRequest): step %d's args_json = %q; proto.Unmarshal's %q", len(data), i, gs[i].ArgsJson, ws[i].ArgsJson)
			}
		}
	})
}

// TestCodecReceived: a Received holds a large result's wire JSON in a
// buffer of the codec's pool until Release, which gives it back for the
// next message; anything else it reads as proto.Unmarshal does.
func TestCodecReceived(t *testing.T) {
	c := protocodec.New()
	for _, m := range []*enginev1.SessionResponse{
		wireResult(5, 40<<10),
		wireResult(6, 100),
		{Frame: &enginev1.SessionResponse_Event{Event: &enginev1.Event{SessionId: "ses-1", Seq: 2, PayloadJson: bytes.Repeat([]byte(" "), 20<<10)}}},
	} {
		data, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		rcv := new(protocodec.Received)
		if err := c.Unmarshal(split(data, 16<<10), rcv); err != nil || !proto.Equal(rcv.Response, m) {
			t.Fatalf("Unmarshal(a Received) = %v, %v; want the message", rcv.Response, err)
		}
		rcv.Release()
		rcv.Release() // idempotent
	}
	// The buffer given back may serve the next message of its size, which
	// reads as it was sent.
	m := wireResult(7, 40<<10)
	data, _ := proto.Marshal(m)
	first := new(protocodec.Received)
	if err := c.Unmarshal(split(data, 16<<10), first); err != nil {
		t.Fatal(err)
	}
	first.Release()
	second := new(protocodec.Received)
	if err := c.Unmarshal(split(data, 16<<10), second); err != nil || !proto.Equal(second.Response, m) {
		t.Fatalf("Unmarshal(a Received, again) = %v; want the message", err)
	}
	second.Release()
}

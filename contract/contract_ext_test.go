package contract_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

func TestMarshalWireShape(t *testing.T) {
	resp := &enginev1.ExecuteBatchResponse{
		Ok:     false,
		Status: enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK,
		Results: []*enginev1.StepResult{{
			I: 2, Tool: "entity_move", Status: enginev1.StepStatus_STEP_STATUS_ERROR, OperationId: "op-1.2",
			Error: &enginev1.ToolError{Kind: enginev1.ErrorKind_ERROR_KIND_STALE_REVISION, Message: "moved", CurrentRevision: proto.Int64(9007199254740993)},
		}},
	}
	got, err := contract.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"status":"rolled_back"`,
		`"kind":"stale_revision"`,
		`"current_revision":9007199254740993`,                          // int64 as a number, exactly
		`"counts":{"executed":0,"succeeded":0,"failed":0,"skipped":0}`, // required message written even when unset
		`"ok":false`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("Marshal = %s, want it to contain %s", got, want)
		}
	}
	if strings.Contains(string(got), `"preview"`) || strings.Contains(string(got), `"bindings"`) {
		t.Errorf("Marshal = %s, want unset optional fields and empty maps left out", got)
	}
}

func TestRoundTrip(t *testing.T) {
	in := &enginev1.ExecuteBatchRequest{
		DocumentId:       "doc-1",
		Steps:            []*enginev1.BatchStep{{Tool: "entity_create_line", ArgsJson: []byte(`{"x1":1.5,"name":"a/b~c"}`), Bind: proto.String("edge")}},
		OnError:          enginev1.OnError_ON_ERROR_ROLLBACK.Enum(),
		Preconditions:    []*enginev1.Precondition{{Handle: "1F", Fingerprint: "ab"}},
		ExpectedRevision: proto.Int64(3),
	}
	data, err := contract.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := new(enginev1.ExecuteBatchRequest)
	if err := contract.Unmarshal(data, out); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", data, err)
	}
	if !proto.Equal(in, out) {
		t.Errorf("round trip = %v, want %v", out, in)
	}
}

func TestDecodeViolations(t *testing.T) {
	tests := []struct {
		json   string
		path   string
		reason contract.Reason
	}{
		{`{"document_id":"d","steps":[],"bogus":1}`, "/bogus", contract.ReasonUnknownField},
		{`{"steps":[]}`, "/document_id", contract.ReasonMissing},
		{`{"document_id":7,"steps":[]}`, "/document_id", contract.ReasonWrongType},
		{`{"document_id":"d","steps":[{"tool":"t","argz":{}}]}`, "/steps/0/argz", contract.ReasonUnknownField},
		{`{"document_id":"d","steps":[],"on_error":"explode"}`, "/on_error", contract.ReasonInvalid},
		{`{"document_id":"d","steps":[],"expected_revision":1.5}`, "/expected_revision", contract.ReasonWrongType},
		{`{"document_id":"d","steps":[],"expected_revision":1e400}`, "/expected_revision", contract.ReasonOutOfRange},
		{`{"document_id":"d","steps":"no"}`, "/steps", contract.ReasonWrongType},
	}
	for _, tc := range tests {
		err := contract.Unmarshal([]byte(tc.json), new(enginev1.ExecuteBatchRequest))
		v, ok := err.(*contract.Violation)
		if !ok || v.Path != tc.path || v.Reason != tc.reason {
			t.Errorf("Unmarshal(%s) = %v, want %s at %s", tc.json, err, contract.ReasonName(tc.reason), tc.path)
		}
	}
}

func TestSchemaValidate(t *testing.T) {
	var schema string
	for _, tool := range enginev1.Tools {
		if tool.Name == enginev1.ToolEntityCreateCircle {
			schema = tool.InputSchema
		}
	}
	s, err := contract.CompileSchema("circle", schema)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		json   string
		path   string
		reason contract.Reason
	}{
		{`{"cx":0,"cy":0,"radius":1}`, "", 0},
		{`{"cx":0,"cy":0,"radius":0}`, "/radius", contract.ReasonOutOfRange},
		{`{"cx":0,"cy":0}`, "/radius", contract.ReasonMissing},
		{`{"cx":"0","cy":0,"radius":1}`, "/cx", contract.ReasonWrongType},
		{`{"cx":0,"cy":0,"radius":1,"extra":true}`, "/extra", contract.ReasonUnknownField},
		{`{"cx":0,"cy":0,"radius":1,"color":300}`, "/color", contract.ReasonOutOfRange},
	}
	for _, tc := range tests {
		v, err := contract.ParseJSON([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		got := s.Validate(v)
		if tc.reason == 0 {
			if got != nil {
				t.Errorf("Validate(%s) = %v, want nil", tc.json, got)
			}
			continue
		}
		if got == nil || got.Path != tc.path || got.Reason != tc.reason {
			t.Errorf("Validate(%s) = %v, want %s at %s", tc.json, got, contract.ReasonName(tc.reason), tc.path)
		}
	}
}

// TestSchemaValueDomains checks the value domains of the generated
// schemas: a linetype matches its names ignoring case, a lineweight is one
// of its integers, and a value outside the domain is invalid at the
// field's path, as the engine reports it — while a number outside the
// field's bounds is still out_of_range and a wrong type wrong_type.
func TestSchemaValueDomains(t *testing.T) {
	schemas := map[string]*contract.Schema{}
	for _, tool := range enginev1.Tools {
		schemas[tool.Name] = contract.MustCompileSchema(tool.Name, tool.InputSchema)
	}
	tests := []struct {
		tool, json string
		path       string
		reason     contract.Reason
		message    string // a part of the violation's message
	}{
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":"ByLayer"}`, "", 0, ""},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":"bylayer"}`, "", 0, ""},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":"DashDot"}`, "", 0, ""},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":"wiggly"}`, "/linetype", contract.ReasonInvalid, `"wiggly" is not one of ByLayer, ByBlock, Continuous`},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":"dashedx"}`, "/linetype", contract.ReasonInvalid, "DASHED"},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":""}`, "/linetype", contract.ReasonInvalid, ""},
		{enginev1.ToolEntityCreatePoint, `{"x":0,"y":0,"linetype":7}`, "/linetype", contract.ReasonWrongType, ""},
		{enginev1.ToolEntityBatchCreate, `{"entities":[{"type":"point","x":0,"y":0},{"type":"point","x":0,"y":0,"linetype":"x"}]}`, "/entities/1/linetype", contract.ReasonInvalid, ""},
		{enginev1.ToolEntitySetProperties, `{"handle":"1F","linetype":"byblock"}`, "", 0, ""},
		{enginev1.ToolLayerCreate, `{"name":"a","linetype":"continuous","lineweight":-3}`, "", 0, ""},
		{enginev1.ToolLayerCreate, `{"name":"a","lineweight":211}`, "", 0, ""},
		{enginev1.ToolLayerCreate, `{"name":"a","linetype":"ByLayer"}`, "/linetype", contract.ReasonInvalid, "Continuous, DASHED"},
		{enginev1.ToolLayerModify, `{"name":"a","linetype":"ByBlock"}`, "/linetype", contract.ReasonInvalid, ""},
		{enginev1.ToolLayerCreate, `{"name":"a","lineweight":7}`, "/lineweight", contract.ReasonInvalid, "-3, 0, 5"},
		{enginev1.ToolLayerModify, `{"name":"a","lineweight":212}`, "/lineweight", contract.ReasonOutOfRange, ""},
		{enginev1.ToolLayerModify, `{"name":"a","lineweight":-4}`, "/lineweight", contract.ReasonOutOfRange, ""},
		{enginev1.ToolLayerModify, `{"name":"a","lineweight":1.5}`, "/lineweight", contract.ReasonWrongType, ""},
	}
	for _, tc := range tests {
		v, err := contract.ParseJSON([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		got := schemas[tc.tool].Validate(v)
		if tc.reason == 0 {
			if got != nil {
				t.Errorf("%s: Validate(%s) = %v, want nil", tc.tool, tc.json, got)
			}
			continue
		}
		if got == nil || got.Path != tc.path || got.Reason != tc.reason || !strings.Contains(got.Message, tc.message) {
			t.Errorf("%s: Validate(%s) = %v, want %s at %s with a message containing %q", tc.tool, tc.json, got, contract.ReasonName(tc.reason), tc.path, tc.message)
		}
	}
}

// FuzzUnmarshal: the strict decoder never panics, and whatever it accepts
// encodes and decodes back to the same message.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(`{"document_id":"d","steps":[{"tool":"t","args":{"x":1}}],"on_error":"rollback"}`))
	f.Add([]byte(`{"document_id":"d","steps":[],"preconditions":[{"handle":"1F","fingerprint":"x"}],"expected_revision":3}`))
	f.Add([]byte(`{"document_id":"\u0000","steps":[{"tool":"","bind":"a","args":{"a":[1,{"b":null}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := new(enginev1.ExecuteBatchRequest)
		if err := contract.Unmarshal(data, m); err != nil {
			return
		}
		enc, err := contract.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%v) = %v", m, err)
		}
		back := new(enginev1.ExecuteBatchRequest)
		if err := contract.Unmarshal(enc, back); err != nil {
			t.Fatalf("Unmarshal(Marshal(x)) = %v for %s", err, enc)
		}
		if !proto.Equal(m, back) {
			t.Fatalf("round trip changed %v into %v", m, back)
		}
	})
}

func TestParseJSONDuplicateKey(t *testing.T) {
	_, err := contract.ParseJSON([]byte(`{"a":{"b":1,"b":2}}`))
	v, ok := err.(*contract.Violation)
	if !ok || v.Path != "/a/b" || v.Reason != contract.ReasonInvalid {
		t.Errorf("ParseJSON with a duplicate key = %v, want invalid at /a/b", err)
	}
	if _, err := contract.ParseJSON([]byte(`{"a":1} {"b":2}`)); err == nil {
		t.Errorf("ParseJSON with trailing data = nil error, want one")
	}
}

// TestMarshalStringsAndStructs: strings are escaped as JSON (not as Go) and
// Structs come out as plain JSON with sorted keys; both parse back.
func TestMarshalStringsAndStructs(t *testing.T) {
	payload, err := structpb.NewStruct(map[string]any{"z": "a\"b\\c\n\t\x01é<>&", "a": []any{1.5, true, nil, map[string]any{"k": "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := &gatewayv1.RpcDiscoverMethod{Params: &gatewayv1.DiscoverParams{}, Result: payload}
	got, err := contract.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"params":{},"result":{"a":[1.5,true,null,{"k":"v"}],"z":"a\"b\\c\n\t\u0001é<>&"}}`
	if string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	back := new(gatewayv1.RpcDiscoverMethod)
	if err := contract.Unmarshal(got, back); err != nil {
		t.Fatalf("Unmarshal(Marshal(x)) = %v", err)
	}
	if !proto.Equal(back.Result, payload) {
		t.Errorf("result round trip = %v, want %v", back.Result, payload)
	}
	ev := &enginev1.Event{SessionId: "s\xff", Seq: 1, Type: "t"}
	if got, err := contract.Marshal(ev); err != nil || string(got) != `{"session_id":"s\ufffd","seq":1,"type":"t","payload":{}}` {
		t.Errorf("Marshal(event without payload) = %s, %v; want an empty payload object", got, err)
	}
}

// TestRawFields: a raw field (cad.engine.v1.json raw) is on the wire as the
// JSON its bytes hold, under its key; a hidden field is not on the wire.
func TestRawFields(t *testing.T) {
	payload, _ := structpb.NewStruct(map[string]any{"old": true})
	ev := &enginev1.Event{SessionId: "s", Seq: 2, Type: gatewayv1.EventBatchProgress, Payload: payload,
		PayloadJson: []byte(`{"operation_id":"op-1","step":1,"total":3}`)}
	got, err := contract.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"s","seq":2,"type":"batch.progress","payload":{"operation_id":"op-1","step":1,"total":3}}`
	if string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	back := new(enginev1.Event)
	if err := contract.Unmarshal(got, back); err != nil {
		t.Fatalf("Unmarshal(Marshal(x)) = %v", err)
	}
	var p enginev1.BatchProgressPayload
	if err := contract.Unmarshal(back.PayloadJson, &p); err != nil || p.GetStep() != 1 || p.GetTotal() != 3 || back.Payload != nil {
		t.Errorf("payload round trip = %s (%v), Struct %v; want the object, no Struct", back.PayloadJson, err, back.Payload)
	}
	for _, bad := range []string{
		`{"session_id":"s","seq":2,"type":"t","payload":[1]}`,
		`{"session_id":"s","seq":2,"type":"t","payload":"x"}`,
		`{"session_id":"s","seq":2,"type":"t","payload":{},"payload_json":"e30="}`,
	} {
		if err := contract.Unmarshal([]byte(bad), new(enginev1.Event)); err == nil {
			t.Errorf("Unmarshal(%s) = nil, want a violation", bad)
		}
	}
}

// TestToStructMatchesMarshal: ToStruct builds exactly the JSON Marshal
// writes.
func TestToStructMatchesMarshal(t *testing.T) {
	payload, _ := structpb.NewStruct(map[string]any{"k": []any{1.0, "x", nil}})
	msgs := []proto.Message{
		&enginev1.ExecuteBatchResponse{Status: enginev1.BatchStatus_BATCH_STATUS_FAILED, Bindings: map[string]string{"b": "1F", "a": "20"},
			Results:  []*enginev1.StepResult{{I: 1, Tool: "t", Status: enginev1.StepStatus_STEP_STATUS_OK, ResultJson: []byte(`{"handle":"1F","n":[1,2]}`), Handle: proto.String("1F")}},
			Revision: &enginev1.RevisionReport{Checked: 3, After: 5, Interleaved: []string{"op-a"}}},
		&enginev1.Event{SessionId: "s\xff", Seq: 7, Type: gatewayv1.EventBatchProgress, PayloadJson: []byte(`{"k":[1,"x",null]}`)},
		&gatewayv1.RpcDiscoverMethod{Result: payload},
		&enginev1.Entity{Handle: "1F", Type: enginev1.EntityType_ENTITY_TYPE_POLYLINE, Points: []*enginev1.Vertex{{X: 1, Y: 2, Bulge: proto.Float64(0.5)}}, Closed: proto.Bool(true)},
	}
	for _, m := range msgs {
		direct, err := contract.ToStruct(m)
		if err != nil {
			t.Fatal(err)
		}
		data, err := contract.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		viaJSON := new(structpb.Struct)
		if err := protojson.Unmarshal(data, viaJSON); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(direct, viaJSON) {
			t.Errorf("ToStruct(%T) = %v, want %v", m, direct, viaJSON)
		}
	}
}

package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/stacktest"
)

// rpcAnswer is a JSON-RPC response, its result and error data still wire
// JSON for contract.Unmarshal.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64           `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

// postRPC sends one call to the gateway's POST /rpc.
func postRPC(t *testing.T, st *stacktest.Stack, method string, params any) rpcAnswer {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+st.Gateway+"/rpc", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("%s: decode answer: %v", method, err)
	}
	return a
}

// result decodes the answer's result into m; false if there is none.
func (a rpcAnswer) result(m proto.Message) bool {
	return a.Error == nil && contract.Unmarshal(a.Result, m) == nil
}

// newDocument creates a document and returns its id.
func newDocument(t *testing.T, st *stacktest.Stack) string {
	t.Helper()
	doc := new(enginev1.DocumentInfo)
	if a := postRPC(t, st, gatewayv1.MethodDocumentCreate, map[string]any{}); !a.result(doc) {
		t.Fatalf("document.create = %s, want document info", a.Result)
	}
	return doc.GetDocumentId()
}

func domain(t *testing.T, d enginev1.ValueDomain) enginev1.DomainInfo {
	t.Helper()
	info, ok := enginev1.LookupDomain(d)
	if !ok {
		t.Fatalf("LookupDomain(%s) = false, want its members", d)
	}
	return info
}

// TestValueDomainsAgreeWithEngine checks that the engine takes every member
// of the linetype and lineweight domains the schemas declare, in any case,
// so that the schemas never refuse what the engine would accept.
func TestValueDomainsAgreeWithEngine(t *testing.T) {
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true})
	docID := newDocument(t, st)
	call := func(tool string, args map[string]any) {
		t.Helper()
		a := postRPC(t, st, gatewayv1.MethodToolsCall, map[string]any{"document_id": docID, "tool": tool, "args": args})
		r := new(enginev1.CallToolResponse)
		if !a.result(r) || !r.GetOk() {
			t.Errorf("%s(%v) = %s (error %+v), want ok", tool, args, a.Result, a.Error)
		}
	}
	for i, name := range domain(t, enginev1.ValueDomain_VALUE_DOMAIN_ENTITY_LINETYPE).Names {
		call(enginev1.ToolEntityCreatePoint, map[string]any{"x": i, "y": 0, "linetype": name})
		call(enginev1.ToolEntityCreatePoint, map[string]any{"x": i, "y": 1, "linetype": strings.ToLower(name)})
	}
	for i, name := range domain(t, enginev1.ValueDomain_VALUE_DOMAIN_LAYER_LINETYPE).Names {
		call(enginev1.ToolLayerCreate, map[string]any{"name": fmt.Sprintf("lt%d", i), "linetype": strings.ToUpper(name)})
	}
	for i, w := range domain(t, enginev1.ValueDomain_VALUE_DOMAIN_LINEWEIGHT).Integers {
		call(enginev1.ToolLayerCreate, map[string]any{"name": fmt.Sprintf("lw%d", i), "lineweight": w})
	}
}

// TestValueDomainRefusals checks that a linetype or lineweight outside its
// domain is refused with the path and reason the engine gives it, before
// anything runs: a 4000 with a pointer into params for tools.call, a
// refused step for cad.batch.
func TestValueDomainRefusals(t *testing.T) {
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true})
	docID := newDocument(t, st)
	tests := []struct {
		tool   string
		args   map[string]any
		path   string
		reason contract.Reason
	}{
		{enginev1.ToolEntityCreateLine, map[string]any{"x1": 0, "y1": 0, "x2": 1, "y2": 0, "linetype": "wiggly"}, "/linetype", contract.ReasonInvalid},
		{enginev1.ToolEntityBatchCreate, map[string]any{"entities": []any{map[string]any{"type": "point", "x": 0, "y": 0, "linetype": "dotted"}}}, "/entities/0/linetype", contract.ReasonInvalid},
		{enginev1.ToolLayerCreate, map[string]any{"name": "a", "linetype": "ByLayer"}, "/linetype", contract.ReasonInvalid},
		{enginev1.ToolLayerCreate, map[string]any{"name": "a", "lineweight": 7}, "/lineweight", contract.ReasonInvalid},
		{enginev1.ToolLayerCreate, map[string]any{"name": "a", "lineweight": 300}, "/lineweight", contract.ReasonOutOfRange},
		{enginev1.ToolLayerModify, map[string]any{"name": "0", "linetype": "byblock"}, "/linetype", contract.ReasonInvalid},
	}
	for _, tc := range tests {
		a := postRPC(t, st, gatewayv1.MethodToolsCall, map[string]any{"document_id": docID, "tool": tc.tool, "args": tc.args})
		data := new(gatewayv1.InvalidParamsData)
		if a.Error == nil || a.Error.Code != int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS) || contract.Unmarshal(a.Error.Data, data) != nil ||
			data.GetPath() != "/args"+tc.path || data.GetReason() != tc.reason {
			t.Errorf("tools.call %s(%v) = %s (error %+v), want 4000 %s at /args%s", tc.tool, tc.args, a.Result, a.Error, contract.ReasonName(tc.reason), tc.path)
		}
		a = postRPC(t, st, gatewayv1.MethodCadBatch, map[string]any{"document_id": docID, "steps": []any{
			map[string]any{"tool": enginev1.ToolEntityCreatePoint, "args": map[string]any{"x": 0, "y": 0}},
			map[string]any{"tool": tc.tool, "args": tc.args},
		}})
		r := new(enginev1.ExecuteBatchResponse)
		if !a.result(r) || r.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_REFUSED || r.GetError().GetKind() != enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS ||
			r.GetError().GetStep() != 1 || r.GetError().GetPath() != tc.path || r.GetError().GetReason() != tc.reason {
			t.Errorf("cad.batch with step %s(%v) = %s (error %+v), want refused at step 1: invalid_args %s at %s", tc.tool, tc.args, a.Result, a.Error, contract.ReasonName(tc.reason), tc.path)
		}
	}
}

package gateway

import (
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// TestJSONRPCWordsMatchProtos checks that the words bridge/jsonrpc keeps of
// its own (it imports the standard library only, so not the generated
// code) are the ones the protos declare. CodeInvalidParams (-32602) has no
// counterpart: the gateway answers invalid params with 4000.
func TestJSONRPCWordsMatchProtos(t *testing.T) {
	codes := []struct {
		name   string
		bridge int64
		proto  gatewayv1.ErrorCode
	}{
		{"CodeParseError", jsonrpc.CodeParseError, gatewayv1.ErrorCode_ERROR_CODE_PARSE_ERROR},
		{"CodeInvalidRequest", jsonrpc.CodeInvalidRequest, gatewayv1.ErrorCode_ERROR_CODE_INVALID_REQUEST},
		{"CodeMethodNotFound", jsonrpc.CodeMethodNotFound, gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND},
		{"CodeInternalError", jsonrpc.CodeInternalError, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
		{"CodeRequestCancelled", jsonrpc.CodeRequestCancelled, gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED},
	}
	for _, c := range codes {
		if c.bridge != int64(c.proto) {
			t.Errorf("jsonrpc.%s = %d, want %d (gatewayv1.%s)", c.name, c.bridge, c.proto, c.proto)
		}
	}
	if jsonrpc.MethodCancelRequest != gatewayv1.MethodCancelRequest {
		t.Errorf("jsonrpc.MethodCancelRequest = %q, want %q (gatewayv1.MethodCancelRequest)", jsonrpc.MethodCancelRequest, gatewayv1.MethodCancelRequest)
	}
}

package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

func statusWith(code codes.Code, reason enginev1.ErrorReason, meta map[string]string) error {
	s := status.New(code, "engine says no")
	if reason != enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED {
		s, _ = s.WithDetails(&errdetails.ErrorInfo{Reason: reason.String(), Metadata: meta})
	}
	return s.Err()
}

// TestErrorTable walks every rule of errorTable: an engine error with that
// code and reason becomes that JSON-RPC code.
func TestErrorTable(t *testing.T) {
	for _, rule := range errorTable {
		t.Run(fmt.Sprintf("%s/%s", rule.code, rule.reason), func(t *testing.T) {
			got := rpcError(statusWith(rule.code, rule.reason, nil), "op-1")
			if got.Code != int64(rule.rpc) {
				t.Errorf("rpcError(%s, %s).Code = %d, want %d (%s)", rule.code, rule.reason, got.Code, rule.rpc, rule.rpc)
			}
		})
	}
}

func TestErrorData(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code gatewayv1.ErrorCode
		data string
	}{
		{"invalid params carry path and reason",
			statusWith(codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, map[string]string{"path": "/steps/3/args/radius", "reason": "out_of_range"}),
			gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS, `{"path":"/steps/3/args/radius","reason":"out_of_range"}`},
		{"unavailable carries the operation id",
			status.Error(codes.Unavailable, "connection refused"),
			gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE, `{"operation_id":"op-1"}`},
		{"a broken stream is 5003 too",
			fmt.Errorf("%w: stream reset", errEngineUnavailable),
			gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE, `{"operation_id":"op-1"}`},
		{"overload carries retry_after_ms",
			statusWith(codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_OVERLOADED, map[string]string{"retry_after_ms": "250"}),
			gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED, `{"retry_after_ms":250}`},
		{"session not found", statusWith(codes.NotFound, enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, nil),
			gatewayv1.ErrorCode_ERROR_CODE_SESSION_NOT_FOUND, ``},
		{"document not found", statusWith(codes.NotFound, enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, nil),
			gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND, ``},
		{"anything else is internal", errors.New("boom"),
			gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rpcError(tc.err, "op-1")
			if got.Code != int64(tc.code) {
				t.Errorf("rpcError(%v).Code = %d, want %d", tc.err, got.Code, tc.code)
			}
			if tc.data != "" {
				var gotData, wantData any
				json.Unmarshal(got.Data, &gotData)
				json.Unmarshal([]byte(tc.data), &wantData)
				g, _ := json.Marshal(gotData)
				w, _ := json.Marshal(wantData)
				if string(g) != string(w) {
					t.Errorf("rpcError(%v).Data = %s, want %s", tc.err, got.Data, tc.data)
				}
			}
		})
	}
}

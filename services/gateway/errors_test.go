package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
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

// TestEveryReasonMapsAsDeclared walks every value of the ErrorReason enum
// (not of the table): each but UNSPECIFIED is declared in
// enginev1.Reasons, and a status of its declared gRPC code that names it
// becomes its declared JSON-RPC code, a value of gatewayv1.ErrorCode.
func TestEveryReasonMapsAsDeclared(t *testing.T) {
	values := enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED.Descriptor().Values()
	for i := 0; i < values.Len(); i++ {
		reason := enginev1.ErrorReason(values.Get(i).Number())
		if reason == enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED {
			continue
		}
		info, ok := enginev1.LookupReason(reason)
		if !ok {
			t.Errorf("LookupReason(%s) = false, want its codes", reason)
			continue
		}
		if _, ok := gatewayv1.ErrorCode_name[info.JSONRPCCode]; !ok {
			t.Errorf("LookupReason(%s).JSONRPCCode = %d, want a gatewayv1.ErrorCode", reason, info.JSONRPCCode)
		}
		if got := rpcError(statusWith(info.GRPCCode, reason, nil), "op-1"); got.Code != int64(info.JSONRPCCode) {
			t.Errorf("rpcError(%s, %s).Code = %d, want %d (%s)", info.GRPCCode, reason, got.Code, info.JSONRPCCode, gatewayv1.ErrorCode(info.JSONRPCCode))
		}
	}
}

// TestStatusesWithoutReason walks every gRPC error code as a status
// without ErrorInfo — as gRPC itself, a context error or the engine's
// stream checks make it: it becomes the JSON-RPC code of its code's
// default reason, and -32603 when the code has none.
func TestStatusesWithoutReason(t *testing.T) {
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		want := int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR)
		if info, ok := enginev1.DefaultReason(c); ok {
			want = int64(info.JSONRPCCode)
		}
		if got := rpcError(status.Error(c, "grpc says no"), "op-1"); got.Code != want {
			t.Errorf("rpcError(%s without reason).Code = %d, want %d", c, got.Code, want)
		}
	}
}

// TestErrorCodes pins the JSON-RPC codes of DESIGN §4 for the statuses the
// engine and gRPC return, whatever the protos declare: the table is the
// one place they are written, and this is what it must say.
func TestErrorCodes(t *testing.T) {
	tests := []struct {
		code   codes.Code
		reason enginev1.ErrorReason // UNSPECIFIED: no ErrorInfo
		want   gatewayv1.ErrorCode
	}{
		{codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS},
		{codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS},
		{codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS},
		{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_SESSION_NOT_FOUND},
		{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_OPERATION_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{codes.FailedPrecondition, enginev1.ErrorReason_ERROR_REASON_SESSION_REQUIRED, gatewayv1.ErrorCode_ERROR_CODE_SESSION_REQUIRED},
		{codes.FailedPrecondition, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
		{codes.PermissionDenied, enginev1.ErrorReason_ERROR_REASON_FORBIDDEN, gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN},
		{codes.PermissionDenied, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN},
		{codes.Unauthenticated, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN},
		{codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_OVERLOADED, gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED},
		{codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED},
		{codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_TOO_LARGE, gatewayv1.ErrorCode_ERROR_CODE_MESSAGE_TOO_LARGE},
		{codes.Unavailable, enginev1.ErrorReason_ERROR_REASON_SHUTTING_DOWN, gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE},
		{codes.Unavailable, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE},
		{codes.Canceled, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED},
		{codes.Unimplemented, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND},
		{codes.DeadlineExceeded, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
		{codes.Internal, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
		{codes.Unknown, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
		{codes.Aborted, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR},
	}
	for _, tc := range tests {
		if got := rpcError(statusWith(tc.code, tc.reason, nil), "op-1"); got.Code != int64(tc.want) {
			t.Errorf("rpcError(%s, %s).Code = %d, want %d (%s)", tc.code, tc.reason, got.Code, tc.want, tc.want)
		}
	}
}

// TestAnswerStatus checks what a client's error answer to a server
// request tells the engine: -32601 is Unimplemented (the engine's
// unsupported), anything else Unknown.
func TestAnswerStatus(t *testing.T) {
	tests := []struct {
		code int64
		want codes.Code
	}{
		{int64(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND), codes.Unimplemented},
		{int64(gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED), codes.Unknown},
		{int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS), codes.Unknown},
		{1, codes.Unknown},
	}
	for _, tc := range tests {
		if got := answerStatus(jsonrpc.NewError(tc.code, "no")).Code(); got != tc.want {
			t.Errorf("answerStatus(%d).Code() = %s, want %s", tc.code, got, tc.want)
		}
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
		{"work past the expansion budget carries needed and limit",
			statusWith(codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_TOO_LARGE, map[string]string{"needed": "10000000000", "limit": "10000000"}),
			gatewayv1.ErrorCode_ERROR_CODE_MESSAGE_TOO_LARGE, `{"limit":10000000,"needed":10000000000}`},
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

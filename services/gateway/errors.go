package gateway

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// errorRule maps a gRPC code, and an ErrorReason when one is named, to a
// JSON-RPC error code.
type errorRule struct {
	code   codes.Code
	reason enginev1.ErrorReason // ERROR_REASON_UNSPECIFIED matches any reason
	rpc    gatewayv1.ErrorCode
}

// errorTable is the one mapping from engine errors to the JSON-RPC error
// codes of DESIGN §4; the first matching rule wins.
var errorTable = []errorRule{
	{codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS},
	{codes.InvalidArgument, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS},
	{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, gatewayv1.ErrorCode_ERROR_CODE_SESSION_NOT_FOUND},
	{codes.NotFound, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_NOT_FOUND},
	{codes.FailedPrecondition, enginev1.ErrorReason_ERROR_REASON_SESSION_REQUIRED, gatewayv1.ErrorCode_ERROR_CODE_SESSION_REQUIRED},
	{codes.PermissionDenied, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN},
	{codes.Unauthenticated, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_FORBIDDEN},
	{codes.ResourceExhausted, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED},
	{codes.Unavailable, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE},
	{codes.Canceled, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED},
	{codes.Unimplemented, enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED, gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND},
}

// errEngineUnavailable marks a call whose stream to the engine broke or
// could not be opened; its outcome is unknown if it was sent.
var errEngineUnavailable = errors.New("engine unavailable")

// rpcError converts any error of a call into the JSON-RPC error the client
// gets. operationID is the call's operation id, for 5003.
func rpcError(err error, operationID string) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	var v *contract.Violation
	if errors.As(err, &v) {
		return invalidParams(v)
	}
	if errors.Is(err, errEngineUnavailable) {
		return unavailable(err.Error(), operationID)
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_REQUEST_CANCELLED), "request cancelled")
	}
	s, ok := status.FromError(err)
	if !ok {
		return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), err.Error())
	}
	return statusError(s, operationID)
}

func statusError(s *status.Status, operationID string) *jsonrpc.Error {
	info := errorInfo(s)
	reason := enginev1.ErrorReason(enginev1.ErrorReason_value[info.GetReason()])
	for _, rule := range errorTable {
		if rule.code != s.Code() || (rule.reason != enginev1.ErrorReason_ERROR_REASON_UNSPECIFIED && rule.reason != reason) {
			continue
		}
		switch rule.rpc {
		case gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS:
			meta := info.GetMetadata()
			return invalidParams(&contract.Violation{Path: meta["path"], Reason: contract.ReasonByName(meta["reason"]), Message: s.Message()})
		case gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE:
			return unavailable(s.Message(), operationID)
		case gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED:
			ms, _ := strconv.ParseInt(info.GetMetadata()["retry_after_ms"], 10, 64)
			return jsonrpc.NewError(int64(rule.rpc), s.Message()).WithData(map[string]any{"retry_after_ms": ms})
		default:
			return jsonrpc.NewError(int64(rule.rpc), s.Message())
		}
	}
	return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), s.Message())
}

func errorInfo(s *status.Status) *errdetails.ErrorInfo {
	for _, d := range s.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

func invalidParams(v *contract.Violation) *jsonrpc.Error {
	return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS), "invalid params: "+v.Message).
		WithData(map[string]any{"path": v.Path, "reason": contract.ReasonName(v.Reason)})
}

func unavailable(msg, operationID string) *jsonrpc.Error {
	data := map[string]any{}
	if operationID != "" {
		data["operation_id"] = operationID
	}
	return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE), "engine unavailable; reconcile with operations.get: "+msg).WithData(data)
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND), "method not found: "+method)
}

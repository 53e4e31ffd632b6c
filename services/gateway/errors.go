package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

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
		return statusError(status.New(codes.Canceled, "request cancelled"), operationID)
	}
	s, ok := status.FromError(err)
	if !ok {
		return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), err.Error())
	}
	return statusError(s, operationID)
}

// statusError converts a gRPC status into a JSON-RPC error by the reason
// table declared in the protos (enginev1.Reasons): the status means the
// reason its ErrorInfo names if that reason is declared with the status's
// code, else the default reason of its code; a status with neither is an
// internal error. The JSON-RPC code then chooses the error's data.
func statusError(s *status.Status, operationID string) *jsonrpc.Error {
	info := errorInfo(s)
	r, ok := reasonOf(s.Code(), info)
	if !ok {
		return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INTERNAL_ERROR), s.Message())
	}
	switch code := gatewayv1.ErrorCode(r.JSONRPCCode); code {
	case gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS:
		meta := info.GetMetadata()
		return invalidParams(&contract.Violation{Path: meta["path"], Reason: contract.ReasonByName(meta["reason"]), Message: s.Message()})
	case gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE:
		return unavailable(s.Message(), operationID)
	case gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED:
		ms, _ := strconv.ParseInt(info.GetMetadata()["retry_after_ms"], 10, 64)
		return overloaded(s.Message(), ms)
	case gatewayv1.ErrorCode_ERROR_CODE_MESSAGE_TOO_LARGE:
		// The engine's TOO_LARGE: work past its expansion budget.
		limit, _ := strconv.ParseInt(info.GetMetadata()["limit"], 10, 64)
		needed, _ := strconv.ParseInt(info.GetMetadata()["needed"], 10, 64)
		return withData(jsonrpc.NewError(int64(code), s.Message()), &gatewayv1.MessageTooLargeData{Limit: limit, Needed: &needed})
	default:
		return jsonrpc.NewError(int64(code), s.Message())
	}
}

// reasonOf is the reason a status of code c with ErrorInfo info (nil when
// it has none) means; ok is false when it means none.
func reasonOf(c codes.Code, info *errdetails.ErrorInfo) (enginev1.ReasonInfo, bool) {
	named := enginev1.ErrorReason(enginev1.ErrorReason_value[info.GetReason()])
	if r, ok := enginev1.LookupReason(named); ok && r.GRPCCode == c {
		return r, true
	}
	return enginev1.DefaultReason(c)
}

// answerStatus is what a client's error answer to a server request tells
// the engine: -32601, the client does not implement the method, becomes
// the gRPC code of ERROR_REASON_UNIMPLEMENTED, which the engine reads as
// unsupported; any other error is Unknown.
func answerStatus(e *jsonrpc.Error) *status.Status {
	c := codes.Unknown
	if r, ok := enginev1.LookupReason(enginev1.ErrorReason_ERROR_REASON_UNIMPLEMENTED); ok && e.Code == int64(r.JSONRPCCode) {
		c = r.GRPCCode
	}
	return status.New(c, e.Message)
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
	return withData(jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS), "invalid params: "+v.Message),
		&gatewayv1.InvalidParamsData{Path: v.Path, Reason: v.Reason})
}

func unavailable(msg, operationID string) *jsonrpc.Error {
	data := &gatewayv1.EngineUnavailableData{}
	if operationID != "" {
		data.OperationId = &operationID
	}
	return withData(jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE), "engine unavailable; reconcile with operations.get: "+msg), data)
}

func overloaded(msg string, retryAfterMs int64) *jsonrpc.Error {
	return withData(jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_OVERLOADED), msg), &gatewayv1.OverloadedData{RetryAfterMs: retryAfterMs})
}

func messageTooLarge(limit int64) *jsonrpc.Error {
	return withData(jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_MESSAGE_TOO_LARGE), "message too large"), &gatewayv1.MessageTooLargeData{Limit: limit})
}

// withData sets e's data to the wire JSON of the message the protos
// declare for it (gatewayv1.InvalidParamsData and the like).
func withData(e *jsonrpc.Error, data proto.Message) *jsonrpc.Error {
	raw, err := contract.Marshal(data)
	if err != nil {
		return e // the data messages have no field that fails to encode
	}
	return e.WithData(json.RawMessage(raw))
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.NewError(int64(gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND), "method not found: "+method)
}

package cadengine

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// errorDomain is google.rpc.ErrorInfo.domain of the engine's errors.
const errorDomain = "cadengine.cadbridge"

// Sentinel errors of the engine's own layer (the core has its own).
var (
	errSessionNotFound = errors.New("session not found")
	errSessionRequired = errors.New("this call needs a session")
	errShuttingDown    = errors.New("the engine is shutting down")
	errUnimplemented   = errors.New("not implemented")
)

// toStatus converts any error of the engine into a gRPC status. It is the
// one place where engine errors cross the gRPC boundary: it chooses an
// enginev1.ErrorReason for the error and takes the status code from the
// reason table declared in the protos (enginev1.Reasons). The status
// carries a google.rpc.ErrorInfo naming the reason, except for the
// reasons of statuses gRPC itself makes (cancelled, deadline exceeded,
// unimplemented, internal), which go without one, as gRPC's own do.
func toStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		return s
	}
	var v *contract.Violation
	switch {
	case errors.As(err, &v):
		return withReason(enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, err.Error(), map[string]string{
			"path":   v.Path,
			"reason": contract.ReasonName(v.Reason),
		})
	case errors.Is(err, engine.ErrNotFound):
		return withReason(enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, err.Error(), nil)
	case errors.Is(err, errSessionNotFound):
		return withReason(enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, err.Error(), nil)
	case errors.Is(err, errSessionRequired):
		return withReason(enginev1.ErrorReason_ERROR_REASON_SESSION_REQUIRED, err.Error(), nil)
	case errors.Is(err, engine.ErrOperationNotFound):
		return withReason(enginev1.ErrorReason_ERROR_REASON_OPERATION_NOT_FOUND, err.Error(), nil)
	case errors.Is(err, engine.ErrInvalid):
		return withReason(enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, err.Error(), nil)
	case errors.Is(err, errShuttingDown), errors.Is(err, engine.ErrClosed):
		return withReason(enginev1.ErrorReason_ERROR_REASON_SHUTTING_DOWN, err.Error(), nil)
	case errors.Is(err, errUnimplemented):
		return bare(enginev1.ErrorReason_ERROR_REASON_UNIMPLEMENTED, err.Error())
	case errors.Is(err, context.Canceled):
		return bare(enginev1.ErrorReason_ERROR_REASON_CANCELLED, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return bare(enginev1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED, err.Error())
	default:
		return bare(enginev1.ErrorReason_ERROR_REASON_INTERNAL, err.Error())
	}
}

// withReason is a status of reason's declared code with an ErrorInfo
// naming the reason.
func withReason(reason enginev1.ErrorReason, msg string, meta map[string]string) *status.Status {
	s := status.New(grpcCode(reason), msg)
	d, err := s.WithDetails(&errdetails.ErrorInfo{Reason: reason.String(), Domain: errorDomain, Metadata: meta})
	if err != nil {
		return s
	}
	return d
}

// bare is a status of reason's declared code without ErrorInfo, as gRPC
// makes its own; callers read it as the default reason of its code, so a
// reason that is not its code's default gets its ErrorInfo after all.
func bare(reason enginev1.ErrorReason, msg string) *status.Status {
	if info, ok := enginev1.LookupReason(reason); !ok || !info.DefaultForCode {
		return withReason(reason, msg, nil)
	}
	return status.New(grpcCode(reason), msg)
}

// grpcCode is the gRPC code the protos declare for reason; Internal for a
// reason they do not declare, which the contract generator refuses.
func grpcCode(reason enginev1.ErrorReason) codes.Code {
	if info, ok := enginev1.LookupReason(reason); ok {
		return info.GRPCCode
	}
	return codes.Internal
}

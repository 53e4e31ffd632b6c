package cadengine

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/core"
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

// toStatus converts any error of the engine into a gRPC status with a
// google.rpc.ErrorInfo detail whose reason is an enginev1.ErrorReason. It is
// the one place where engine errors cross the gRPC boundary.
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
		return withReason(codes.InvalidArgument, err.Error(), enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, map[string]string{
			"path":   v.Path,
			"reason": contract.ReasonName(v.Reason),
		})
	case errors.Is(err, core.ErrNotFound):
		return withReason(codes.NotFound, err.Error(), enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, nil)
	case errors.Is(err, errSessionNotFound):
		return withReason(codes.NotFound, err.Error(), enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, nil)
	case errors.Is(err, errSessionRequired):
		return withReason(codes.FailedPrecondition, err.Error(), enginev1.ErrorReason_ERROR_REASON_SESSION_REQUIRED, nil)
	case errors.Is(err, core.ErrOperationNotFound):
		return withReason(codes.NotFound, err.Error(), enginev1.ErrorReason_ERROR_REASON_OPERATION_NOT_FOUND, nil)
	case errors.Is(err, core.ErrInvalid):
		return withReason(codes.InvalidArgument, err.Error(), enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, nil)
	case errors.Is(err, errShuttingDown), errors.Is(err, core.ErrClosed):
		return withReason(codes.Unavailable, err.Error(), enginev1.ErrorReason_ERROR_REASON_SHUTTING_DOWN, nil)
	case errors.Is(err, errUnimplemented):
		return status.New(codes.Unimplemented, err.Error())
	case errors.Is(err, context.Canceled):
		return status.New(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.New(codes.DeadlineExceeded, err.Error())
	default:
		return status.New(codes.Internal, err.Error())
	}
}

func withReason(code codes.Code, msg string, reason enginev1.ErrorReason, meta map[string]string) *status.Status {
	s := status.New(code, msg)
	d, err := s.WithDetails(&errdetails.ErrorInfo{Reason: reason.String(), Domain: errorDomain, Metadata: meta})
	if err != nil {
		return s
	}
	return d
}

package cadengine

import (
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

// The service's own protocol errors (the engine has the others).
var (
	errSessionNotFound = engine.NewError(enginev1.ErrorReason_ERROR_REASON_SESSION_NOT_FOUND, errors.New("session not found"))
	errSessionRequired = engine.NewError(enginev1.ErrorReason_ERROR_REASON_SESSION_REQUIRED, errors.New("this call needs a session"))
	errShuttingDown    = engine.NewError(enginev1.ErrorReason_ERROR_REASON_SHUTTING_DOWN, errors.New("the engine is shutting down"))
	errUnimplemented   = engine.NewError(enginev1.ErrorReason_ERROR_REASON_UNIMPLEMENTED, errors.New("not implemented"))
)

// toStatus converts any error of the engine into a gRPC status. It is the
// one place where engine errors cross the gRPC boundary: the status code
// is the one the protos declare for the error's reason (engine.ReasonOf,
// enginev1.Reasons). An engine.Error's status carries a
// google.rpc.ErrorInfo naming the reason (a violation of the contract
// also its path and reason); other errors — a context's, a bug — go
// without one, as the statuses gRPC itself makes do.
func toStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		return s
	}
	var v *contract.Violation
	var e *engine.Error
	switch {
	case errors.As(err, &v):
		return withReason(enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, err.Error(), map[string]string{
			"path":   v.Path,
			"reason": contract.ReasonName(v.Reason),
		})
	case errors.As(err, &e):
		return withReason(e.Reason(), err.Error(), e.Metadata())
	default:
		return bare(engine.ReasonOf(err), err.Error())
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

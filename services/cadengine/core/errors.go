package core

import (
	"errors"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Protocol errors: the call itself could not be served. The gRPC server
// maps them to status codes; tool failures are results, not errors.
var (
	// ErrNotFound is returned (wrapped) for a document that does not exist.
	ErrNotFound = errors.New("document not found")
	// ErrInvalid is returned (wrapped) for a request the engine cannot
	// take: a missing document_id, a bad page token, an unknown format.
	ErrInvalid = errors.New("invalid request")
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("engine closed")
)

// toolError is a tool failure: it becomes a CallToolResponse with ok false,
// never a protocol error.
//
// The kinds the core uses:
//   - invalid_args: the arguments break the tool's schema, or a rule the
//     schema cannot say (a malformed handle, a field that does not fit the
//     entity's type, a polyline with one vertex); path points into args.
//   - failed: the tool ran and could not do it: a handle or layer that does
//     not exist, geometry that cannot be computed (no intersection, an
//     offset that collapses the curve, a point inside the circle for a
//     tangent).
//   - refused: the document's state forbids it: a locked layer, deleting
//     layer 0 or the current layer, a layer name already taken.
//   - unsupported: the engine lacks the capability (named in capability).
type toolError struct{ pb *enginev1.ToolError }

func (e *toolError) Error() string {
	return fmt.Sprintf("%s: %s", e.pb.GetKind(), e.pb.GetMessage())
}

func toolErr(kind enginev1.ErrorKind, format string, args ...any) *toolError {
	return &toolError{pb: &enginev1.ToolError{Kind: kind, Message: fmt.Sprintf(format, args...)}}
}

func refused(format string, args ...any) *toolError {
	return toolErr(enginev1.ErrorKind_ERROR_KIND_REFUSED, format, args...)
}

func failed(format string, args ...any) *toolError {
	return toolErr(enginev1.ErrorKind_ERROR_KIND_FAILED, format, args...)
}

func unsupported(capability, format string, args ...any) *toolError {
	e := toolErr(enginev1.ErrorKind_ERROR_KIND_UNSUPPORTED, format, args...)
	e.pb.Capability = &capability
	return e
}

func invalidArgs(path string, reason enginev1.ViolationReason, format string, args ...any) *toolError {
	e := toolErr(enginev1.ErrorKind_ERROR_KIND_INVALID_ARGS, format, args...)
	e.pb.Path = &path
	e.pb.Reason = &reason
	return e
}

const (
	reasonMissing    = enginev1.ViolationReason_VIOLATION_REASON_MISSING
	reasonOutOfRange = enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE
	reasonInvalid    = enginev1.ViolationReason_VIOLATION_REASON_INVALID
)

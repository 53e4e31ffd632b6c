package engine

import (
	"context"
	"errors"
	"fmt"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// Protocol errors: the call itself could not be served. The gRPC server
// maps them to status codes; tool failures are results, not errors.
var (
	// ErrNotFound is returned (wrapped) for a document that does not exist.
	ErrNotFound = errors.New("document not found")
	// ErrInvalid is returned (wrapped) for a request the engine cannot
	// take: a missing document_id, a bad page token, an unknown format, a
	// DXF file it cannot read (a *dxf.Error).
	ErrInvalid = errors.New("invalid request")
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("engine closed")
	// ErrOperationNotFound is returned (wrapped) by GetOperation for an
	// operation id the principal never used, or whose record was pruned.
	ErrOperationNotFound = errors.New("operation not found")
	// ErrUnsupported is what a Client returns (possibly wrapped) when the
	// client did not declare a server-request method or answered -32601;
	// the step that asked fails unsupported.
	ErrUnsupported = errors.New("the client does not implement the method")
)

// invalid marks err as ErrInvalid, keeping its text.
func invalid(err error) error { return invalidError{err} }

type invalidError struct{ err error }

func (e invalidError) Error() string   { return e.err.Error() }
func (e invalidError) Unwrap() []error { return []error{ErrInvalid, e.err} }

// toolError is a tool failure: it becomes a CallToolResponse with ok false,
// never a protocol error.
//
// The kinds the core uses:
//   - invalid_args: the arguments break the tool's schema, or a rule the
//     schema cannot say (a malformed handle, a field that does not fit the
//     entity's type, a polyline with one vertex, a DXF file that cannot be
//     read, its line in the message); path points into args.
//   - failed: the tool ran and could not do it: a handle or layer that does
//     not exist, geometry that cannot be computed (no intersection, an
//     offset that collapses the curve or an arc of it, a point inside the
//     circle or ellipse for a tangent).
//   - refused: the document's state forbids it: a locked layer, deleting
//     layer 0 or the current layer, a layer name already taken.
//   - unsupported: the engine or the client lacks the capability (named in
//     capability: "server_request:pick.point", "transactions_outside_batch").
//
// And, from the batch runner (batch.go, run.go):
//   - unknown_tool, denied (not batchable, cad.batch itself, an approval
//     the client denied), unresolved_ref (refs.go): validation;
//   - stale_revision, busy, operation_conflict, quarantined: refusals of a
//     whole batch;
//   - cancelled, timed_out: the call's context ended while a step ran or
//     waited on the client.
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

func denied(format string, args ...any) *toolError {
	return toolErr(enginev1.ErrorKind_ERROR_KIND_DENIED, format, args...)
}

func unresolvedRef(path string, format string, args ...any) *toolError {
	e := toolErr(enginev1.ErrorKind_ERROR_KIND_UNRESOLVED_REF, format, args...)
	if path != "" {
		e.pb.Path = &path
	}
	return e
}

// asToolError reports whether err is a tool failure and returns it as
// one: a *toolError, or a *ruleError of the drawing's rules.
func asToolError(err error) (*toolError, bool) {
	var te *toolError
	if errors.As(err, &te) {
		return te, true
	}
	var re *drawing.Error
	if errors.As(err, &re) {
		return toolErr(re.Kind, "%s", re.Message), true
	}
	return nil, false
}

// contextError is the step failure for a context that ended: timed_out for
// a deadline, cancelled otherwise.
func contextError(err error, format string, args ...any) *toolError {
	if errors.Is(err, context.DeadlineExceeded) {
		return toolErr(enginev1.ErrorKind_ERROR_KIND_TIMED_OUT, format, args...)
	}
	return toolErr(enginev1.ErrorKind_ERROR_KIND_CANCELLED, format, args...)
}

const (
	reasonMissing    = enginev1.ViolationReason_VIOLATION_REASON_MISSING
	reasonOutOfRange = enginev1.ViolationReason_VIOLATION_REASON_OUT_OF_RANGE
	reasonInvalid    = enginev1.ViolationReason_VIOLATION_REASON_INVALID
)

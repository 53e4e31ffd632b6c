package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// Error is a protocol error: the call itself could not be served (tool
// failures are results, not errors). Its reason says why; the reason's
// gRPC and JSON-RPC codes are declared once, on the ErrorReason values in
// the protos (enginev1.Reasons), and the gRPC server and the gateway take
// them from there. An Error matches, under errors.Is, any other Error of
// the same reason, so the sentinels below stand for their reason.
type Error struct {
	reason enginev1.ErrorReason
	err    error
	meta   map[string]string
}

// newErrorMeta is an error of reason with metadata for its ErrorInfo.
func newErrorMeta(reason enginev1.ErrorReason, err error, meta map[string]string) *Error {
	return &Error{reason: reason, err: err, meta: meta}
}

// Metadata is what the error's google.rpc.ErrorInfo carries besides its
// reason (NOT_LEASE_HOLDER's holder, for one); nil for most.
func (e *Error) Metadata() map[string]string { return e.meta }

// NewError is an error of reason whose message is err's.
func NewError(reason enginev1.ErrorReason, err error) *Error {
	return &Error{reason: reason, err: err}
}

// Reason says why the call could not be served.
func (e *Error) Reason() enginev1.ErrorReason { return e.reason }

// Error is the cause's message.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.err }

// Is reports whether target is an Error of the same reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.reason == e.reason
}

// ReasonOf is the reason of err: that of the first Error in its chain;
// CANCELLED or DEADLINE_EXCEEDED for a context's error; else INTERNAL.
func ReasonOf(err error) enginev1.ErrorReason {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.reason
	case errors.Is(err, context.Canceled):
		return enginev1.ErrorReason_ERROR_REASON_CANCELLED
	case errors.Is(err, context.DeadlineExceeded):
		return enginev1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED
	}
	return enginev1.ErrorReason_ERROR_REASON_INTERNAL
}

// The engine's protocol errors, returned wrapped with details.
var (
	// ErrNotFound is for a document that does not exist.
	ErrNotFound = NewError(enginev1.ErrorReason_ERROR_REASON_DOCUMENT_NOT_FOUND, errors.New("document not found"))
	// ErrInvalid is for a request the engine cannot take: a missing
	// document_id, a bad page token, an unknown format, a DXF file it
	// cannot read (a *dxf.Error).
	ErrInvalid = NewError(enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, errors.New("invalid request"))
	// ErrClosed is returned by every method after Close.
	ErrClosed = NewError(enginev1.ErrorReason_ERROR_REASON_SHUTTING_DOWN, errors.New("engine closed"))
	// ErrOperationNotFound is returned by GetOperation for an operation id
	// the principal never used, or whose record was pruned.
	ErrOperationNotFound = NewError(enginev1.ErrorReason_ERROR_REASON_OPERATION_NOT_FOUND, errors.New("operation not found"))
)

// ErrUnsupported is what a Client returns (possibly wrapped) when the
// client did not declare a server-request method or answered "method not
// found"; the step that asked fails unsupported.
var ErrUnsupported = errors.New("the client does not implement the method")

// invalid marks err as invalid params, keeping its text.
func invalid(err error) error {
	return NewError(enginev1.ErrorReason_ERROR_REASON_INVALID_PARAMS, err)
}

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
// And, from the batch runner (Engine.ExecuteBatch, run):
//   - unknown_tool, denied (not batchable, cad.batch itself, an approval
//     the client denied), unresolved_ref (reference): validation;
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
// one: a *toolError, a *ruleError of the drawing's rules, work past the
// expansion budget (too_large), or the call's context ending while the
// tool worked (cancelled, timed_out).
func asToolError(err error) (*toolError, bool) {
	var te *toolError
	if errors.As(err, &te) {
		return te, true
	}
	var re *drawing.Error
	if errors.As(err, &re) {
		return toolErr(re.Kind, "%s", re.Message), true
	}
	var tl *drawing.TooLargeError
	if errors.As(err, &tl) {
		return tooLarge(tl), true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return contextError(err, "the call ended while the tool ran"), true
	}
	return nil, false
}

// tooLarge is the step failure for work past the expansion budget.
func tooLarge(err *drawing.TooLargeError) *toolError {
	te := toolErr(enginev1.ErrorKind_ERROR_KIND_TOO_LARGE, "%s", err.Error())
	te.pb.Needed, te.pb.Limit = &err.Needed, &err.Limit
	return te
}

// tooLargeError is the protocol error of a call (not a tool) whose work
// would expand past the budget: TOO_LARGE with needed and limit.
func tooLargeError(err *drawing.TooLargeError) *Error {
	return newErrorMeta(enginev1.ErrorReason_ERROR_REASON_TOO_LARGE, err, map[string]string{
		"needed": strconv.FormatInt(err.Needed, 10),
		"limit":  strconv.FormatInt(err.Limit, 10),
	})
}

// budget is what the call may expand (see drawing.Budget).
func (c *call) budget() *drawing.Budget { return drawing.NewBudget(c.ctx, c.e.expand) }

// expands fails too_large when drawing e's geometry would cost more than
// a call may expand: before a tool walks through an insert's expansion.
func (c *call) expands(e *drawing.Entity) error {
	return c.budget().Afford(drawing.Cost(e.Geom))
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
	reasonWrongType  = enginev1.ViolationReason_VIOLATION_REASON_WRONG_TYPE
	reasonInvalid    = enginev1.ViolationReason_VIOLATION_REASON_INVALID
)

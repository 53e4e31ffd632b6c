package engine

import (
	"context"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Caller is who runs a call and how to reach them.
type Caller struct {
	// Principal owns the call's operation ids (they are scoped to it) and
	// sees its operations in system_status.
	Principal string
	// Client answers server requests (approval, pick.point,
	// pick.entities); nil when the call has no session (stateless): a
	// step that needs the client then fails unsupported with capability
	// "server_request:<method>".
	Client Client
	// ApprovalPolicy of the caller's session (NONE or DESTRUCTIVE); with
	// DESTRUCTIVE every step of a destructive tool asks Client for an
	// "approval" first, and a deny fails the step denied.
	ApprovalPolicy enginev1.ApprovalPolicy
	// Events receives batch.progress (after each batch step that ran) and
	// operation.finished (when a batch or tool call ends; not for a
	// replay, a refusal of a taken operation id, or a dry run) for this
	// caller's session; nil means none. It is called from the running call, sometimes while that call
	// holds the document's write lane, so it must be quick and must not
	// call the Engine.
	Events func(eventType string, payload proto.Message)
}

// Client is the session's client. Ask sends one server request and waits
// for the answer; it returns ErrUnsupported (possibly wrapped) when the
// client did not declare the method or answered -32601, and the context's
// error when ctx ends first (the request is then withdrawn). The engine
// leaves req.Id and the params' session_id for the Client to fill in.
type Client interface {
	Ask(ctx context.Context, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error)
}

func (c Caller) emit(eventType string, payload proto.Message) {
	if c.Events != nil {
		c.Events(eventType, payload)
	}
}

package cadengine

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// sessionClient is a session's client as the core sees it: server requests
// go out through ask — the session's own (to whichever stream it is
// attached to), or, for a session another engine owns, through the store
// (remoteRequests.ask) — and every wait is traced.
type sessionClient struct {
	server *Server
	ask    askFunc
}

// askFunc sends a server request with its params and waits for the
// answer; when ctx ends first the request is withdrawn with reason and it
// returns errWithdrawn, and errNotDeclared for a method nobody declared.
type askFunc func(ctx context.Context, req *enginev1.ServerRequest, params proto.Message, reason func() enginev1.CancelReason) (*enginev1.ServerRequestAnswer, error)

// Ask implements engine.Client.
func (c sessionClient) Ask(ctx context.Context, req *enginev1.ServerRequest) (*enginev1.ServerRequestAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.server.cfg.RequestTimeout)
	defer cancel()
	ctx, span, carrier := c.server.obs.startWait(ctx, req.GetMethod())
	defer span.End()
	req.TraceContext = carrier
	c.server.obs.openReqs.Add(ctx, 1)
	defer c.server.obs.openReqs.Add(context.WithoutCancel(ctx), -1)
	answer, err := c.ask(ctx, req, paramsOf(req), func() enginev1.CancelReason {
		if errors.Is(context.Cause(ctx), errInterrupted) {
			return enginev1.CancelReason_CANCEL_REASON_INTERRUPTED
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return enginev1.CancelReason_CANCEL_REASON_TIMEOUT
		}
		return enginev1.CancelReason_CANCEL_REASON_RESOLVED
	})
	switch {
	case errors.Is(err, errNotDeclared):
		return nil, fmt.Errorf("%s: %w", req.GetMethod(), engine.ErrUnsupported)
	case err != nil && ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case err != nil: // withdrawn by a stop or an interrupt elsewhere
		return nil, fmt.Errorf("%s: %w: %w", req.GetMethod(), err, context.Canceled)
	}
	if e := answer.GetError(); e != nil && status.FromProto(e).Code() == codes.Unimplemented {
		return nil, fmt.Errorf("%s: the client answered %d (method not found): %w", req.GetMethod(), gatewayv1.ErrorCode_ERROR_CODE_METHOD_NOT_FOUND, engine.ErrUnsupported)
	}
	return answer, nil
}

// paramsOf is the params message a server request frame carries.
func paramsOf(req *enginev1.ServerRequest) proto.Message {
	m := req.ProtoReflect()
	if fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("params")); fd != nil {
		return m.Get(fd).Message().Interface()
	}
	return &enginev1.ServerRequest{}
}

// errInterrupted is the cancel cause of work stopped by session.interrupt.
var errInterrupted = errors.New("interrupted by session.interrupt")

package cadengine

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// dispatch runs one call of a Session stream.
func (s *Server) dispatch(ctx context.Context, st *streamState, call *enginev1.SessionCall) (proto.Message, error) {
	switch r := call.GetRequest().(type) {
	case *enginev1.SessionCall_CreateSession:
		sess := s.sessions.create(ctx, st.principal, r.CreateSession)
		st.bind(sess)
		_, latest, _ := sess.since(0)
		return &enginev1.CreateSessionResponse{SessionId: sess.info.SessionId, ResumeToken: sess.resumeToken, Epoch: s.sessions.epoch, LatestSeq: latest}, nil
	case *enginev1.SessionCall_ResumeSession:
		req := r.ResumeSession
		token := req.GetResumeToken()
		sess, err := s.sessions.owned(st.principal, req.GetSessionId(), &token)
		if err != nil {
			return nil, err
		}
		st.bind(sess)
		sess.withdrawStale()
		s.sessions.settle(sess)
		return sess.resumed(st, req.GetLastSeen(), s.sessions.epoch), nil
	case *enginev1.SessionCall_AttachSession:
		return s.attachSurface(st, r.AttachSession)
	case *enginev1.SessionCall_GetSessionEvents:
		sess, err := st.session(r.GetSessionEvents.GetSessionId())
		if err != nil {
			return nil, err
		}
		s.sessions.settle(sess)
		return sess.eventsSince(st, r.GetSessionEvents.GetLastSeen(), s.sessions.epoch), nil
	case *enginev1.SessionCall_Subscribe:
		sess, err := st.session(r.Subscribe.GetSessionId())
		if err != nil {
			return nil, err
		}
		ids := sess.subscribe(r.Subscribe.GetDocumentIds())
		s.sessions.save(ctx, sess)
		return &enginev1.SubscribeResponse{DocumentIds: ids}, nil
	case *enginev1.SessionCall_InterruptSession:
		sess, err := st.session(r.InterruptSession.GetSessionId())
		if err != nil {
			return nil, err
		}
		return &enginev1.InterruptSessionResponse{Interrupted: sess.interrupt()}, nil
	case *enginev1.SessionCall_CloseSession:
		sess, err := st.session(r.CloseSession.GetSessionId())
		if err != nil {
			return nil, err
		}
		sess.withdrawAll(enginev1.CancelReason_CANCEL_REASON_SESSION_CLOSED)
		s.sessions.remove(ctx, sess.info.SessionId)
		st.bind(nil)
		return &enginev1.CloseSessionResponse{}, nil
	case *enginev1.SessionCall_CallTool:
		ctx, caller, done, err := s.caller(ctx, st, r.CallTool.SessionId)
		if err != nil {
			return nil, err
		}
		defer done()
		return s.engine.CallTool(ctx, caller, r.CallTool)
	case *enginev1.SessionCall_ExecuteBatch:
		ctx, caller, done, err := s.caller(ctx, st, r.ExecuteBatch.SessionId)
		if err != nil {
			return nil, err
		}
		defer done()
		return s.engine.ExecuteBatch(ctx, caller, r.ExecuteBatch)
	case *enginev1.SessionCall_ListTools:
		return s.tools, nil
	case *enginev1.SessionCall_CreateDocument:
		return s.engine.CreateDocument(ctx, r.CreateDocument)
	case *enginev1.SessionCall_GetDocument:
		return s.engine.GetDocument(ctx, r.GetDocument.GetDocumentId())
	case *enginev1.SessionCall_ListDocuments:
		return s.engine.ListDocuments(ctx, r.ListDocuments)
	case *enginev1.SessionCall_ExportDocument:
		return s.engine.ExportDocument(ctx, r.ExportDocument)
	case *enginev1.SessionCall_ImportDocument:
		// document.import answers the document info, with the import
		// report beside its fields.
		resp, err := s.engine.ImportDocument(ctx, r.ImportDocument)
		if err != nil {
			return nil, err
		}
		info := resp.GetDocument()
		info.Report = resp.GetReport()
		return info, nil
	case *enginev1.SessionCall_GetOperation:
		return s.engine.GetOperation(ctx, st.principal, r.GetOperation.GetOperationId())
	case *enginev1.SessionCall_GetSystemStatus:
		return s.systemStatus(ctx, st.principal)
	default:
		return nil, fmt.Errorf("unknown call %T: %w", r, errUnimplemented)
	}
}

// caller is who runs a tool call or batch: without a session id the call
// is stateless (no client to ask); with one, the session of the stream's
// principal, whose client answers server requests and receives the call's
// events. A session another engine owns is asked through the store
// (remoteCaller).
//
// The returned context is cancelled by session.interrupt; done releases it.
func (s *Server) caller(ctx context.Context, st *streamState, sessionID *string) (context.Context, engine.Caller, func(), error) {
	c := engine.Caller{Principal: st.principal}
	if sessionID == nil {
		return ctx, c, func() {}, nil
	}
	sess, err := st.session(*sessionID)
	if err != nil && s.sessions.remote != nil && ownedElsewhere(err) {
		// The call came to its document's holder; another engine owns
		// the session.
		c, err = s.remoteCaller(ctx, st, *sessionID)
		if err != nil || s.sessions.handoffs == nil {
			return ctx, c, func() {}, err
		}
		// Its events go to the session's owner, stored before the call
		// answers.
		call := s.sessions.handoffs.call(*sessionID)
		c.Events = call.emit
		return ctx, c, call.settle, nil
	}
	if err != nil {
		return ctx, c, nil, err
	}
	c.Client = sessionClient{server: s, ask: sess.ask}
	c.ApprovalPolicy = sess.info.GetApprovalPolicy()
	c.Events = func(typ string, payload proto.Message) { s.sessions.emit(sess, typ, payload) }
	ctx, cancel := context.WithCancelCause(ctx)
	untrack := sess.track(cancel)
	return ctx, c, func() {
		untrack()
		cancel(nil)
		s.sessions.settle(sess) // its events reach the client before its result
	}, nil
}

// responseFields maps each response message type to its SessionCallResult
// field.
var responseFields = func() map[protoreflect.FullName]protoreflect.FieldDescriptor {
	fields := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	oneof := (&enginev1.SessionCallResult{}).ProtoReflect().Descriptor().Oneofs().ByName("response")
	for i := 0; i < oneof.Fields().Len(); i++ {
		if fd := oneof.Fields().Get(i); fd.Message() != nil { // not wire_json
			fields[fd.Message().FullName()] = fd
		}
	}
	return fields
}()

// setResponse puts a call's response into its SessionCallResult field.
func setResponse(result *enginev1.SessionCallResult, resp proto.Message) {
	fd, ok := responseFields[resp.ProtoReflect().Descriptor().FullName()]
	if !ok {
		panic(fmt.Sprintf("cadengine: no SessionCallResult field for %T", resp)) // a dispatch bug
	}
	result.ProtoReflect().Set(fd, protoreflect.ValueOfMessage(resp.ProtoReflect()))
}

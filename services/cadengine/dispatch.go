package cadengine

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// dispatch runs one call of a Session stream.
func (s *Server) dispatch(ctx context.Context, st *streamState, call *enginev1.SessionCall) (proto.Message, error) {
	switch r := call.GetRequest().(type) {
	case *enginev1.SessionCall_CreateSession:
		sess := s.sessions.create(st.principal, r.CreateSession)
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
		events, latest, truncated := sess.since(req.GetLastSeen())
		return &enginev1.ResumeSessionResponse{
			Session:      sess.snapshot(),
			Events:       events,
			LatestSeq:    latest,
			Truncated:    truncated,
			Epoch:        s.sessions.epoch,
			OpenRequests: sess.openRequests(),
		}, nil
	case *enginev1.SessionCall_GetSessionEvents:
		sess, err := st.session(r.GetSessionEvents.GetSessionId())
		if err != nil {
			return nil, err
		}
		events, latest, truncated := sess.since(r.GetSessionEvents.GetLastSeen())
		return &enginev1.GetSessionEventsResponse{Events: events, LatestSeq: latest, Truncated: truncated, Epoch: s.sessions.epoch, OpenRequests: sess.openRequests()}, nil
	case *enginev1.SessionCall_Subscribe:
		sess, err := st.session(r.Subscribe.GetSessionId())
		if err != nil {
			return nil, err
		}
		return &enginev1.SubscribeResponse{DocumentIds: sess.subscribe(r.Subscribe.GetDocumentIds())}, nil
	case *enginev1.SessionCall_InterruptSession:
		sess, err := st.session(r.InterruptSession.GetSessionId())
		if err != nil {
			return nil, err
		}
		open := len(sess.openRequests()) > 0
		sess.withdrawAll(enginev1.CancelReason_CANCEL_REASON_INTERRUPTED)
		return &enginev1.InterruptSessionResponse{Interrupted: open}, nil
	case *enginev1.SessionCall_CloseSession:
		sess, err := st.session(r.CloseSession.GetSessionId())
		if err != nil {
			return nil, err
		}
		sess.withdrawAll(enginev1.CancelReason_CANCEL_REASON_SESSION_CLOSED)
		s.sessions.remove(sess.info.SessionId)
		st.bind(nil)
		return &enginev1.CloseSessionResponse{}, nil
	case *enginev1.SessionCall_CallTool:
		if err := st.checkSession(r.CallTool.SessionId); err != nil {
			return nil, err
		}
		return s.callTool(ctx, st.principal, r.CallTool)
	case *enginev1.SessionCall_ExecuteBatch:
		return nil, fmt.Errorf("cad.batch: %w", errUnimplemented)
	case *enginev1.SessionCall_ListTools:
		return s.listTools()
	case *enginev1.SessionCall_CreateDocument:
		return s.core.CreateDocument(ctx, r.CreateDocument)
	case *enginev1.SessionCall_GetDocument:
		return s.core.GetDocument(ctx, r.GetDocument.GetDocumentId())
	case *enginev1.SessionCall_ListDocuments:
		return s.core.ListDocuments(ctx, r.ListDocuments)
	case *enginev1.SessionCall_ExportDocument:
		return s.core.ExportDocument(ctx, r.ExportDocument)
	case *enginev1.SessionCall_ImportDocument:
		return nil, fmt.Errorf("document.import: %w", errUnimplemented)
	case *enginev1.SessionCall_GetOperation:
		return nil, fmt.Errorf("operations.get %q: %w", r.GetOperation.GetOperationId(), errOperationMissing)
	case *enginev1.SessionCall_GetSystemStatus:
		return s.systemStatus(ctx)
	default:
		return nil, fmt.Errorf("unknown call %T: %w", r, errUnimplemented)
	}
}

// checkSession accepts a call without a session id (stateless) or with the
// id of the session bound to the stream.
func (st *streamState) checkSession(id *string) error {
	if id == nil {
		return nil
	}
	_, err := st.session(*id)
	return err
}

// responseFields maps each response message type to its SessionCallResult
// field.
var responseFields = func() map[protoreflect.FullName]protoreflect.FieldDescriptor {
	fields := map[protoreflect.FullName]protoreflect.FieldDescriptor{}
	oneof := (&enginev1.SessionCallResult{}).ProtoReflect().Descriptor().Oneofs().ByName("response")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		fields[fd.Message().FullName()] = fd
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

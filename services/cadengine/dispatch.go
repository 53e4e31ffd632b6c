package cadengine

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

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

// responseFrame wraps a call's response in its SessionCallResult field.
func responseFrame(resp proto.Message) enginev1.IsSessionCallResult_Response {
	switch r := resp.(type) {
	case *enginev1.CreateSessionResponse:
		return &enginev1.SessionCallResult_CreateSession{CreateSession: r}
	case *enginev1.ResumeSessionResponse:
		return &enginev1.SessionCallResult_ResumeSession{ResumeSession: r}
	case *enginev1.GetSessionEventsResponse:
		return &enginev1.SessionCallResult_GetSessionEvents{GetSessionEvents: r}
	case *enginev1.SubscribeResponse:
		return &enginev1.SessionCallResult_Subscribe{Subscribe: r}
	case *enginev1.InterruptSessionResponse:
		return &enginev1.SessionCallResult_InterruptSession{InterruptSession: r}
	case *enginev1.CloseSessionResponse:
		return &enginev1.SessionCallResult_CloseSession{CloseSession: r}
	case *enginev1.CallToolResponse:
		return &enginev1.SessionCallResult_CallTool{CallTool: r}
	case *enginev1.ExecuteBatchResponse:
		return &enginev1.SessionCallResult_ExecuteBatch{ExecuteBatch: r}
	case *enginev1.ListToolsResponse:
		return &enginev1.SessionCallResult_ListTools{ListTools: r}
	case *enginev1.DocumentInfo:
		return &enginev1.SessionCallResult_Document{Document: r}
	case *enginev1.ListDocumentsResponse:
		return &enginev1.SessionCallResult_ListDocuments{ListDocuments: r}
	case *enginev1.ExportDocumentResponse:
		return &enginev1.SessionCallResult_ExportDocument{ExportDocument: r}
	case *enginev1.Operation:
		return &enginev1.SessionCallResult_Operation{Operation: r}
	case *enginev1.GetSystemStatusResponse:
		return &enginev1.SessionCallResult_GetSystemStatus{GetSystemStatus: r}
	default:
		panic(fmt.Sprintf("cadengine: no SessionCallResult field for %T", resp)) // a dispatch bug
	}
}

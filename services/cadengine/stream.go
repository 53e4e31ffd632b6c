package cadengine

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/protocodec"
)

// Session serves one gateway connection: the first frame names the
// principal; calls then run concurrently and answer by call_id.
func (s *Server) Session(stream enginev1.EngineService_SessionServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	open := first.GetOpen()
	if open == nil || open.GetPrincipal() == "" {
		return status.Error(codes.InvalidArgument, "the first frame must be open, with a principal")
	}
	st := &streamState{server: s, principal: open.GetPrincipal(), stream: stream, running: map[uint64]runningCall{}}
	if err := st.send(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Opened{Opened: &enginev1.StreamOpened{Epoch: s.sessions.epoch}}}); err != nil {
		return err
	}
	// Calls outlive the stream: a client whose connection drops resumes its
	// session (and answers its open requests) elsewhere, and learns a lost
	// result from operations.get. The server owns them (s.work). Calls
	// that only read have no outcome to learn: they end with the stream.
	defer st.unbind()
	defer st.abandonReads()
	// A graceful stop lets the stream's calls finish, then tells the
	// gateway the stream closes; the gateway then ends it, which ends the
	// Recv below. (The stream has no goroutine of its own waiting for
	// that: this one receives.)
	stopDrain := context.AfterFunc(s.draining, st.drain)
	defer stopDrain()
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch f := req.GetFrame().(type) {
		case *enginev1.SessionRequest_Call:
			callCtx, callCancel := context.WithCancel(s.base)
			if err := st.start(f.Call.GetCallId(), runningCall{callCancel, s.readsOnly(f.Call)}); err != nil {
				callCancel()
				st.reply(f.Call, nil, err)
				continue
			}
			s.work.Add(1)
			st.workers.run(func() {
				defer s.work.Done()
				defer st.finish(f.Call.GetCallId())
				name := callName(f.Call)
				callCtx, span := s.obs.startCall(callCtx, f.Call.GetTraceContext(), name)
				start := time.Now()
				resp, err := s.dispatch(callCtx, st, f.Call)
				s.obs.endCall(callCtx, span, name, start, err)
				s.log.DebugContext(callCtx, "call", "call", name, "principal", st.principal, "duration", time.Since(start), "error", err)
				st.reply(f.Call, resp, err)
			})
		case *enginev1.SessionRequest_Cancel:
			st.cancel(f.Cancel.GetCallId())
		case *enginev1.SessionRequest_Answer:
			// Only the stream bound to the request's session may answer it;
			// any other answer changes nothing.
			if sess := st.boundSession(); sess != nil {
				sess.answer(st, f.Answer)
			}
		case *enginev1.SessionRequest_Close:
			return nil
		default:
			return status.Error(codes.InvalidArgument, "unexpected frame")
		}
	}
}

// drain ends the stream for an engine shutdown: it takes no more calls,
// running calls get the drain timeout to finish (open server requests are
// already withdrawn), then are cancelled; the gateway is told the stream
// closes.
func (st *streamState) drain() {
	st.mu.Lock()
	st.stopping = true
	st.mu.Unlock()
	done := make(chan struct{})
	go func() {
		st.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(st.server.cfg.DrainTimeout):
		st.mu.Lock()
		for _, c := range st.running {
			c.cancel()
		}
		st.mu.Unlock()
		<-done
	}
	st.sendFrame(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Close{Close: &enginev1.CloseStream{Reason: "shutdown"}}})
}

// streamState is one Session stream: its principal, the session it is bound
// to, and its running calls.
type streamState struct {
	server    *Server
	principal string
	stream    enginev1.EngineService_SessionServer

	sendMu sync.Mutex // serializes stream.Send

	mu       sync.Mutex // guards bound, running and stopping, and calls.Add
	bound    *session
	running  map[uint64]runningCall
	stopping bool           // the engine is stopping: no more calls
	calls    sync.WaitGroup // the running calls

	workers workers // run the calls
}

func (st *streamState) send(resp *enginev1.SessionResponse) error { return st.sendMsg(resp) }

// sendMsg sends a SessionResponse, or a protocodec.WireResult, which the
// stream's codec (protocodec, which the server is given) writes as one.
func (st *streamState) sendMsg(m any) error {
	st.sendMu.Lock()
	defer st.sendMu.Unlock()
	return st.stream.SendMsg(m)
}

// start registers a call about to run, or refuses it: a call_id already
// running, or any call once the engine is stopping.
// runningCall is a call in progress: what cancels it, and whether it only
// reads (so that nothing is lost when it is cancelled).
type runningCall struct {
	cancel    context.CancelFunc
	readsOnly bool
}

func (st *streamState) start(id uint64, call runningCall) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopping {
		return status.Error(codes.Unavailable, "the engine is stopping")
	}
	if _, dup := st.running[id]; dup {
		return status.Errorf(codes.InvalidArgument, "call_id %d is already running", id)
	}
	st.running[id] = call
	st.calls.Add(1)
	return nil
}

// abandonReads cancels the running calls that only read: the stream that
// asked for them is gone, and no one can learn their result.
func (st *streamState) abandonReads() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.running {
		if c.readsOnly {
			c.cancel()
		}
	}
}

// readsOnly says whether a call changes nothing: an export, a listing, a
// read-only tool.
func (s *Server) readsOnly(call *enginev1.SessionCall) bool {
	switch r := call.GetRequest().(type) {
	case *enginev1.SessionCall_CallTool:
		return s.engine.ReadsOnly(r.CallTool.GetTool())
	case *enginev1.SessionCall_ExportDocument, *enginev1.SessionCall_GetDocument, *enginev1.SessionCall_ListDocuments,
		*enginev1.SessionCall_ListTools, *enginev1.SessionCall_GetOperation, *enginev1.SessionCall_GetSystemStatus:
		return true
	}
	return false
}

// finish ends a call that start registered.
func (st *streamState) finish(id uint64) {
	st.mu.Lock()
	c, ok := st.running[id]
	delete(st.running, id)
	st.mu.Unlock()
	if ok {
		c.cancel()
	}
	st.calls.Done()
}

func (st *streamState) cancel(id uint64) {
	st.mu.Lock()
	c, ok := st.running[id]
	st.mu.Unlock()
	if ok {
		c.cancel()
	}
}

// sendFrame sends an engine-initiated frame (event, server request,
// cancel); a failure means the gateway is gone and the session detaches.
func (st *streamState) sendFrame(resp *enginev1.SessionResponse) {
	if err := st.send(resp); err != nil {
		st.server.log.Debug("send frame", "error", err)
	}
}

// bind attaches the stream to a session (replacing any earlier binding).
func (st *streamState) bind(s *session) {
	st.mu.Lock()
	old := st.bound
	st.bound = s
	st.mu.Unlock()
	if old != nil && old != s {
		old.detach(st)
	}
	if s != nil {
		s.attach(st)
	}
}

// unbind detaches the stream from its session, which stays with the engine.
func (st *streamState) unbind() {
	st.bind(nil)
}

func (st *streamState) boundSession() *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.bound
}

// session returns the session named id if the stream's principal owns it.
// Calls may name any session of their principal (a POST /rpc call may use
// the session of a WebSocket, whose client then gets its server requests);
// only answers to server requests must come from the bound stream.
func (st *streamState) session(id string) (*session, error) {
	return st.server.sessions.owned(st.principal, id, nil)
}

// reply answers call with resp, or err: as the message, or as its wire
// JSON when the call asked for that. The stream's failure to send is the
// gateway's to notice, so it is only logged.
func (st *streamState) reply(call *enginev1.SessionCall, resp proto.Message, err error) {
	result := &enginev1.SessionCallResult{CallId: call.GetCallId()}
	var msg any = &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Result{Result: result}}
	a, replay := resp.(wireWriter)
	switch {
	case err == nil && call.GetWireJson() && replay:
		// A replay's answer is large: the stream's codec writes it
		// straight into the buffer it sends.
		result.OpenRequests = a.openRequestRefs()
		msg = &protocodec.WireResult{Result: result, Size: a.wireSize(), Append: a.appendWire}
	case err == nil && call.GetWireJson():
		var data []byte
		data, err = contract.Marshal(resp)
		result.Response = &enginev1.SessionCallResult_WireJson{WireJson: data}
	case err == nil:
		setResponse(result, resp)
	}
	if err != nil {
		result.Response = &enginev1.SessionCallResult_Error{Error: toStatus(err).Proto()}
	}
	if err := st.sendMsg(msg); err != nil {
		st.server.log.Debug("send result", "call_id", call.GetCallId(), "error", err)
	}
}

// callName names a call by its request field ("call_tool").
func callName(call *enginev1.SessionCall) string {
	m := call.ProtoReflect()
	if fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("request")); fd != nil {
		return string(fd.Name())
	}
	return "unknown"
}

package gateway

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// fakeEngine answers Session calls with answer, and counts them.
type fakeEngine struct {
	enginev1.UnimplementedEngineServiceServer
	addr string

	mu     sync.Mutex // guards answer, calls and streams
	answer func(*enginev1.SessionCall) *enginev1.SessionCallResult
	calls  int
	// streams counts the Session streams open now.
	streams int
}

func (f *fakeEngine) Session(stream enginev1.EngineService_SessionServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	f.mu.Lock()
	f.streams++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.streams--
		f.mu.Unlock()
	}()
	if err := stream.Send(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Opened{Opened: &enginev1.StreamOpened{Epoch: "ep-fake"}}}); err != nil {
		return err
	}
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) || status.Code(err) == codes.Canceled {
			return nil
		}
		if err != nil {
			return err
		}
		call := req.GetCall()
		if call == nil {
			continue
		}
		f.mu.Lock()
		f.calls++
		res := f.answer(call)
		f.mu.Unlock()
		res.CallId = call.CallId
		if err := stream.Send(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Result{Result: res}}); err != nil {
			return err
		}
	}
}

func (f *fakeEngine) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// waitStreams waits up to 10 s for n Session streams to be open.
func (f *fakeEngine) waitStreams(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		got := f.streams
		f.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Session streams open after 10 s, want %d", got, n)
		}
	}
}

func (f *fakeEngine) set(answer func(*enginev1.SessionCall) *enginev1.SessionCallResult) {
	f.mu.Lock()
	f.answer = answer
	f.mu.Unlock()
}

func startFakeEngine(t *testing.T) *fakeEngine {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEngine{addr: lis.Addr().String()}
	srv := grpc.NewServer()
	enginev1.RegisterEngineServiceServer(srv, f)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return f
}

// notHolder is a NOT_LEASE_HOLDER result naming holder.
func notHolder(holder string) *enginev1.SessionCallResult {
	s := status.New(codes.FailedPrecondition, "held elsewhere")
	s, _ = s.WithDetails(&errdetails.ErrorInfo{Reason: enginev1.ErrorReason_ERROR_REASON_NOT_LEASE_HOLDER.String(), Metadata: map[string]string{"holder": holder}})
	return &enginev1.SessionCallResult{Response: &enginev1.SessionCallResult_Error{Error: s.Proto()}}
}

func documentResult(id string) *enginev1.SessionCallResult {
	return &enginev1.SessionCallResult{Response: &enginev1.SessionCallResult_Document{Document: &enginev1.DocumentInfo{DocumentId: id}}}
}

// TestRouting: a call for a document the home engine does not hold is
// resent once to the holder it names, and the route is remembered; a
// NOT_LEASE_HOLDER without a holder reaches the client as 5003 and the
// route is forgotten; a session's call that was resent makes the holder
// the connection's home.
func TestRouting(t *testing.T) {
	a, b := startFakeEngine(t), startFakeEngine(t)
	a.set(func(*enginev1.SessionCall) *enginev1.SessionCallResult { return notHolder(b.addr) })
	b.set(func(c *enginev1.SessionCall) *enginev1.SessionCallResult {
		if c.GetResumeSession() != nil {
			return &enginev1.SessionCallResult{Response: &enginev1.SessionCallResult_ResumeSession{ResumeSession: &enginev1.ResumeSessionResponse{LatestSeq: 7}}}
		}
		return documentResult(c.GetGetDocument().GetDocumentId())
	})
	gw, err := New(Config{Engine: a.addr + "," + b.addr})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	c := gw.newClientConn(localPrincipal, nil)
	defer c.close("client_closed")
	ctx := context.Background()
	callFields := (&enginev1.SessionCall{}).ProtoReflect().Descriptor().Fields()
	get := func() (proto.Message, error) {
		return c.callEngine(ctx, callFields.ByName("get_document"), &enginev1.GetDocumentRequest{DocumentId: "doc-1"})
	}

	res, err := get()
	if err != nil || res.(*enginev1.DocumentInfo).GetDocumentId() != "doc-1" {
		t.Fatalf("get through the home engine = %v, %v; want doc-1 from the holder", res, err)
	}
	if a.count() != 1 || b.count() != 1 {
		t.Errorf("calls: home %d, holder %d; want 1 and 1 (one resend)", a.count(), b.count())
	}
	if _, err := get(); err != nil || a.count() != 1 || b.count() != 2 {
		t.Errorf("second get = %v; calls home %d, holder %d; want it sent to the remembered holder only", err, a.count(), b.count())
	}

	// The holder died: the engine names no holder.
	b.set(func(*enginev1.SessionCall) *enginev1.SessionCallResult { return notHolder("") })
	_, err = get()
	if e := rpcError(err, "op-1"); e.Code != int64(gatewayv1.ErrorCode_ERROR_CODE_ENGINE_UNAVAILABLE) {
		t.Errorf("get while no engine holds the document = %v, want 5003", e)
	}
	before := a.count()
	a.set(func(c *enginev1.SessionCall) *enginev1.SessionCallResult { return documentResult("doc-1") })
	if _, err := get(); err != nil || a.count() != before+1 {
		t.Errorf("get after the route was forgotten = %v; home calls %d, want %d (back to home)", err, a.count(), before+1)
	}

	// A session's call resent to its owner rehomes the connection.
	a.set(func(*enginev1.SessionCall) *enginev1.SessionCallResult { return notHolder(b.addr) })
	b.set(func(c *enginev1.SessionCall) *enginev1.SessionCallResult {
		return &enginev1.SessionCallResult{Response: &enginev1.SessionCallResult_ResumeSession{ResumeSession: &enginev1.ResumeSessionResponse{LatestSeq: 7}}}
	})
	res, err = c.callEngine(ctx, callFields.ByName("resume_session"), &enginev1.ResumeSessionRequest{SessionId: "ses-1"})
	if err != nil || res.(*enginev1.ResumeSessionResponse).GetLatestSeq() != 7 {
		t.Fatalf("resume = %v, %v; want the owner's answer", res, err)
	}
	c.mu.Lock()
	home := c.homeLocked()
	c.mu.Unlock()
	if home != b.addr {
		t.Errorf("home after a session's resend = %s, want the owner %s", home, b.addr)
	}
}

// TestStreamOpenedEarly: a WebSocket connection opens its Session
// stream when it is accepted, before any call, and closes it when it
// ends; a connection closed before its stream opened opens none.
func TestStreamOpenedEarly(t *testing.T) {
	f := startFakeEngine(t)
	gw, err := New(Config{Engine: f.addr})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { gw.Serve(ctx, lis); close(served) }()
	defer func() { cancel(); <-served }()

	ws, _, err := wsstream.Dial(ctx, "ws://"+lis.Addr().String()+"/rpc", wsstream.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.waitStreams(t, 1)
	ws.Close()
	f.waitStreams(t, 0)

	c := gw.newClientConn(localPrincipal, nil)
	c.close("client_closed")
	if _, err := c.engineStream(ctx); !errors.Is(err, errConnClosed) {
		t.Errorf("engineStream after close = %v, want errConnClosed (refused before any stream is opened)", err)
	}
}

func TestRouteKey(t *testing.T) {
	for _, tt := range []struct {
		params    proto.Message
		key       string
		bySession bool
	}{
		{&enginev1.ExecuteBatchRequest{DocumentId: "doc-1", SessionId: proto.String("ses-1")}, "doc-1", false},
		{&enginev1.ResumeSessionRequest{SessionId: "ses-1"}, "ses-1", true},
		{&enginev1.CreateDocumentRequest{}, "", false},
		{nil, "", false},
	} {
		if key, bySession := routeKey(tt.params); key != tt.key || bySession != tt.bySession {
			t.Errorf("routeKey(%v) = %q, %v; want %q, %v", tt.params, key, bySession, tt.key, tt.bySession)
		}
	}
	if got := engineList(" a:1, ,b:2,"); len(got) != 2 || got[0] != "a:1" || got[1] != "b:2" {
		t.Errorf("engineList = %q, want [a:1 b:2]", got)
	}
}

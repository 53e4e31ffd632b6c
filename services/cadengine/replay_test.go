package cadengine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// replaySession is a session that declared approval, with n events
// logged and open approval requests waiting (withdrawn when t ends).
func replaySession(t *testing.T, events, open int) *session {
	t.Helper()
	s := testSession("ses-1")
	s.info.Principal = "alice"
	s.info.Client = &enginev1.ClientInfo{Name: "replay \"test\"", Version: proto.String("1")}
	s.info.Capabilities = &enginev1.ClientCapabilities{ServerRequests: []string{gatewayv1.MethodApproval}}
	s.info.ApprovalPolicy = enginev1.ApprovalPolicy_APPROVAL_POLICY_DESTRUCTIVE
	s.info.CreatedAt = timestamppb.New(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	s.info.Subscriptions = []string{"doc-1", "doc-2"}
	for i := range events {
		if i%3 == 2 {
			s.emit(gatewayv1.EventDocumentChanged, &enginev1.DocumentChangedPayload{DocumentId: "doc-1", Revision: int64(i), OperationId: "op-é\n"})
			continue
		}
		s.emit(gatewayv1.EventBatchProgress, progress(int32(i+1)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	asked := make(chan error, open)
	for i := range open {
		go func() {
			params := &enginev1.ApprovalParams{OperationId: fmt.Sprintf("op-%d", i), Tool: "entity_delete", Summary: "Delete \"1\" entity.", Affected: &enginev1.Affected{Count: 1, Handles: []string{"1F"}}}
			_, err := s.ask(ctx, &enginev1.ServerRequest{Method: gatewayv1.MethodApproval, Params: &enginev1.ServerRequest_Approval{Approval: params}}, params, func() enginev1.CancelReason { return enginev1.CancelReason_CANCEL_REASON_RESOLVED })
			asked <- err
		}()
	}
	t.Cleanup(func() {
		cancel()
		for range open {
			<-asked
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		n := len(s.open)
		s.mu.Unlock()
		if n == open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests open after 10 s, want %d", n, open)
		}
	}
	return s
}

// TestReplayWireJSON: the answers of session.resume and
// session.events.since, written from the wire JSON their events and open
// requests were logged with, are byte for byte what the generated encoder
// writes for the response message, whatever they list; the references to
// their open requests are the ids and methods of those they list.
func TestReplayWireJSON(t *testing.T) {
	for _, tc := range []struct {
		name         string
		events, open int
		lastSeen     int64
	}{
		{"empty", 0, 0, 0},
		{"events only", 5, 0, 0},
		{"open requests only", 0, 3, 0},
		{"both", 20, 4, 0},
		{"after a cursor", 20, 1, 12},
		{"after the newest", 20, 2, 20},
		{"truncated ring", eventRing + 40, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := replaySession(t, tc.events, tc.open)
			st := &streamState{}
			resume := s.resumed(st, tc.lastSeen, "ep-\"1\"")
			events := s.eventsSince(st, tc.lastSeen, "ep-\"1\"")
			wantEvents := min(max(tc.events-int(tc.lastSeen), 0), eventRing)
			if len(resume.Events) != wantEvents || len(resume.OpenRequests) != tc.open {
				t.Fatalf("resumed(%d) lists %d events and %d open requests, want %d and %d", tc.lastSeen, len(resume.Events), len(resume.OpenRequests), wantEvents, tc.open)
			}
			for _, m := range []proto.Message{resume, events} {
				w := m.(wireWriter)
				got, err := w.appendWire(make([]byte, 0, w.wireSize()))
				if err != nil {
					t.Fatalf("appendWire(%T) = %v", m, err)
				}
				want, err := contract.Marshal(m.ProtoReflect().Interface())
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("appendWire(%T) =\n%s\nwant (the generated encoder's)\n%s", m, got, want)
				}
				refs := w.openRequestRefs()
				if len(refs) != len(resume.OpenRequests) {
					t.Fatalf("openRequestRefs(%T) = %d references, want %d", m, len(refs), len(resume.OpenRequests))
				}
				for i, o := range resume.OpenRequests {
					if want := (&enginev1.OpenServerRequest{Id: o.Id, Method: o.Method}); !proto.Equal(refs[i], want) {
						t.Errorf("openRequestRefs(%T)[%d] = %v, want %v (id and method)", m, i, refs[i], want)
					}
				}
			}
		})
	}
}

// TestReplayFields: the replay's answers are written member by member
// (replay.write); a field added to either response must be written there
// too.
func TestReplayFields(t *testing.T) {
	for _, tc := range []struct {
		m    proto.Message
		want int
	}{
		{&enginev1.ResumeSessionResponse{}, 6},
		{&enginev1.GetSessionEventsResponse{}, 5},
	} {
		if got := tc.m.ProtoReflect().Descriptor().Fields().Len(); got != tc.want {
			t.Errorf("%T has %d fields; resumeAnswer and eventsAnswer write %d: write the new ones in replay.write and appendWire", tc.m, got, tc.want)
		}
	}
}

package cadengine

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// eventRing is how many events a session keeps for replay.
const eventRing = 512

// errNotDeclared is a server request the session's client did not declare.
var errNotDeclared = errors.New("the client does not implement this server request")

// errWithdrawn is a server request withdrawn before the client answered.
var errWithdrawn = errors.New("server request withdrawn")

// session is a client session owned by the engine: identity, event log,
// open server requests and the stream it is attached to.
type session struct {
	info        *enginev1.Session
	resumeToken string

	mu       sync.Mutex // guards everything below
	events   []*enginev1.Event
	latest   int64 // seq of the newest event
	open     map[string]*openRequest
	order    []string // open request ids, oldest first
	attached *streamState
}

// openRequest is a server request waiting for the client.
type openRequest struct {
	frame  *enginev1.ServerRequest
	params *structpb.Struct
	answer chan *enginev1.ServerRequestAnswer // buffered 1; written once
}

// sessions is the engine's session registry.
type sessions struct {
	epoch string
	now   func() time.Time

	mu   sync.Mutex // guards byID
	byID map[string]*session
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{epoch: "ep-" + randomHex(8), now: now, byID: map[string]*session{}}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // cannot happen on supported platforms
	}
	return hex.EncodeToString(b)
}

func (ss *sessions) create(principal string, req *enginev1.CreateSessionRequest) *session {
	s := &session{
		info: &enginev1.Session{
			SessionId:      "ses-" + randomHex(12),
			Principal:      principal,
			Client:         req.GetClient(),
			Capabilities:   req.GetCapabilities(),
			ApprovalPolicy: req.GetApprovalPolicy(),
			CreatedAt:      timestamppb.New(ss.now()),
		},
		resumeToken: "rt-" + randomHex(24),
		open:        map[string]*openRequest{},
	}
	if s.info.Capabilities == nil {
		s.info.Capabilities = &enginev1.ClientCapabilities{}
	}
	if s.info.ApprovalPolicy == enginev1.ApprovalPolicy_APPROVAL_POLICY_UNSPECIFIED {
		s.info.ApprovalPolicy = enginev1.ApprovalPolicy_APPROVAL_POLICY_NONE
	}
	ss.mu.Lock()
	ss.byID[s.info.SessionId] = s
	ss.mu.Unlock()
	return s
}

// owned returns the session if principal owns it; with a token, the token
// must match too. Any mismatch is errSessionNotFound, indistinguishable from
// a session that does not exist.
func (ss *sessions) owned(principal, id string, token *string) (*session, error) {
	ss.mu.Lock()
	s, ok := ss.byID[id]
	ss.mu.Unlock()
	if !ok || s.info.Principal != principal {
		return nil, errSessionNotFound
	}
	if token != nil && subtle.ConstantTimeCompare([]byte(*token), []byte(s.resumeToken)) != 1 {
		return nil, errSessionNotFound
	}
	return s, nil
}

func (ss *sessions) remove(id string) {
	ss.mu.Lock()
	delete(ss.byID, id)
	ss.mu.Unlock()
}

func (ss *sessions) count() int64 {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return int64(len(ss.byID))
}

// attach makes st the session's stream; the previous one, if any, no
// longer receives its frames.
func (s *session) attach(st *streamState) {
	s.mu.Lock()
	s.attached = st
	s.mu.Unlock()
}

// detach forgets st if it is still the attached stream.
func (s *session) detach(st *streamState) {
	s.mu.Lock()
	if s.attached == st {
		s.attached = nil
	}
	s.mu.Unlock()
}

func (s *session) snapshot() *enginev1.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return proto.Clone(s.info).(*enginev1.Session)
}

func (s *session) subscribe(docs []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, d := range s.info.Subscriptions {
		seen[d] = true
	}
	for _, d := range docs {
		if !seen[d] {
			s.info.Subscriptions = append(s.info.Subscriptions, d)
			seen[d] = true
		}
	}
	return append([]string(nil), s.info.Subscriptions...)
}

// emit appends an event to the log and sends it to the attached stream.
func (s *session) emit(typ string, payload proto.Message) {
	data, err := contract.ToStruct(payload)
	if err != nil {
		return // payloads are engine-made; encoding cannot fail
	}
	s.mu.Lock()
	s.latest++
	ev := &enginev1.Event{SessionId: s.info.SessionId, Seq: s.latest, Type: typ, Payload: data}
	s.events = append(s.events, ev)
	if len(s.events) > eventRing {
		s.events = s.events[len(s.events)-eventRing:]
	}
	st := s.attached
	s.mu.Unlock()
	if st != nil {
		st.sendFrame(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: ev}})
	}
}

// since returns the events after lastSeen, the newest seq, and whether
// events after lastSeen were lost (fell off the ring).
func (s *session) since(lastSeen int64) ([]*enginev1.Event, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldest := s.latest + 1
	if len(s.events) > 0 {
		oldest = s.events[0].Seq
	}
	truncated := lastSeen+1 < oldest && lastSeen < s.latest
	var out []*enginev1.Event
	for _, ev := range s.events {
		if ev.Seq > lastSeen {
			out = append(out, ev)
		}
	}
	return out, s.latest, truncated
}

// openRequests lists the open server requests, oldest first.
func (s *session) openRequests() []*enginev1.OpenServerRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*enginev1.OpenServerRequest, 0, len(s.order))
	for _, id := range s.order {
		r := s.open[id]
		out = append(out, &enginev1.OpenServerRequest{Id: id, Method: r.frame.GetMethod(), Params: r.params})
	}
	return out
}

// declared reports whether the client implements a server-request method.
func (s *session) declared(method string) bool {
	for _, m := range s.info.GetCapabilities().GetServerRequests() {
		if m == method {
			return true
		}
	}
	return false
}

// ask sends a server request to the client and waits for the answer. When
// ctx ends first the request is withdrawn with reason (the client gets
// request.cancel) and ask returns errWithdrawn.
func (s *session) ask(ctx context.Context, frame *enginev1.ServerRequest, params proto.Message, reason func() enginev1.CancelReason) (*enginev1.ServerRequestAnswer, error) {
	if !s.declared(frame.GetMethod()) {
		return nil, errNotDeclared
	}
	// 128 random bits: unique across sessions, gateways and restarts.
	frame.Id = "srq-" + randomHex(16)
	data, err := contract.ToStruct(params)
	if err != nil {
		return nil, err
	}
	r := &openRequest{frame: frame, params: data, answer: make(chan *enginev1.ServerRequestAnswer, 1)}
	s.mu.Lock()
	s.open[frame.Id] = r
	s.order = append(s.order, frame.Id)
	st := s.attached
	s.mu.Unlock()
	if st != nil {
		st.sendFrame(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequest{ServerRequest: frame}})
	}
	select {
	case a := <-r.answer:
		return a, nil
	case <-ctx.Done():
		s.withdraw(frame.Id, reason())
		return nil, errWithdrawn
	}
}

// withdraw closes an open request and tells the attached client.
func (s *session) withdraw(id string, reason enginev1.CancelReason) {
	s.mu.Lock()
	r, ok := s.open[id]
	if ok {
		s.closeLocked(id)
	}
	st := s.attached
	s.mu.Unlock()
	if ok && st != nil {
		st.sendFrame(&enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequestCancel{ServerRequestCancel: &enginev1.RequestCancelParams{
			SessionId: s.info.SessionId, Id: id, Method: r.frame.GetMethod(), Reason: reason,
		}}})
	}
}

// answer delivers a client's answer to an open request exactly once; an
// answer to an unknown, answered or withdrawn id changes nothing.
func (s *session) answer(a *enginev1.ServerRequestAnswer) bool {
	s.mu.Lock()
	r, ok := s.open[a.GetId()]
	if ok {
		s.closeLocked(a.GetId())
	}
	s.mu.Unlock()
	if ok {
		r.answer <- a
	}
	return ok
}

func (s *session) closeLocked(id string) {
	delete(s.open, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
}

// withdrawAll withdraws every open request with reason.
func (s *session) withdrawAll(reason enginev1.CancelReason) {
	for _, r := range s.openRequests() {
		s.withdraw(r.GetId(), reason)
	}
}

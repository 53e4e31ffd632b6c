package cadengine

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// session is a client session owned by the engine.
type session struct {
	info        *enginev1.Session
	resumeToken string
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

func (ss *sessions) create(principal string, req *enginev1.CreateSessionRequest) *enginev1.CreateSessionResponse {
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
	return &enginev1.CreateSessionResponse{SessionId: s.info.SessionId, ResumeToken: s.resumeToken, Epoch: ss.epoch}
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

func (ss *sessions) subscribe(s *session, docs []string) []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
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

func (ss *sessions) close(id string) {
	ss.mu.Lock()
	delete(ss.byID, id)
	ss.mu.Unlock()
}

func (ss *sessions) snapshot(s *session) *enginev1.Session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return proto.Clone(s.info).(*enginev1.Session)
}

func (ss *sessions) count() int64 {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return int64(len(ss.byID))
}

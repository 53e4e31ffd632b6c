package cadengine

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
)

// eventRing is how many events a session keeps for replay.
const eventRing = 512

// seqSaveEvery is how many events may pass between two saves of a
// session's sequence number. After a restart the sequence resumes this far
// past the saved one, so it never goes back even after a crash.
const seqSaveEvery = 256

// errNotDeclared is a server request the session's client did not declare.
var errNotDeclared = errors.New("the client does not implement this server request")

// errWithdrawn is a server request withdrawn before the client answered.
var errWithdrawn = errors.New("server request withdrawn")

// session is a client session owned by the engine: identity, event log,
// open server requests, the stream it is attached to and the streams
// joined to it as more surfaces (session.attach).
type session struct {
	info        *enginev1.Session
	resumeToken string
	// persist saves the session's state (set by the registry).
	persist func()

	mu sync.Mutex // guards everything below
	// events is the ring, oldest first. It only grows at its end and is
	// cut at its start: an element once in it never changes, so since
	// may hand out a part of it, capped, instead of a copy.
	events []loggedEvent
	latest int64 // seq of the newest event
	saved  int64 // latest as last saved
	// On a shared store (eventLog): issued is the seq of the newest event
	// emitted, latest of the newest written; handled of the newest written
	// or given up, and progress is closed when handled grows.
	issued, handled int64
	progress        chan struct{}
	// stale are requests open when the engine last stopped: withdrawn with
	// reason shutdown when the client next resumes.
	stale []*enginev1.OpenServerRequest
	// work cancels the session's running calls (session.interrupt).
	work map[*context.CancelCauseFunc]struct{}
	open map[string]*openRequest
	// order lists the open requests, oldest first, each with what a
	// replay and a save read of it: in one array, so that a resume's
	// replay of a hundred reads no scattered request.
	order []listing
	// relayedClosed are relayed requests answered or withdrawn here, which
	// their askers may still tell again for a moment: not relayed again.
	relayedClosed map[string]struct{}
	// attached is the stream of the session's own connection (create or
	// resume); a resume elsewhere takes its place.
	attached *streamState
	// surfaces are the streams joined by session.attach, with the
	// server-request methods each answers.
	surfaces map[*streamState][]string

	// claimMu makes the session's claims (handoffs.claim) run one at a
	// time; held while handoffs are read and queued.
	claimMu   sync.Mutex
	handoffMu sync.Mutex // guards claimed and written
	// claimed are the handoffs from other engines whose events are
	// queued here and not yet written; written those written since the
	// last claim started.
	claimed, written map[string]struct{}
}

// openRequest is a server request waiting for the client.
type openRequest struct {
	frame  *enginev1.ServerRequest
	params []byte                             // the params as the client gets them (JSON)
	answer chan *enginev1.ServerRequestAnswer // buffered 1; written once
	gone   chan struct{}                      // closed when withdrawn
	// remote, for a request another engine asked (relayed), takes the
	// answer or withdrawal back to it instead.
	remote *remoteLink
}

// listing is an open request in session.order.
type listing struct {
	id, method string
	relayed    bool          // another engine asked it (openRelayed)
	listed     loggedRequest // the request as a replay lists it
}

// listingOf is r's listing.
func listingOf(r *openRequest) listing {
	f := r.frame
	return listing{id: f.Id, method: f.GetMethod(), relayed: r.remote != nil, listed: logRequest(f.Id, f.GetMethod(), r.params)}
}

// sessions is the engine's session registry; sessions survive restarts in
// the store.
type sessions struct {
	epoch string
	now   func() time.Time
	store store.Store
	log   *slog.Logger

	// leases, on a shared store, makes one engine at a time own each
	// session (the lease on sessionKey): nil on a store of one engine.
	leases sessionLeases
	shared store.Shared // the store, with leases: a session taken over is read from it alone
	// events writes the sessions' events to the shared store before they
	// are sent; nil on a store of one engine.
	events *eventLog
	// remote carries server requests between this engine and the others;
	// nil on a store of one engine.
	remote *remoteRequests
	// handoffs carries the events of calls between this engine and the
	// sessions' owners; nil on a store of one engine.
	handoffs *handoffs

	mu   sync.Mutex // guards byID
	byID map[string]*session
}

// sessionLeases is how the registry takes sessions' leases (the engine's
// HoldLease, HoldsLease, Lease and DropLease).
type sessionLeases interface {
	HoldsLease(key string) bool
	Lease(key string) (store.Lease, bool)
	HoldLease(ctx context.Context, key string) error
	DropLease(ctx context.Context, key string)
}

// sessionKey is the key of a session's lease, beside documents' leases.
func sessionKey(id string) string { return "session:" + id }

// leaseTimeout bounds taking a session's lease and reading it.
const leaseTimeout = 10 * time.Second

func newSessions(now func() time.Time, store store.Store, log *slog.Logger) *sessions {
	return &sessions{epoch: "ep-" + randomHex(8), now: now, store: store, log: log, byID: map[string]*session{}}
}

// savedSession is a session's stored state (an internal format, not a wire
// contract).
type savedSession struct {
	Info        []byte         `json:"info"` // enginev1.Session, binary
	ResumeToken string         `json:"resume_token"`
	LatestSeq   int64          `json:"latest_seq"`
	Open        []savedRequest `json:"open,omitempty"`
}

type savedRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`
}

// load restores the stored sessions. Their event logs are gone (truncated
// for anyone resuming with an older cursor), their sequences resume past
// the saved ones, and their open requests are stale. (On a shared store
// each is read again, with its event log, when the engine takes it over.)
func (ss *sessions) load(ctx context.Context) error {
	stored, err := ss.store.LoadSessions(ctx)
	if err != nil {
		return fmt.Errorf("load sessions: %w", err)
	}
	for id, data := range stored {
		s, err := ss.restore(data)
		if err != nil {
			ss.log.Error("skipping unreadable stored session", "session_id", id)
			continue
		}
		s.latest += seqSaveEvery
		ss.byID[id] = s
	}
	return nil
}

// restore rebuilds a session from its stored state: its event log is
// empty, its sequence is the saved one, its open requests are stale.
func (ss *sessions) restore(data []byte) (*session, error) {
	info, saved, err := decodeSession(data)
	if err != nil {
		return nil, err
	}
	s := &session{info: info, resumeToken: saved.ResumeToken, open: map[string]*openRequest{}}
	s.persist = func() { ss.save(context.Background(), s) }
	s.latest = saved.LatestSeq
	for _, r := range saved.Open {
		s.stale = append(s.stale, &enginev1.OpenServerRequest{Id: r.ID, Method: r.Method})
	}
	return s, nil
}

// decodeSession reads a session's stored state.
func decodeSession(data []byte) (*enginev1.Session, *savedSession, error) {
	saved := new(savedSession)
	info := new(enginev1.Session)
	if err := json.Unmarshal(data, saved); err != nil {
		return nil, nil, err
	}
	if err := proto.Unmarshal(saved.Info, info); err != nil {
		return nil, nil, err
	}
	return info, saved, nil
}

// loaded is session id as this engine has it, owned or not; nil when it
// has none.
func (ss *sessions) loaded(id string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byID[id]
}

// ownedHere is session id when this engine owns it (holds its lease and
// has it loaded), else nil.
func (ss *sessions) ownedHere(id string) *session {
	if ss.leases == nil || !ss.leases.HoldsLease(sessionKey(id)) {
		return nil
	}
	return ss.loaded(id)
}

// takeOver takes the lease of session id, which this engine does not
// own (another engine did, or it was never loaded here), reads the
// session afresh from the store, with its event log, and relays the
// requests other engines asked of it that are still open. A live owner
// elsewhere is NOT_LEASE_HOLDER, for the gateway to resend the call
// there (or, for a batch on its document's holder, to ask through the
// store: remoteCaller).
func (ss *sessions) takeOver(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaseTimeout)
	defer cancel()
	if err := ss.leases.HoldLease(ctx, sessionKey(id)); err != nil {
		return err
	}
	data, err := ss.shared.LoadSession(ctx, id)
	if err != nil {
		return fmt.Errorf("load session %s: %w", id, err)
	}
	if data == nil {
		ss.leases.DropLease(ctx, sessionKey(id))
		ss.mu.Lock()
		delete(ss.byID, id)
		ss.mu.Unlock()
		return errSessionNotFound
	}
	s, err := ss.restore(data)
	if err != nil {
		return fmt.Errorf("load session %s: %w", id, err)
	}
	stored, lost, err := ss.shared.LoadEvents(ctx, id)
	if err != nil {
		return fmt.Errorf("load the events of session %s: %w", id, err)
	}
	s.restoreEvents(stored, lost)
	ss.mu.Lock()
	if old := ss.byID[id]; old != nil {
		// A copy of an earlier ownership here: seq goes on past it.
		old.mu.Lock()
		s.latest = max(s.latest, old.latest)
		s.issued, s.handled = s.latest, s.latest
		old.mu.Unlock()
	}
	ss.byID[id] = s
	ss.mu.Unlock()
	if ss.remote != nil {
		if err := ss.remote.relayOpen(ctx, s); err != nil {
			ss.log.Error("relay the open requests of a session taken over", "session_id", id, "error", err)
		}
	}
	if ss.handoffs != nil {
		ss.handoffs.claim(s) // what its former owner left unemitted
	}
	return nil
}

// save stores a session's state durably; failures are logged (the session
// lives on in memory).
func (ss *sessions) save(ctx context.Context, s *session) {
	s.mu.Lock()
	info, err := proto.Marshal(s.info)
	// On a shared store, issued: the event log saves the seq before it
	// sends events past the saved one (see eventLog.flush).
	saved := savedSession{Info: info, ResumeToken: s.resumeToken, LatestSeq: max(s.latest, s.issued)}
	for _, o := range s.order {
		if !o.relayed { // relayed ones stay open in the store
			saved.Open = append(saved.Open, savedRequest{ID: o.id, Method: o.method})
		}
	}
	for _, r := range s.stale {
		saved.Open = append(saved.Open, savedRequest{ID: r.GetId(), Method: r.GetMethod()})
	}
	s.saved = saved.LatestSeq
	s.mu.Unlock()
	data, jerr := json.Marshal(saved)
	if err == nil {
		err = jerr
	}
	if err == nil {
		err = ss.store.SaveSession(context.WithoutCancel(ctx), s.info.GetSessionId(), data)
	}
	if err != nil {
		ss.log.Error("save session", "session_id", s.info.GetSessionId(), "error", err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // cannot happen on supported platforms
	}
	return hex.EncodeToString(b)
}

func (ss *sessions) create(ctx context.Context, principal string, req *enginev1.CreateSessionRequest) *session {
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
	s.persist = func() { ss.save(context.Background(), s) }
	if s.info.Capabilities == nil {
		s.info.Capabilities = &enginev1.ClientCapabilities{}
	}
	if s.info.ApprovalPolicy == enginev1.ApprovalPolicy_APPROVAL_POLICY_UNSPECIFIED {
		s.info.ApprovalPolicy = enginev1.ApprovalPolicy_APPROVAL_POLICY_NONE
	}
	if ss.leases != nil {
		if err := ss.leases.HoldLease(ctx, sessionKey(s.info.SessionId)); err != nil {
			ss.log.Error("take a new session's lease", "session_id", s.info.SessionId, "error", err)
		}
	}
	ss.mu.Lock()
	ss.byID[s.info.SessionId] = s
	ss.mu.Unlock()
	ss.save(ctx, s)
	return s
}

// owned returns the session if principal owns it; with a token, the token
// must match too. Any mismatch is errSessionNotFound, indistinguishable from
// a session that does not exist.
func (ss *sessions) owned(principal, id string, token *string) (*session, error) {
	if ss.leases != nil && !ss.leases.HoldsLease(sessionKey(id)) {
		if err := ss.takeOver(id); err != nil {
			return nil, err
		}
	}
	s := ss.loaded(id)
	if s == nil || s.info.Principal != principal {
		return nil, errSessionNotFound
	}
	if token != nil && subtle.ConstantTimeCompare([]byte(*token), []byte(s.resumeToken)) != 1 {
		return nil, errSessionNotFound
	}
	return s, nil
}

func (ss *sessions) remove(ctx context.Context, id string) {
	if s := ss.loaded(id); s != nil {
		ss.settle(s) // no event lands after the delete
	}
	ss.mu.Lock()
	delete(ss.byID, id)
	ss.mu.Unlock()
	if err := ss.store.DeleteSession(context.WithoutCancel(ctx), id); err != nil {
		ss.log.Error("delete session", "session_id", id, "error", err)
	}
}

func (ss *sessions) count() int64 {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return int64(len(ss.byID))
}

// attach makes st the session's stream (it is no longer one of its
// surfaces); the previous one, if any, is detached: it no longer receives
// the session's frames and its answers change nothing.
func (s *session) attach(st *streamState) {
	s.mu.Lock()
	old := s.attached
	s.attached = st
	delete(s.surfaces, st)
	s.mu.Unlock()
	if old != nil && old != st {
		old.release(s)
	}
}

// addSurface joins st to the session as one more surface answering
// methods (if st was the session's own stream, it is a surface now).
func (s *session) addSurface(st *streamState, methods []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attached == st {
		s.attached = nil
	}
	if s.surfaces == nil {
		s.surfaces = map[*streamState][]string{}
	}
	s.surfaces[st] = methods
}

// detach forgets st, whether it is the attached stream or a surface.
func (s *session) detach(st *streamState) {
	s.mu.Lock()
	if s.attached == st {
		s.attached = nil
	}
	delete(s.surfaces, st)
	s.mu.Unlock()
}

// join binds st to s as a surface (session.attach), leaving any session
// it was bound to before.
func (st *streamState) join(s *session, methods []string) {
	st.mu.Lock()
	old := st.bound
	st.bound = s
	st.mu.Unlock()
	if old != nil && old != s {
		old.detach(st)
	}
	s.addSurface(st, methods)
}

// release unbinds st from s, which another stream has taken over.
func (st *streamState) release(s *session) {
	st.mu.Lock()
	if st.bound == s {
		st.bound = nil
	}
	st.mu.Unlock()
}

// attachSurface answers session.attach: the stream joins the session of
// its principal whose resume token it holds, as a surface answering the
// methods it declares (by default those the session declared), and
// learns what a resume would tell it.
func (s *Server) attachSurface(st *streamState, req *enginev1.AttachSessionRequest) (*resumeAnswer, error) {
	token := req.GetResumeToken()
	sess, err := s.sessions.owned(st.principal, req.GetSessionId(), &token)
	if err != nil {
		return nil, err
	}
	methods := sess.snapshot().GetCapabilities().GetServerRequests()
	if req.Capabilities != nil {
		methods = append([]string(nil), req.Capabilities.GetServerRequests()...)
	}
	st.join(sess, methods)
	s.sessions.settle(sess)
	return sess.resumed(st, req.GetLastSeen(), s.sessions.epoch), nil
}

// resumed is what a stream that (re)joins the session learns: the session,
// the events after lastSeen and the open requests the stream answers.
func (s *session) resumed(st *streamState, lastSeen int64, epoch string) *resumeAnswer {
	r := s.replayFor(st, lastSeen, epoch)
	return &resumeAnswer{
		ResumeSessionResponse: &enginev1.ResumeSessionResponse{
			Session:      s.snapshot(),
			Events:       r.eventMessages(),
			LatestSeq:    r.latest,
			Truncated:    r.truncated,
			Epoch:        epoch,
			OpenRequests: r.requestMessages(),
		},
		replay: r,
	}
}

// eventsSince answers session.events.since: the events after lastSeen and
// the open requests st answers.
func (s *session) eventsSince(st *streamState, lastSeen int64, epoch string) *eventsAnswer {
	r := s.replayFor(st, lastSeen, epoch)
	return &eventsAnswer{
		GetSessionEventsResponse: &enginev1.GetSessionEventsResponse{
			Events:       r.eventMessages(),
			LatestSeq:    r.latest,
			Truncated:    r.truncated,
			Epoch:        epoch,
			OpenRequests: r.requestMessages(),
		},
		replay: r,
	}
}

// replayFor is what a replay to st lists: the events after lastSeen and
// the open requests st answers.
func (s *session) replayFor(st *streamState, lastSeen int64, epoch string) replay {
	events, latest, truncated := s.since(lastSeen)
	return replay{events: events, open: s.openRequestsFor(st), latest: latest, truncated: truncated, epoch: epoch}
}

// answersLocked reports whether st receives and may answer the session's
// requests of method: the attached stream those the session declared, a
// surface those it declared.
func (s *session) answersLocked(st *streamState, method string) bool {
	if methods, ok := s.surfaces[st]; ok {
		return slices.Contains(methods, method)
	}
	return st == s.attached && slices.Contains(s.info.GetCapabilities().GetServerRequests(), method)
}

// recipientsLocked are the streams that receive the session's requests of
// method.
func (s *session) recipientsLocked(method string) []*streamState {
	var out []*streamState
	if s.attached != nil && s.answersLocked(s.attached, method) {
		out = append(out, s.attached)
	}
	for st, methods := range s.surfaces {
		if slices.Contains(methods, method) {
			out = append(out, st)
		}
	}
	return out
}

// streamsLocked are the streams that receive the session's events: the
// attached one and every surface.
func (s *session) streamsLocked() []*streamState {
	out := make([]*streamState, 0, 1+len(s.surfaces))
	if s.attached != nil {
		out = append(out, s.attached)
	}
	for st := range s.surfaces {
		out = append(out, st)
	}
	return out
}

// sendAll sends one frame to each of streams.
func sendAll(streams []*streamState, resp *enginev1.SessionResponse) {
	for _, st := range streams {
		st.sendFrame(resp)
	}
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

// emit appends an event to the log and sends it to the attached stream. It
// reports whether the sequence number is due to be saved.
func (s *session) emit(typ string, payload proto.Message) (saveDue bool) {
	data, err := contract.Marshal(payload)
	if err != nil {
		return false // payloads are engine-made; encoding cannot fail
	}
	s.mu.Lock()
	s.latest++
	saveDue = s.latest-s.saved >= seqSaveEvery
	ev := &enginev1.Event{SessionId: s.info.SessionId, Seq: s.latest, Type: typ, PayloadJson: data}
	s.events = append(s.events, logEvent(ev))
	if len(s.events) > eventRing {
		s.events = s.events[len(s.events)-eventRing:]
	}
	streams := s.streamsLocked()
	s.mu.Unlock()
	sendAll(streams, &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_Event{Event: ev}})
	return saveDue
}

// withdrawStale withdraws, with reason shutdown, the requests that were open
// when the engine last stopped; called when a client resumes.
func (s *session) withdrawStale() {
	s.mu.Lock()
	stale := s.stale
	s.stale = nil
	recipients := make([][]*streamState, len(stale))
	for i, r := range stale {
		recipients[i] = s.recipientsLocked(r.GetMethod())
	}
	s.mu.Unlock()
	for i, r := range stale {
		sendAll(recipients[i], &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequestCancel{ServerRequestCancel: &enginev1.RequestCancelParams{
			SessionId: s.info.SessionId, Id: r.GetId(), Method: r.GetMethod(), Reason: enginev1.CancelReason_CANCEL_REASON_SHUTDOWN,
		}}})
	}
}

// since returns the events after lastSeen, the newest seq, and whether
// events after lastSeen were lost (fell off the ring).
func (s *session) since(lastSeen int64) ([]loggedEvent, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldest := s.latest + 1
	if len(s.events) > 0 {
		oldest = s.events[0].Seq
	}
	truncated := lastSeen+1 < oldest && lastSeen < s.latest
	n := len(s.events)
	// The ring is in seq order; a search reads a few of its events, where
	// a walk back from the newest read every one a replay lists.
	first := sort.Search(n, func(i int) bool { return s.events[i].Seq > lastSeen })
	return s.events[first:n:n], s.latest, truncated // appends go past n
}

// openRequestsFor lists the open server requests st would receive, oldest
// first: for a surface those of the methods it declared, for any other
// stream those of the methods the session declared.
func (s *session) openRequestsFor(st *streamState) []loggedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	methods, surface := s.surfaces[st]
	if !surface {
		methods = s.info.GetCapabilities().GetServerRequests()
	}
	out := make([]loggedRequest, 0, len(s.order))
	for _, o := range s.order {
		if slices.Contains(methods, o.method) {
			out = append(out, o.listed)
		}
	}
	return out
}

// declaredLocked reports whether someone implements a server-request
// method: the session's client, or a surface attached now.
func (s *session) declaredLocked(method string) bool {
	if slices.Contains(s.info.GetCapabilities().GetServerRequests(), method) {
		return true
	}
	for _, methods := range s.surfaces {
		if slices.Contains(methods, method) {
			return true
		}
	}
	return false
}

// ask sends a server request to the client and waits for the answer. When
// ctx ends first the request is withdrawn with reason (the client gets
// request.cancel) and ask returns errWithdrawn.
func (s *session) ask(ctx context.Context, frame *enginev1.ServerRequest, params proto.Message, reason func() enginev1.CancelReason) (*enginev1.ServerRequestAnswer, error) {
	s.mu.Lock()
	declared := s.declaredLocked(frame.GetMethod())
	s.mu.Unlock()
	if !declared {
		return nil, errNotDeclared
	}
	// 128 random bits: unique across sessions, gateways and restarts.
	frame.Id = "srq-" + randomHex(16)
	setSessionID(params, s.info.SessionId)
	data, err := contract.Marshal(params)
	if err != nil {
		return nil, err
	}
	r := &openRequest{frame: frame, params: data, answer: make(chan *enginev1.ServerRequestAnswer, 1), gone: make(chan struct{})}
	listed := listingOf(r)
	s.mu.Lock()
	s.open[frame.Id] = r
	s.order = append(s.order, listed)
	recipients := s.recipientsLocked(frame.GetMethod())
	s.mu.Unlock()
	s.persist()
	defer s.persist()
	sendAll(recipients, &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequest{ServerRequest: frame}})
	select {
	case a := <-r.answer:
		return a, nil
	case <-r.gone:
		return nil, errWithdrawn
	case <-ctx.Done():
		s.withdraw(frame.Id, reason())
		return nil, errWithdrawn
	}
}

// withdraw closes an open request and tells every stream that received
// it, and for a relayed request the engine that asked it.
func (s *session) withdraw(id string, reason enginev1.CancelReason) {
	if r := s.withdrawn(id, reason); r != nil && r.remote != nil {
		r.remote.withdraw(reason)
	}
}

// withdrawn closes an open request and tells every stream that received
// it; it returns the request, or nil when it was not open.
func (s *session) withdrawn(id string, reason enginev1.CancelReason) *openRequest {
	s.mu.Lock()
	r, ok := s.open[id]
	var recipients []*streamState
	if ok {
		s.closeLocked(id)
		close(r.gone)
		recipients = s.recipientsLocked(r.frame.GetMethod())
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	sendAll(recipients, s.cancelFrame(id, r.frame.GetMethod(), reason))
	return r
}

// maxRelayedClosed bounds session.relayedClosed: an asker tells an open
// request again every remotePoll, and stops once it reads the answer.
const maxRelayedClosed = 256

// relayedIDs lists the open requests of the session that other engines
// asked.
func (s *session) relayedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, o := range s.order {
		if o.relayed {
			ids = append(ids, o.id)
		}
	}
	return ids
}

// openRelayed makes a request another engine asked one of the session's
// open requests and sends it to the streams that answer its method.
func (s *session) openRelayed(frame *enginev1.ServerRequest, params []byte, link *remoteLink) {
	r := &openRequest{frame: frame, params: params, answer: make(chan *enginev1.ServerRequestAnswer, 1), gone: make(chan struct{}), remote: link}
	listed := listingOf(r)
	s.mu.Lock()
	_, dup := s.open[frame.Id]
	_, closed := s.relayedClosed[frame.Id]
	if dup || closed {
		s.mu.Unlock()
		return
	}
	s.open[frame.Id] = r
	s.order = append(s.order, listed)
	recipients := s.recipientsLocked(frame.GetMethod())
	s.mu.Unlock()
	sendAll(recipients, &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequest{ServerRequest: frame}})
}

// cancelFrame withdraws request id of method, for reason.
func (s *session) cancelFrame(id, method string, reason enginev1.CancelReason) *enginev1.SessionResponse {
	return &enginev1.SessionResponse{Frame: &enginev1.SessionResponse_ServerRequestCancel{ServerRequestCancel: &enginev1.RequestCancelParams{
		SessionId: s.info.SessionId, Id: id, Method: method, Reason: reason,
	}}}
}

// answer delivers an answer from stream from to an open request exactly
// once: the first answer from the attached stream or a surface that
// receives the request wins, and every other stream that received it is
// told the request is withdrawn (reason resolved). An answer to an
// unknown, answered or withdrawn id, or from any other stream, changes
// nothing.
func (s *session) answer(from *streamState, a *enginev1.ServerRequestAnswer) bool {
	s.mu.Lock()
	r, ok := s.open[a.GetId()]
	ok = ok && s.answersLocked(from, r.frame.GetMethod())
	var others []*streamState
	if ok {
		s.closeLocked(a.GetId())
		for _, st := range s.recipientsLocked(r.frame.GetMethod()) {
			if st != from {
				others = append(others, st)
			}
		}
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	if r.remote != nil {
		r.remote.answer(a)
	} else {
		r.answer <- a
	}
	sendAll(others, s.cancelFrame(a.GetId(), r.frame.GetMethod(), enginev1.CancelReason_CANCEL_REASON_RESOLVED))
	return true
}

func (s *session) closeLocked(id string) {
	if r := s.open[id]; r != nil && r.remote != nil {
		if len(s.relayedClosed) >= maxRelayedClosed || s.relayedClosed == nil {
			s.relayedClosed = map[string]struct{}{} // older ids are told no more
		}
		s.relayedClosed[id] = struct{}{}
	}
	delete(s.open, id)
	if i := slices.IndexFunc(s.order, func(o listing) bool { return o.id == id }); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
}

// withdrawAll withdraws every open request with reason.
func (s *session) withdrawAll(reason enginev1.CancelReason) {
	s.mu.Lock()
	ids := make([]string, len(s.order))
	for i, o := range s.order {
		ids[i] = o.id
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.withdraw(id, reason)
	}
}

// all returns every session.
func (ss *sessions) all() []*session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]*session, 0, len(ss.byID))
	for _, s := range ss.byID {
		out = append(out, s)
	}
	return out
}

// setSessionID fills the session_id field of server-request params.
func setSessionID(params proto.Message, id string) {
	m := params.ProtoReflect()
	if fd := m.Descriptor().Fields().ByName("session_id"); fd != nil {
		m.Set(fd, protoreflect.ValueOfString(id))
	}
}

// documentChanged tells every session subscribed to a document that it has
// a new revision.
func (ss *sessions) documentChanged(documentID string, revision int64, operationID string) {
	payload := &enginev1.DocumentChangedPayload{DocumentId: documentID, Revision: revision, OperationId: operationID}
	for _, s := range ss.all() {
		if s.subscribed(documentID) {
			ss.emit(s, gatewayv1.EventDocumentChanged, payload)
		}
	}
}

// settle waits, on a shared store, until the events s emitted so far are
// written and sent: what answers a call of the session (its result, a
// resume, events.since) then shows every event emitted before it. On a
// store of one engine events are sent as they are emitted.
func (ss *sessions) settle(s *session) {
	if ss.events != nil {
		ss.events.settle(s)
	}
}

// emit records an event of s: on a shared store through the event log,
// which writes it before it is sent; else at once, saving the sequence
// number when due.
func (ss *sessions) emit(s *session, typ string, payload proto.Message) {
	if ss.events != nil {
		ss.events.emit(s, typ, payload)
		return
	}
	if s.emit(typ, payload) {
		ss.save(context.Background(), s)
	}
}

func (s *session) subscribed(documentID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.info.GetSubscriptions() {
		if d == documentID {
			return true
		}
	}
	return false
}

// track registers a running call of the session; the returned function
// unregisters it.
func (s *session) track(cancel context.CancelCauseFunc) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.work == nil {
		s.work = map[*context.CancelCauseFunc]struct{}{}
	}
	key := &cancel
	s.work[key] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.work, key)
		s.mu.Unlock()
	}
}

// interrupt cancels the session's running calls and withdraws its open
// requests; it reports whether anything was running or open.
func (s *session) interrupt() bool {
	s.mu.Lock()
	busy := len(s.work) > 0 || len(s.open) > 0
	for cancel := range s.work {
		(*cancel)(errInterrupted)
	}
	s.mu.Unlock()
	s.withdrawAll(enginev1.CancelReason_CANCEL_REASON_INTERRUPTED)
	return busy
}

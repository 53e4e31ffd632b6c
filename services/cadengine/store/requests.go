package store

import "context"

// Requests is a shared store that carries server requests between
// engines (PostgreSQL): a batch that runs on the engine holding its
// document, while its session is owned by another engine, asks the
// session's client through it. The asker opens the request in the store;
// the session's owner, told by WatchRequests, relays it to its client and
// answers it in the store with the client's answer, which only the first
// answer does; the asker, told in turn, reads the answer. Either side may
// withdraw an open request. Changes carry ids only; the rest is read.
type Requests interface {
	// OpenRequest stores r, open, unless a request of its id is stored
	// already, and tells the watchers of it while it is open: an asker
	// calls it again to tell it again, in case a watcher missed it.
	OpenRequest(ctx context.Context, r *RequestRecord) error
	// AnswerRequest answers open request id with answer and tells the
	// watchers; it reports false, changing nothing, when the request is
	// answered or withdrawn already, or unknown.
	AnswerRequest(ctx context.Context, id string, answer []byte) (bool, error)
	// WithdrawRequest closes open request id unanswered, for reason, and
	// tells the watchers; false as for AnswerRequest.
	WithdrawRequest(ctx context.Context, id string, reason int32) (bool, error)
	// LoadRequest reads request id, or returns nil when there is none.
	LoadRequest(ctx context.Context, id string) (*RequestRecord, error)
	// OpenRequests lists the session's open requests, oldest first.
	OpenRequests(ctx context.Context, sessionID string) ([]RequestRecord, error)
	// DeleteRequest forgets request id, once its asker is done with it.
	DeleteRequest(ctx context.Context, id string) error
	// WatchRequests calls fn, from one goroutine, for every change of a
	// request by any engine sharing the store (the caller's own
	// included), until ctx ends; a broken connection is reopened, and
	// what changed meanwhile is not told. It returns ctx's error.
	WatchRequests(ctx context.Context, fn func(RequestChange)) error
}

// RequestState is where a server request in the store stands.
type RequestState int32

// The states of a request.
const (
	RequestOpen      RequestState = 1
	RequestAnswered  RequestState = 2
	RequestWithdrawn RequestState = 3
)

// RequestRecord is a server request in the store.
type RequestRecord struct {
	ID        string
	SessionID string
	// Asker is the engine whose step waits for the answer.
	Asker string
	// Frame is the proto encoding of the ServerRequest, its id set.
	Frame []byte
	// Params are the params as the client gets them (JSON).
	Params []byte
	State  RequestState
	// Answer is the proto encoding of the ServerRequestAnswer, once
	// answered.
	Answer []byte
	// Reason is the CancelReason, once withdrawn.
	Reason int32
}

// RequestChange is one change of a request, as [Requests] tells it.
type RequestChange struct {
	ID        string       `json:"i"`
	SessionID string       `json:"s"`
	State     RequestState `json:"t"`
	// Reason is the CancelReason of a withdrawal.
	Reason int32 `json:"r,omitempty"`
}

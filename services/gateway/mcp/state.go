package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// roundState is what a call that waits for the client hands it to carry to
// its next round (the requestState of an input_required result): which
// waiting call, which of its server requests the client answers, and what
// binds it — the principal, the operation, the tool and a digest of its
// arguments, and an expiry.
type roundState struct {
	// Exchange is the waiting call's id on this gateway.
	Exchange string `json:"x"`
	// Request is the server request the round answers ("srq-…").
	Request string `json:"r"`
	// Principal is the caller.
	Principal string `json:"p"`
	// Operation is the call's operation id.
	Operation string `json:"o"`
	// Tool is the MCP tool called.
	Tool string `json:"t"`
	// Args is a digest of the call's arguments.
	Args string `json:"a"`
	// Expires is when the state stops being good, in Unix milliseconds.
	Expires int64 `json:"e"`
}

// sealer seals round states: the state's JSON, base64url, a dot, and an
// HMAC-SHA256 of the first part under the gateway's key. A state is
// authenticated, not secret: it holds nothing the client does not know.
type sealer struct {
	key []byte
	now func() time.Time
}

func newSealer(key []byte) *sealer { return &sealer{key: key, now: time.Now} }

// errStateRefused is the sentinel of every refused state.
var errStateRefused = errors.New("requestState refused")

func (s *sealer) seal(st roundState) string {
	data, _ := json.Marshal(st) // plain strings and an integer
	body := base64.RawURLEncoding.EncodeToString(data)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *sealer) mac(body string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("cadbridge mcp round state v1\n"))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// open checks a sealed state and returns it: its MAC must be this
// gateway's, it must not have expired, and it must belong to principal.
// Every failure wraps errStateRefused.
func (s *sealer) open(sealed, principal string) (roundState, error) {
	var st roundState
	body, sig, ok := strings.Cut(sealed, ".")
	if !ok {
		return st, fmt.Errorf("%w: not a state of this server", errStateRefused)
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(body)) {
		return st, fmt.Errorf("%w: it was altered, or was not sealed by this gateway", errStateRefused)
	}
	data, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || json.Unmarshal(data, &st) != nil {
		return st, fmt.Errorf("%w: malformed", errStateRefused)
	}
	if s.now().UnixMilli() >= st.Expires {
		return st, fmt.Errorf("%w: it expired", errStateRefused)
	}
	if st.Principal != principal {
		return st, fmt.Errorf("%w: it belongs to another principal", errStateRefused)
	}
	return st, nil
}

// argsDigest is the digest of a call's arguments that a state is bound to.
func argsDigest(args []byte) string {
	sum := sha256.Sum256(args)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

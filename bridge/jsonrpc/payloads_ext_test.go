package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

// releasingStream is a fakeStream that is a Releaser: it records each
// payload written through WriteRelease with its buffer, and releases it
// when the test says.
type releasingStream struct {
	*fakeStream
	lent chan lentPayload
}

type lentPayload struct {
	data    string
	cap     int
	release func()
}

func (s *releasingStream) WriteRelease(_ context.Context, p []byte, release func()) error {
	s.lent <- lentPayload{string(p), cap(p), release}
	return nil
}

// TestLargeAnswersReleased: over a Releaser, a large answer is encoded
// into a buffer of the pool's and written with WriteRelease (that a
// released buffer is reused is TestPayloadPool's); a small answer, and
// any answer over a plain Stream, is written with Write.
func TestLargeAnswersReleased(t *testing.T) {
	big := strings.Repeat("x", 40<<10)
	handler := jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "big" {
			return jsonrpc.Compact(`"` + big + `"`), nil
		}
		return "small", nil
	})
	s := &releasingStream{fakeStream: newFakeStream(), lent: make(chan lentPayload, 4)}
	c := jsonrpc.NewConn(context.Background(), s, jsonrpc.ConnOptions{Handler: handler})
	t.Cleanup(func() { c.Close() })

	for i := 1; i <= 2; i++ {
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big"}`, i))
		p := <-s.lent
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, i, big); p.data != want {
			t.Fatalf("answer %d = %.80s…, want %.80s…", i, p.data, want)
		}
		if p.cap%4096 != 0 || p.cap < len(p.data) || p.cap > len(p.data)+len(p.data)/4 {
			t.Errorf("answer %d of %d bytes is in a buffer of %d, want one of the pool's (4 KiB steps, at most a quarter to spare)", i, len(p.data), p.cap)
		}
		p.release()
	}

	s.send(t, `{"jsonrpc":"2.0","id":9,"method":"small"}`)
	if got, want := s.next(t), `{"jsonrpc":"2.0","id":9,"result":"small"}`; got != want {
		t.Errorf("small answer = %s, want %s", got, want)
	}
	select {
	case p := <-s.lent:
		t.Errorf("a small answer went through WriteRelease: %s", p.data)
	default:
	}

	_, out := fakeConn(t, jsonrpc.ConnOptions{Handler: handler})
	out.send(t, `{"jsonrpc":"2.0","id":1,"method":"big"}`)
	var resp struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(out.next(t)), &resp); err != nil || resp.Result != big {
		t.Errorf("large answer over a plain Stream: %v, %d bytes of result", err, len(resp.Result))
	}
}

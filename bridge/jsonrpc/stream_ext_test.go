package jsonrpc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

func TestLineStreamRead(t *testing.T) {
	in := `{"a":1}` + "\n" +
		strings.Repeat("x", 100) + "\n" +
		"\r\n  \n" +
		strings.Repeat("y", 16) + "\n" +
		strings.Repeat("z", 17) + "\n" +
		`{"b":2}` // no final newline
	s := jsonrpc.NewLineStream(strings.NewReader(in), io.Discard, jsonrpc.LineStreamOptions{MaxLineSize: 16})
	ctx := context.Background()
	for i, want := range []string{`{"a":1}`, "too large", strings.Repeat("y", 16), "too large", `{"b":2}`, "EOF", "EOF"} {
		got, err := s.Read(ctx)
		switch want {
		case "too large":
			if !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				t.Errorf("Read() #%d = %q, %v, want ErrMessageTooLarge", i, got, err)
			}
		case "EOF":
			if err != io.EOF {
				t.Errorf("Read() #%d = %q, %v, want io.EOF", i, got, err)
			}
		default:
			if err != nil || string(got) != want {
				t.Errorf("Read() #%d = %q, %v, want %q", i, got, err, want)
			}
		}
	}
}

func TestLineStreamWrite(t *testing.T) {
	var buf bytes.Buffer
	s := jsonrpc.NewLineStream(strings.NewReader(""), &buf, jsonrpc.LineStreamOptions{})
	ctx := context.Background()
	if err := s.Write(ctx, []byte(`{"a":1}`)); err != nil {
		t.Fatalf("Write(a) = %v, want nil", err)
	}
	if err := s.Write(ctx, []byte("{\n}")); err == nil {
		t.Errorf("Write(payload with newline) = nil, want an error")
	}
	if err := s.Write(ctx, []byte(`[2]`)); err != nil {
		t.Fatalf("Write(b) = %v, want nil", err)
	}
	if got, want := buf.String(), "{\"a\":1}\n[2]\n"; got != want {
		t.Errorf("written = %q, want %q", got, want)
	}
}

// TestConnMessageTooLarge checks that a Conn answers an over-long line with
// an error and goes on serving the lines after it.
func TestConnMessageTooLarge(t *testing.T) {
	_, peer := rawConn(t, jsonrpc.ConnOptions{Handler: echo}, jsonrpc.LineStreamOptions{MaxLineSize: 64})
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`+strings.Repeat("x", 200)+`"]}`)
	peer.send(t, `{"jsonrpc":"2.0","id":2,"method":"echo","params":["short"]}`)
	got := map[string]string{}
	for range 2 {
		resps, _ := responses(t, peer.recv(t))
		for k, r := range resps {
			if r.Error != nil {
				got[k] = r.Error.Message
			} else {
				got[k] = string(r.Result)
			}
		}
	}
	want := map[string]string{"null#0": "message too large", "2": `["short"]`}
	if len(got) != len(want) || got["null#0"] != want["null#0"] || got["2"] != want["2"] {
		t.Errorf("responses = %v, want %v", got, want)
	}
}

func FuzzLineStream(f *testing.F) {
	for _, seed := range []string{
		"",
		"\n\n\n",
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}` + "\n" + `{"jsonrpc":"2.0","method":"n"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":1,"method":"m"}]` + "\r\n",
		`{"jsonrpc":"2.0","id":1,"method":"$/cancelRequest","params":{"id":1}}` + "\n",
		`{"jsonrpc":"2.0","id":"x","result":1}` + "\n" + strings.Repeat("a", 100) + "\nnot json\n[]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxLine = 32
		s := jsonrpc.NewLineStream(bytes.NewReader(data), io.Discard, jsonrpc.LineStreamOptions{MaxLineSize: maxLine})
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("Read made no progress after %d reads of %d bytes", i, len(data))
			}
			line, err := s.Read(context.Background())
			if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Read() = %v, want a line or io.EOF", err)
			}
			if len(line) > maxLine || bytes.IndexByte(line, '\n') >= 0 || len(bytes.TrimSpace(line)) == 0 {
				t.Fatalf("Read() = %q, want a non-blank line of at most %d bytes without newline", line, maxLine)
			}
		}

		// The same bytes through a whole Conn must end it cleanly.
		c := jsonrpc.NewConn(context.Background(),
			jsonrpc.NewLineStream(bytes.NewReader(data), io.Discard, jsonrpc.LineStreamOptions{MaxLineSize: 64}),
			jsonrpc.ConnOptions{Handler: echo, MaxConcurrent: 2})
		select {
		case <-c.Done():
		case <-time.After(hangGuard):
			t.Fatalf("Conn reading %q did not end", data)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("Close() = %v, want nil", err)
		}
		if err := c.Err(); err != io.EOF {
			t.Fatalf("Err() = %v, want io.EOF", err)
		}
	})
}

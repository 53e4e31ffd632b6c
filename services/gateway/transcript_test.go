package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/stacktest"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

var update = flag.Bool("update", false, "rewrite the expected frames of testdata/transcripts")

// TestTranscripts replays each testdata/transcripts/*.txtar against a fresh
// engine and gateway over a real WebSocket: every "-- in --" section is sent
// frame by frame (one per line), and the frames that come back must be the
// next "-- out --" section, in any order, after dynamic values (ids, tokens,
// hashes, times) are replaced by numbered placeholders that later input may
// use. A transcript may speak on several connections ("-- in viewer --",
// "-- out viewer --"; see runTranscript); a frame no out section expects
// fails it. With -update the out sections are rewritten from what arrives.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

// section is one "-- name --" part of a txtar file.
type section struct {
	name string
	body string
}

func parseTxtar(data string) (comment string, sections []section) {
	lines := strings.SplitAfter(data, "\n")
	var cur *section
	var buf strings.Builder
	flush := func() {
		if cur == nil {
			comment = buf.String()
		} else {
			cur.body = buf.String()
			sections = append(sections, *cur)
		}
		buf.Reset()
	}
	for _, line := range lines {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			cur = &section{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])}
			continue
		}
		buf.WriteString(line)
	}
	flush()
	return comment, sections
}

func formatTxtar(comment string, sections []section) string {
	var b strings.Builder
	b.WriteString(comment)
	for _, s := range sections {
		fmt.Fprintf(&b, "-- %s --\n%s", s.name, s.body)
		if s.body != "" && !strings.HasSuffix(s.body, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// transcriptConn is one WebSocket of a transcript, named by its sections
// ("-- in viewer --"; the unnamed one is the first).
type transcriptConn struct {
	ws     *wsstream.Stream
	frames chan []byte
}

// conversation is a transcript's connections, dialled on first use; the
// goroutine reading each ends with the conversation's context.
type conversation struct {
	t     *testing.T
	ctx   context.Context
	addr  string
	conns map[string]*transcriptConn
	names []string // in the order first used
	wg    sync.WaitGroup
}

func (cv *conversation) conn(name string) *transcriptConn {
	if c, ok := cv.conns[name]; ok {
		return c
	}
	ws, _, err := wsstream.Dial(cv.ctx, "ws://"+cv.addr+"/rpc", wsstream.DialOptions{ReadLimit: 16 << 20})
	if err != nil {
		cv.t.Fatal(err)
	}
	c := &transcriptConn{ws: ws, frames: make(chan []byte, 64)}
	cv.conns[name] = c
	cv.names = append(cv.names, name)
	cv.wg.Add(1)
	go func() {
		defer cv.wg.Done()
		defer close(c.frames)
		for {
			data, err := ws.Read(cv.ctx)
			if err != nil {
				return
			}
			c.frames <- data
		}
	}()
	return c
}

// close closes every connection and waits for their readers.
func (cv *conversation) close() {
	for _, c := range cv.conns {
		c.ws.Close()
	}
	cv.wg.Wait()
}

// unexpected returns a frame that arrived on some connection though no
// out section asked for it, if any, waiting up to wait for one.
func (cv *conversation) unexpected(n *normalizer, wait time.Duration) (string, string, bool) {
	deadline := time.After(wait)
	for {
		for _, name := range cv.names {
			select {
			case data, ok := <-cv.conns[name].frames:
				if ok {
					return name, n.normalize(data), true
				}
			default:
			}
		}
		select {
		case <-deadline:
			return "", "", false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// sectionConn splits a section name ("in", "out viewer") into its kind and
// connection name.
func sectionConn(name string) (kind, conn string) {
	kind, conn, _ = strings.Cut(name, " ")
	return kind, strings.TrimSpace(conn)
}

// runTranscript plays one transcript. Its sections name the connection
// they are for ("-- in --" and "-- out --" the first, "-- in viewer --"
// and "-- out viewer --" another, dialled on first use); each in section
// is followed by the out sections of the connections that receive
// frames.
func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	comment, sections := parseTxtar(string(data))
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cv := &conversation{t: t, ctx: ctx, addr: st.Gateway, conns: map[string]*transcriptConn{}}
	defer cv.close()
	cv.conn("")
	n := newNormalizer()
	var rewritten []section
	for i := 0; i < len(sections); {
		kind, name := sectionConn(sections[i].name)
		if kind != "in" {
			t.Fatalf("section %d is %q, want in", i, sections[i].name)
		}
		in, inIndex := sections[i], i
		i++
		if conn, frame, ok := cv.unexpected(n, 0); ok && !*update {
			t.Errorf("before in section %d: unexpected frame on connection %q:\n%s", inIndex, conn, frame)
		}
		c := cv.conn(name)
		for _, line := range nonEmptyLines(in.body) {
			if err := c.ws.Write(ctx, []byte(n.restore(line))); err != nil {
				t.Fatal(err)
			}
		}
		rewritten = append(rewritten, in)
		if *update {
			got := readAllUntilQuiet(cv, n)
			for _, conn := range cv.names {
				if conn != name && len(got[conn]) == 0 {
					continue
				}
				sort.Strings(got[conn])
				rewritten = append(rewritten, section{name: strings.TrimSpace("out " + conn), body: strings.Join(got[conn], "\n")})
			}
			for i < len(sections) && strings.HasPrefix(sections[i].name, "out") {
				i++
			}
			continue
		}
		for i < len(sections) {
			kind, conn := sectionConn(sections[i].name)
			if kind != "out" {
				break
			}
			want := nonEmptyLines(sections[i].body)
			var got []string
			for range want {
				frame, ok := readFrame(cv.conn(conn).frames, n)
				if !ok {
					t.Fatalf("after in section %d (%q):\n%s\nconnection %q ended or sent nothing within 10 s; it sent %d of:\n%s\ngot:\n%s",
						inIndex, in.name, in.body, conn, len(got), strings.Join(want, "\n"), strings.Join(got, "\n"))
				}
				got = append(got, frame)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("after in section %d (%q):\n%s\ngot on connection %q:\n%s\nwant:\n%s", inIndex, in.name, in.body, conn, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			i++
		}
	}
	if *update {
		if err := os.WriteFile(file, []byte(formatTxtar(comment, rewritten)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if conn, frame, ok := cv.unexpected(n, 100*time.Millisecond); ok {
		t.Errorf("at the end: unexpected frame on connection %q:\n%s", conn, frame)
	}
}

// readAllUntilQuiet reads the frames of every connection until none
// arrives for a while (-update only), by connection.
func readAllUntilQuiet(cv *conversation, n *normalizer) map[string][]string {
	got := map[string][]string{}
	for {
		conn, frame, ok := cv.unexpected(n, 500*time.Millisecond)
		if !ok {
			return got
		}
		got[conn] = append(got[conn], frame)
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// readFrame returns the next frame of a connection, normalized, or false
// when the connection ends or sends nothing within 10 s.
func readFrame(frames <-chan []byte, n *normalizer) (string, bool) {
	select {
	case data, ok := <-frames:
		if !ok {
			return "", false
		}
		return n.normalize(data), true
	case <-time.After(10 * time.Second):
		return "", false
	}
}

// normalizer replaces dynamic values with numbered placeholders and back.
type normalizer struct {
	seen  map[string]string // value → placeholder
	back  map[string]string // placeholder → value
	count map[string]int
}

func newNormalizer() *normalizer {
	return &normalizer{seen: map[string]string{}, back: map[string]string{}, count: map[string]int{}}
}

var dynamic = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`srq-[0-9a-f]{32}`), "srq"},
	{regexp.MustCompile(`doc-[0-9a-f]{16}`), "doc"},
	{regexp.MustCompile(`ses-[0-9a-f]{24}`), "ses"},
	{regexp.MustCompile(`rt-[0-9a-f]{48}`), "rt"},
	{regexp.MustCompile(`ep-[0-9a-f]{16}`), "ep"},
	{regexp.MustCompile(`gw-[0-9a-f]{12}`), "gw"},
	{regexp.MustCompile(`op-[0-9a-f]{16}`), "op"},
	{regexp.MustCompile(`\b[0-9a-f]{64}\b`), "hash"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "time"},
}

func (n *normalizer) placeholder(kind, value string) string {
	if kind == "hash" || kind == "time" {
		return "<" + kind + ">"
	}
	if p, ok := n.seen[value]; ok {
		return p
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s-%d>", kind, n.count[kind])
	n.seen[value], n.back[p] = p, value
	return p
}

func (n *normalizer) normalize(frame []byte) string {
	var v any
	if err := json.Unmarshal(frame, &v); err != nil {
		return "UNPARSABLE " + string(frame)
	}
	v = n.walk(v, "")
	if batch, ok := v.([]any); ok {
		// A batch's responses may come in any order (JSON-RPC 2.0 §6).
		sort.Slice(batch, func(i, j int) bool { return canonical(batch[i]) < canonical(batch[j]) })
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

func (n *normalizer) walk(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["openrpc"]; ok {
			return fmt.Sprintf("<OpenRPC %v document>", x["openrpc"])
		}
		if tools, ok := x["tools"].([]any); ok && len(tools) > 0 {
			var names []any
			for _, tool := range tools {
				if m, ok := tool.(map[string]any); ok {
					names = append(names, m["name"])
				}
			}
			x["tools"] = names
		}
		for k, e := range x {
			x[k] = n.walk(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = n.walk(e, key)
		}
		return x
	case string:
		if key == "content" && len(x) > 80 {
			return fmt.Sprintf("<%d bytes>", len(x))
		}
		if key == "next_page_token" && x != "" {
			return "<page token>"
		}
		for _, d := range dynamic {
			x = d.re.ReplaceAllStringFunc(x, func(m string) string { return n.placeholder(d.kind, m) })
		}
		return x
	default:
		return v
	}
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// restore puts the real values back into an input line.
func (n *normalizer) restore(line string) string {
	return regexp.MustCompile(`<[a-z]+-\d+>`).ReplaceAllStringFunc(line, func(p string) string {
		if v, ok := n.back[p]; ok {
			return v
		}
		return p
	})
}

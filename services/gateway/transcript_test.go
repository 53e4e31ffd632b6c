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
// use. With -update the out sections are rewritten from what arrives.
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

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	comment, sections := parseTxtar(string(data))
	st := stacktest.StartTB(t, stacktest.Options{CheckContracts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _, err := wsstream.Dial(ctx, "ws://"+st.Gateway+"/rpc", wsstream.DialOptions{ReadLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	frames := make(chan []byte, 64)
	go func() {
		defer close(frames)
		for {
			data, err := c.Read(ctx)
			if err != nil {
				return
			}
			frames <- data
		}
	}()
	n := newNormalizer()
	for i := 0; i < len(sections); i++ {
		in := sections[i]
		if in.name != "in" {
			t.Fatalf("section %d is %q, want in", i, in.name)
		}
		for _, line := range nonEmptyLines(in.body) {
			if err := c.Write(ctx, []byte(n.restore(line))); err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		if i+1 < len(sections) && sections[i+1].name == "out" {
			want = nonEmptyLines(sections[i+1].body)
		}
		var got []string
		if *update {
			got = readUntilQuiet(frames, n)
		} else {
			for range want {
				got = append(got, readFrame(t, frames, n))
			}
		}
		sort.Strings(got)
		if *update {
			out := section{name: "out", body: strings.Join(got, "\n")}
			if i+1 < len(sections) && sections[i+1].name == "out" {
				sections[i+1] = out
			} else {
				sections = append(sections[:i+1], append([]section{out}, sections[i+1:]...)...)
			}
			i++
			continue
		}
		sortedWant := append([]string(nil), want...)
		sort.Strings(sortedWant)
		if strings.Join(got, "\n") != strings.Join(sortedWant, "\n") {
			t.Errorf("after in section %d:\n%s\ngot:\n%s\nwant:\n%s", i, in.body, strings.Join(got, "\n"), strings.Join(sortedWant, "\n"))
		}
		i++
	}
	if *update {
		if err := os.WriteFile(file, []byte(formatTxtar(comment, sections)), 0o644); err != nil {
			t.Fatal(err)
		}
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

func readFrame(t *testing.T, frames <-chan []byte, n *normalizer) string {
	t.Helper()
	select {
	case data, ok := <-frames:
		if !ok {
			t.Fatal("the connection ended")
		}
		return n.normalize(data)
	case <-time.After(10 * time.Second):
		t.Fatal("no frame within 10 s")
		return ""
	}
}

// readUntilQuiet reads frames until none arrives for a while (-update only).
func readUntilQuiet(frames <-chan []byte, n *normalizer) []string {
	var got []string
	for {
		select {
		case data, ok := <-frames:
			if !ok {
				return got
			}
			got = append(got, n.normalize(data))
		case <-time.After(500 * time.Millisecond):
			return got
		}
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

package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
)

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, rpc, health string }{
		{"http://127.0.0.1:7400", "ws://127.0.0.1:7400/rpc", "http://127.0.0.1:7400/healthz"},
		{"127.0.0.1:7400", "ws://127.0.0.1:7400/rpc", "http://127.0.0.1:7400/healthz"},
		{"ws://gw.example:80/rpc", "ws://gw.example:80/rpc", "http://gw.example:80/healthz"},
		{"https://gw.example", "wss://gw.example/rpc", "https://gw.example/healthz"},
		{"wss://gw.example/cad/rpc", "wss://gw.example/cad/rpc", "https://gw.example/healthz"},
	} {
		rpc, err := rpcURL(tc.in)
		if err != nil || rpc != tc.rpc {
			t.Errorf("rpcURL(%q) = %q, %v; want %q", tc.in, rpc, err, tc.rpc)
		}
		health, err := httpURL(tc.in, "/healthz")
		if err != nil || health != tc.health {
			t.Errorf("httpURL(%q) = %q, %v; want %q", tc.in, health, err, tc.health)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "::"} {
		if u, err := rpcURL(bad); err == nil {
			t.Errorf("rpcURL(%q) = %q, want an error", bad, u)
		}
	}
}

func TestViewerURL(t *testing.T) {
	ses := &sessionState{ID: "ses-1", ResumeToken: "rt-2"}
	for _, tc := range []struct{ in, doc, bearer, want string }{
		{"127.0.0.1:7400", "doc-3", "", "http://127.0.0.1:7400/viewer/?document=doc-3#session=ses-1&token=rt-2"},
		{"wss://gw.example/rpc", "", "", "https://gw.example/viewer/#session=ses-1&token=rt-2"},
		{"wss://gw.example/rpc", "doc-3", "s3cret/+&=", "https://gw.example/viewer/?document=doc-3#bearer=s3cret%2F%2B%26%3D&session=ses-1&token=rt-2"},
	} {
		if got, err := viewerURL(tc.in, tc.doc, ses, tc.bearer); err != nil || got != tc.want {
			t.Errorf("viewerURL(%q, %q, %q) = %q, %v; want %q", tc.in, tc.doc, tc.bearer, got, err, tc.want)
		}
	}
}

// TestParseInterleaved checks that flags may come after positional
// arguments, as in cadctl export D -o FILE.
func TestParseInterleaved(t *testing.T) {
	a := &app{env: env{stderr: &strings.Builder{}}}
	fs := a.flags("export")
	out := fs.String("o", "-", "")
	pos, err := parse(fs, []string{"doc-1", "-o", "x.svg", "--json", "--", "-odd"})
	if err != nil || len(pos) != 2 || pos[0] != "doc-1" || pos[1] != "-odd" || *out != "x.svg" || !a.cfg.json {
		t.Errorf("parse = %q, %v (o %q, json %v); want [doc-1 -odd], o x.svg, json", pos, err, *out, a.cfg.json)
	}
}

// TestToken checks that the token goes as a bearer credential, from
// CADBRIDGE_TOKEN or (first) --token.
func TestToken(t *testing.T) {
	g := newFakeGateway(t, func(ctx context.Context, fc *fakeConn, req *jsonrpc.Request) (any, error) {
		return map[string]any{"tools": []any{}}, nil
	})
	runCadctl(t, g, newTerminal(t), false, "tools")
	runCadctlEnv(t, g, newTerminal(t), false, map[string]string{"CADBRIDGE_TOKEN": "from-env"}, "tools")
	runCadctlEnv(t, g, newTerminal(t), false, map[string]string{"CADBRIDGE_TOKEN": "from-env"}, "tools", "--token", "from-flag")
	g.mu.Lock()
	defer g.mu.Unlock()
	if want := []string{"", "Bearer from-env", "Bearer from-flag"}; !slices.Equal(g.auth, want) {
		t.Errorf("Authorization headers = %q, want %q", g.auth, want)
	}
}

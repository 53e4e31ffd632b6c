// Package mcp is the gateway's Model Context Protocol surface, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk): Streamable HTTP
// at /mcp on the gateway's listener, and stdio ([Server.ServeStdio]).
//
// Every engine tool is an MCP tool with the input and output schemas of
// tools.list (plus document_id; operation_id is taken too), compacted for
// tools/list (see [compactInput]), and cad_batch is
// cad.batch. Calls go to the engine through the gateway's own relay
// ([gateway.Relay]), so they are checked, limited and traced as /rpc calls
// are. Documents and their drawings are resource templates
// (cad://documents/{id}, …/drawing.svg, …/drawing.dxf) whose subscribers
// are told of every document.changed. The engine's server requests
// (approval, pick.point, pick.entities) become elicitations: on protocol
// revision 2026-07-28 an input_required result whose requestState is
// sealed (see [sealer]), on older revisions an elicitation request sent
// while the call waits.
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cadbridge/cadbridge/services/gateway"
)

// Version is what the server reports as its implementation version.
const Version = "0.1.0"

// Approval policies a client that declares elicitation gets.
const (
	// PolicyDestructive asks before every destructive step (the default).
	PolicyDestructive = "destructive"
	// PolicyNone never asks, for clients that ask their user before every
	// destructive tool themselves.
	PolicyNone = "none"
)

// Config configures the MCP surface.
type Config struct {
	// ApprovalPolicy is the approval policy of clients that declare
	// elicitation: PolicyDestructive or PolicyNone; empty means
	// PolicyDestructive. Clients that cannot elicit never get approvals.
	ApprovalPolicy string
	// Profile chooses the tools tools/list shows: ProfileLean (empty),
	// ProfileFull or ProfileDiscover. Every tool is callable whatever the
	// profile.
	Profile string
	// Tools, when not empty, chooses the listed tools by hand instead of
	// Profile, each entry a group (the first word of a tool's name:
	// document, entity, analysis, …, cad for cad_batch) or a pattern on
	// names (path.Match syntax, "entity_create_*").
	Tools []string
	// StateTTL bounds how long a call may wait for the client's next round
	// (a multi-round-trip retry); past it the sealed state is refused and
	// the call's work is cancelled. 0 means 5 minutes.
	StateTTL time.Duration
	// StateKey authenticates sealed states; nil means a random key of the
	// server's own (a state is then good on this gateway only, which is
	// also where the call waits).
	StateKey []byte
	// SessionTimeout closes a Streamable HTTP session (protocol revisions
	// before 2026-07-28) idle that long; 0 means 30 minutes.
	SessionTimeout time.Duration
}

// Server is the MCP surface of one gateway. It is safe for concurrent
// use; Close stops it.
type Server struct {
	gw   *gateway.Gateway
	cfg  Config
	log  *slog.Logger
	sdk  *mcpsdk.Server
	impl *mcpsdk.Implementation // what the server says it is
	// implJSON is impl encoded, for the fast path.
	implJSON []byte
	tools    map[string]*tool // callable, by MCP name: the whole catalog
	// listed are the names tools/list shows (the profile's).
	listed map[string]bool
	sealer *sealer
	metas  metaCache // for the fast path

	mu sync.Mutex // guards plain, watchers, live and closed
	// plain are the relays of calls that need no session, by principal.
	plain map[string]*gateway.Relay
	// watchers keep the documents subscribed to, by principal.
	watchers map[string]*watcher
	// live are the calls that run in a session of their own, by id;
	// parked ones wait for the client's next round.
	live   map[string]*exchange
	closed bool

	wg sync.WaitGroup // calls, their expiry and the watchers' loops
}

// New returns the MCP surface of gw.
func New(gw *gateway.Gateway, cfg Config) (*Server, error) {
	switch cfg.ApprovalPolicy {
	case "":
		cfg.ApprovalPolicy = PolicyDestructive
	case PolicyDestructive, PolicyNone:
	default:
		return nil, fmt.Errorf("mcp: approval policy %q, want %q or %q", cfg.ApprovalPolicy, PolicyDestructive, PolicyNone)
	}
	if cfg.StateTTL == 0 {
		cfg.StateTTL = 5 * time.Minute
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 30 * time.Minute
	}
	key := cfg.StateKey
	if key == nil {
		key = make([]byte, 32)
		rand.Read(key)
	}
	catalog, err := Catalog()
	if err != nil {
		return nil, err
	}
	served, err := Listed(catalog, cfg.Profile, cfg.Tools)
	if err != nil {
		return nil, err
	}
	s := &Server{
		listed:   map[string]bool{},
		gw:       gw,
		cfg:      cfg,
		log:      gw.Logger().With("surface", "mcp"),
		tools:    map[string]*tool{},
		sealer:   newSealer(key),
		plain:    map[string]*gateway.Relay{},
		watchers: map[string]*watcher{},
		live:     map[string]*exchange{},
	}
	s.impl = &mcpsdk.Implementation{Name: "cadbridge", Title: "cadbridge CAD engine", Version: Version}
	if s.implJSON, err = json.Marshal(s.impl); err != nil {
		return nil, err
	}
	s.sdk = mcpsdk.NewServer(s.impl, &mcpsdk.ServerOptions{
		Instructions:       instructions,
		Logger:             slog.New(atLeast{slog.LevelWarn, s.log.Handler()}),
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *mcpsdk.UnsubscribeRequest) error { return nil },
		Capabilities: &mcpsdk.ServerCapabilities{
			Tools:     &mcpsdk.ToolCapabilities{},
			Resources: &mcpsdk.ResourceCapabilities{Subscribe: true},
		},
	})
	for _, t := range served {
		s.listed[t.name] = true
	}
	for _, t := range catalog {
		s.tools[t.name] = t
		s.sdk.AddTool(t.mcp, s.toolHandler(t))
	}
	s.sdk.AddReceivingMiddleware(s.listOnlyListed)
	s.addResources()
	return s, nil
}

// instructions tell an agent how to use the server.
const instructions = `cadbridge drives a CAD engine. Make a document with document_create (or use one you know), then pass its document_id to every tool. tools/list shows a few tools: tool_search finds any other by what it does (command names like FILLET work), tool_describe gives its schema, and it is called by name like a listed one. Lengths are in the document's units, angles in degrees counter-clockwise. Prefer cad_batch for several steps: run it with dry_run first, then for real with expected_revision from the preview, so nothing runs if the drawing moved meanwhile. Give an operation_id argument (every tool takes one; schemas leave it out) to any call you may retry: a retry with the same id replays the recorded result. Read the drawing as the resource cad://documents/{id}/drawing.svg.`

// SDK is the server of the official SDK that the surface is built on, for
// transports of the caller's own.
func (s *Server) SDK() *mcpsdk.Server { return s.sdk }

// ServeStdio serves one MCP connection, newline-delimited JSON-RPC on r and
// w, until the input ends or ctx is cancelled; the caller is the local
// principal.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	t := &mcpsdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: int(s.gw.ReadLimit())}
	ss, err := s.sdk.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		ss.Close()
		err = <-done
	}
	if errors.Is(err, io.EOF) || errors.Is(err, mcpsdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// atLeast passes on the records of level min and above: the SDK logs
// every session at Info.
type atLeast struct {
	min slog.Level
	slog.Handler
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.min, h.Handler.WithAttrs(as)}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.min, h.Handler.WithGroup(name)}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Close cancels the calls still waiting for a client, stops the watchers
// and closes every relay, then waits for what the server started.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	live := make([]*exchange, 0, len(s.live))
	for _, x := range s.live {
		live = append(live, x)
	}
	watchers := s.watchers
	plain := s.plain
	s.mu.Unlock()
	for _, x := range live {
		x.abort()
	}
	for _, w := range watchers {
		w.stop()
	}
	s.wg.Wait()
	for _, r := range plain {
		r.Close()
	}
	return nil
}

// plainRelay is the relay of principal's calls that need no session.
func (s *Server) plainRelay(principal string) (*gateway.Relay, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	r := s.plain[principal]
	if r == nil {
		r = s.gw.NewRelay(principal, nil, gateway.RelayHooks{})
		s.plain[principal] = r
	}
	return r, nil
}

var errClosed = errors.New("mcp: the server is closed")

// principalOf is the caller of an MCP request: the principal its bearer
// token names (see [Server.authenticate]), or the local principal (open
// mode and stdio).
func principalOf(extra *mcpsdk.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return extra.TokenInfo.UserID
	}
	return gateway.LocalPrincipal
}

func headerOf(extra *mcpsdk.RequestExtra) http.Header {
	if extra == nil {
		return nil
	}
	return extra.Header
}

// Surface returns the MCP surface as a [gateway.Surface]: mounted, it
// serves Streamable HTTP at /mcp; the gateway closes it.
func Surface(cfg Config) *HTTPSurface { return &HTTPSurface{cfg: cfg} }

// HTTPSurface mounts the MCP surface on a gateway's HTTP mux.
type HTTPSurface struct {
	cfg Config

	mu      sync.Mutex // guards servers
	servers []*Server
}

// Mount implements [gateway.Surface]: it serves /mcp on mux.
func (h *HTTPSurface) Mount(gw *gateway.Gateway, mux *http.ServeMux) error {
	s, err := New(gw, h.cfg)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.servers = append(h.servers, s)
	h.mu.Unlock()
	mux.Handle("/mcp", s.Handler())
	return nil
}

// Close closes the servers Mount made.
func (h *HTTPSurface) Close() error {
	h.mu.Lock()
	servers := h.servers
	h.servers = nil
	h.mu.Unlock()
	for _, s := range servers {
		s.Close()
	}
	return nil
}

// Flags registers the surface's flags on fs, filling cfg:
// --mcp-approval-policy, --mcp-profile and --mcp-tools (a comma-separated
// list of groups and patterns).
func (cfg *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&cfg.ApprovalPolicy, "mcp-approval-policy", PolicyDestructive, "approval policy of MCP clients that declare elicitation: destructive (ask before every destructive step) or none")
	cfg.Profile = ProfileLean
	fs.Func("mcp-profile", "MCP tools that tools/list shows: lean (the ~25 most drafting needs), full (all) or discover (documents only; tool_search finds the rest); every tool stays callable by name (default lean)", func(v string) error {
		if !slices.Contains(Profiles, v) {
			return fmt.Errorf("want one of %s", strings.Join(Profiles, ", "))
		}
		cfg.Profile = v
		return nil
	})
	fs.Func("mcp-tools", "MCP tools that tools/list shows, chosen by hand instead of --mcp-profile: comma-separated groups (document, entity, selection, analysis, point, layer, transaction, system, tool, cad) and name patterns (entity_create_*); every tool stays callable by name", func(v string) error {
		cfg.Tools = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				cfg.Tools = append(cfg.Tools, p)
			}
		}
		catalog, err := Catalog()
		if err != nil {
			return err
		}
		_, err = Select(catalog, cfg.Tools)
		return err
	})
}

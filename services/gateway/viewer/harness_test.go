package viewer_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/wsstream"
	"github.com/cadbridge/cadbridge/services/cadengine"
	"github.com/cadbridge/cadbridge/services/gateway"
)

var update = flag.Bool("update", false, "write the screenshots the tests take to testdata/screenshots")

// browser is the one Chromium the tests share (each test has a tab of its
// own); skip says why there is none.
var browser struct {
	ctx  context.Context
	skip string
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runWithBrowser(m))
}

// chromiumPath finds Chromium: $CADBRIDGE_CHROMIUM, else the first of the
// usual names on $PATH.
func chromiumPath() string {
	if p := os.Getenv("CADBRIDGE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runWithBrowser starts the shared Chromium, runs the tests and stops it.
// Without Chromium the browser tests skip, except under CI=true, where
// they fail.
func runWithBrowser(m *testing.M) int {
	path := chromiumPath()
	if path == "" {
		browser.skip = "no Chromium (apt-get install chromium, or set CADBRIDGE_CHROMIUM)"
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "viewer-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		browser.skip = fmt.Sprintf("Chromium (%s) did not start: %v", path, err)
		return m.Run() // the browser tests skip, or fail under CI=true
	}
	browser.ctx = ctx
	return m.Run()
}

// needBrowser skips the test when there is no Chromium (fails it under
// CI=true, where a skipped browser test would hide a broken viewer).
func needBrowser(t *testing.T) {
	t.Helper()
	if browser.ctx != nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true needs Chromium for the viewer tests: %s", browser.skip)
	}
	t.Skip(browser.skip)
}

// stack is an engine and a gateway in process, on loopback; the gateway
// can be restarted on the same address.
type stack struct {
	t       *testing.T
	engine  string
	token   string // the bearer token of a gateway run with tokens; "" in open mode
	tokens  string // its tokens file
	addr    string // the gateway's
	stopGW  func()
	gwMu    sync.Mutex
	stopped bool
}

func startStack(t *testing.T) *stack {
	t.Helper()
	return startStackWithToken(t, "")
}

// startStackWithToken is startStack with a gateway run with a tokens file
// (--tokens) naming token, when token is not empty; the agents then
// present it, and so must the page (the fragment's bearer=…).
func startStackWithToken(t *testing.T, token string) *stack {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := cadengine.New(cadengine.Config{Store: "memory:", Logger: quiet, DrainTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		eng.Serve(ctx, lis)
	}()
	s := &stack{t: t, engine: lis.Addr().String(), token: token}
	if token != "" {
		s.tokens = filepath.Join(t.TempDir(), "tokens")
		if err := os.WriteFile(s.tokens, []byte(token+" viewer-test\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		s.stopGateway()
		cancel()
		<-done
	})
	s.startGateway("127.0.0.1:0")
	return s
}

func (s *stack) startGateway(addr string) {
	s.t.Helper()
	var lis net.Listener
	var err error
	for range 50 { // the old gateway's port may take a moment to free
		if lis, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{
		Listen:         lis.Addr().String(),
		Engine:         s.engine,
		Tokens:         s.tokens,
		CheckContracts: true,
		DrainTimeout:   2 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		gw.Serve(ctx, lis)
	}()
	s.gwMu.Lock()
	s.addr = lis.Addr().String()
	s.stopped = false
	s.stopGW = func() {
		cancel()
		<-done
		gw.Close()
	}
	s.gwMu.Unlock()
}

func (s *stack) stopGateway() {
	s.gwMu.Lock()
	defer s.gwMu.Unlock()
	if !s.stopped {
		s.stopGW()
		s.stopped = true
	}
}

// restartGateway stops the gateway and starts a new one on its address.
func (s *stack) restartGateway() {
	s.stopGateway()
	s.startGateway(s.addr)
}

// url is the address of a gateway path ("/viewer/").
func (s *stack) url(path string) string { return "http://" + s.addr + path }

// agent is another client of the gateway (an AI agent, say): a JSON-RPC
// connection over a WebSocket whose server requests the test sees, and
// answers or not.
type agent struct {
	t        *testing.T
	conn     *jsonrpc.Conn
	requests chan *serverRequest
	notes    chan *jsonrpc.Request
	calls    sync.WaitGroup // calls made with start
}

// serverRequest is a server request the agent received; answer it by
// sending on reply, or leave it open.
type serverRequest struct {
	*jsonrpc.Request
	reply chan any
}

func dialAgent(t *testing.T, s *stack) *agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := wsstream.Dial(ctx, "ws://"+s.addr+"/rpc", wsstream.DialOptions{Token: s.token, ReadLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, requests: make(chan *serverRequest, 16), notes: make(chan *jsonrpc.Request, 256)}
	a.conn = jsonrpc.NewConn(context.Background(), ws, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(a.handle)})
	t.Cleanup(func() {
		a.conn.Close() // ends the calls still waiting
		a.calls.Wait()
	})
	return a
}

func (a *agent) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if !req.IsCall() {
		select {
		case a.notes <- req:
		default: // nobody is reading notifications
		}
		return nil, nil
	}
	sr := &serverRequest{Request: req, reply: make(chan any, 1)}
	select {
	case a.requests <- sr:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-sr.reply:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// call makes a call and decodes its result; it fails the test on an error.
func (a *agent) call(method string, params, result any) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.conn.Call(ctx, jsonrpc.ID{}, method, params, result); err != nil {
		a.t.Fatalf("%s(%v) = %v, want a result", method, params, err)
	}
}

// start makes a call in the background; the returned function waits for
// its result.
func (a *agent) start(method string, params any) func() (json.RawMessage, error) {
	type outcome struct {
		raw json.RawMessage
		err error
	}
	done := make(chan outcome, 1)
	a.calls.Add(1)
	go func() {
		defer a.calls.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var raw json.RawMessage
		err := a.conn.Call(ctx, jsonrpc.ID{}, method, params, &raw)
		done <- outcome{raw, err}
	}()
	return func() (json.RawMessage, error) {
		select {
		case o := <-done:
			return o.raw, o.err
		case <-time.After(30 * time.Second):
			return nil, errors.New("no result within 30 s")
		}
	}
}

// request waits for the agent's next server request of method.
func (a *agent) request(method string) *serverRequest {
	a.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case r := <-a.requests:
			if r.Method == method {
				return r
			}
		case <-timeout:
			a.t.Fatalf("agent: no %s server request within 10 s", method)
			return nil
		}
	}
}

// cancelled waits for the agent's request.cancel of id and returns its
// reason.
func (a *agent) cancelled(id string) string {
	a.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case n := <-a.notes:
			if n.Method != "request.cancel" {
				continue
			}
			var p struct{ ID, Reason string }
			json.Unmarshal(n.Params, &p)
			if p.ID == id {
				return p.Reason
			}
		case <-timeout:
			a.t.Fatalf("agent: no request.cancel of %s within 10 s", id)
			return ""
		}
	}
}

// session is what session.create answers.
type session struct {
	SessionID   string `json:"session_id"`
	ResumeToken string `json:"resume_token"`
}

// createSession opens the agent's session with the server requests it
// answers and the approval policy destructive.
func (a *agent) createSession(methods ...string) session {
	a.t.Helper()
	var s session
	a.call("session.create", map[string]any{"capabilities": map[string]any{"server_requests": methods}, "approval_policy": "destructive"}, &s)
	return s
}

// createDocument makes a document and returns its id.
func (a *agent) createDocument(name string) string {
	a.t.Helper()
	var info struct {
		DocumentID string `json:"document_id"`
	}
	a.call("document.create", map[string]any{"name": name}, &info)
	return info.DocumentID
}

// page is one tab of the shared browser, showing the viewer.
type page struct {
	t   *testing.T
	ctx context.Context

	mu         sync.Mutex
	exceptions []string
}

// openPage opens the viewer at path in a new tab and waits until its own
// session is open; the tab closes when the test ends. An exception the
// page does not catch fails the test.
func openPage(t *testing.T, s *stack, path string) *page {
	t.Helper()
	needBrowser(t)
	ctx, cancel := chromedp.NewContext(browser.ctx)
	p := &page{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	messages := chromedp.Console(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() {
				p.mu.Lock()
				p.exceptions = append(p.exceptions, m.String())
				p.mu.Unlock()
			} else if testing.Verbose() {
				t.Logf("console %s: %s", m.Type, m.Text)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, e := range p.exceptions {
			t.Errorf("the viewer threw: %s", e)
		}
	})
	p.do(chromedp.Navigate(s.url(path)))
	p.waitFor("the own session to open", `document.body.dataset.connection === "open"`)
	return p
}

// do runs actions in the tab, within 20 s.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the tab into T, within 20 s.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	return evalWithin[T](p, expr, 20*time.Second)
}

// evalWithin is eval within timeout.
func evalWithin[T any](p *page, expr string, timeout time.Duration) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it holds, for up to 10 s.
func (p *page) waitFor(what, cond string) time.Duration {
	p.t.Helper()
	return p.waitForWithin(what, cond, 10*time.Second)
}

// waitForWithin polls a JavaScript condition until it holds or timeout
// passes; it returns how long it waited.
func (p *page) waitForWithin(what, cond string, timeout time.Duration) time.Duration {
	p.t.Helper()
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			p.t.Fatalf("waiting %v for %s (%s): %v; the viewer: %s", timeout, what, cond, err, p.state())
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// state is the viewer's own account of itself, for failure messages.
func (p *page) state() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.cadViewer ? cadViewer.state() : null)`))
	if err != nil {
		return err.Error()
	}
	return s
}

// count is the number of elements a CSS selector matches.
func (p *page) count(selector string) int {
	p.t.Helper()
	return eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, selector))
}

// clickSelector clicks the centre of the first element selector matches.
func (p *page) clickSelector(selector string) {
	p.t.Helper()
	pt := eval[struct{ X, Y float64 }](p, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, selector))
	p.do(chromedp.MouseClickXY(pt.X, pt.Y))
}

// clientPoint is where a document point is on the screen.
func (p *page) clientPoint(x, y float64) (float64, float64) {
	p.t.Helper()
	pt := eval[struct{ X, Y float64 }](p, fmt.Sprintf(`cadViewer.toClient(%v, %v)`, x, y))
	return pt.X, pt.Y
}

// screenshot takes a picture of the tab: into testdata/screenshots with
// -update, else into the test's temporary directory. It returns the file.
func (p *page) screenshot(name string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	dir := p.t.TempDir()
	if *update {
		dir = filepath.Join("testdata", "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
	}
	file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot %s", file)
	return file
}

package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	"github.com/cadbridge/cadbridge/internal/wsstream"
)

// loopbackOrigins are allowed besides the gateway's own host.
var loopbackOrigins = []string{"localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*", "[::1]", "[::1]:*"}

func (gw *Gateway) serveWebSocket(w http.ResponseWriter, r *http.Request, principal string) {
	ws, err := wsstream.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: loopbackOrigins, Subprotocols: wsSubprotocols})
	if err != nil {
		gw.log.Debug("websocket accept", "error", err)
		return // Accept has answered (403 for a foreign Origin)
	}
	ws.Conn().SetReadLimit(gw.cfg.ReadLimit)
	ws.ParkAfter(gw.cfg.ParkAfter)
	// The connection outlives this handler: once it returns, net/http's
	// goroutine for the request ends and lets go of what it held (its
	// read buffer, the request). The connection keeps the request's
	// values (its trace), not its cancellation, which comes when the
	// handler returns.
	ctx := context.WithoutCancel(r.Context())
	budget := gw.newConnBudget()
	stream := newWSStream(ctx, ws, gw.cfg, budget)
	gw.startConn(ctx, stream, budget, principal, r.Header, func(err error) {
		if err != nil {
			gw.log.Debug("websocket connection ended", "error", err)
		}
		stream.Close()
		stream.wait()
		budget.close()         // after the writer stopped: frees what was never written
		gw.reclaim.connEnded() // last, once everything the connection held is garbage
	})
}

// wsStream is the gateway's side of a WebSocket: a [wsstream.Stream] whose
// writes go through a queue bounded in bytes (by the connection's budget)
// and in messages. A Write that finds no one writing writes itself, then
// drains what others queued meanwhile, each time all of it in one batch; a
// Queue (a notification) starts a writer of its own instead, so that its
// sender goes on while it writes; a client that reads too slowly to
// keep the queue from filling is disconnected rather than buffered without
// bound. A ping every [Config.PingInterval] keeps the connection alive and
// detects dead peers. An idle stream has no goroutine and no queue, and
// after [Config.ParkAfter] its reader parks (it is a [jsonrpc.Parker]).
type wsStream struct {
	ws     *wsstream.Stream
	cfg    Config
	budget *connBudget     // counts the bytes queued
	ctx    context.Context // the stream's own; cancelled by Close
	cancel context.CancelFunc
	// away makes Close say "going away" (the gateway is stopping).
	away atomic.Bool
	ping *time.Timer
	room chan struct{} // signalled (capacity 1) when the writer takes from the queue
	done chan struct{} // closed when the stream has stopped writing for good

	mu      sync.Mutex
	queue   []outgoing // payloads waiting for the writer, oldest first
	writing bool       // a Write is writing (see write)
	closing bool       // Close waits for the queue to drain: nothing more is queued
	stopped bool       // no more writes: done is closed once the writer is gone
}

var (
	_ jsonrpc.Queuer   = (*wsStream)(nil)
	_ jsonrpc.Releaser = (*wsStream)(nil)
)

// outgoing is a payload to write, and what gives it back once it is
// written or dropped (nil when nothing is to be given back).
type outgoing struct {
	payload []byte
	release func()
}

// size is the memory the payload holds, as the budget counts it: the
// capacity of a buffer to give back (see [jsonrpc.Releaser]), else its
// length.
func (o outgoing) size() int {
	if o.release != nil {
		return cap(o.payload)
	}
	return len(o.payload)
}

// done gives the payload back.
func (o outgoing) done() {
	if o.release != nil {
		o.release()
	}
}

func newWSStream(ctx context.Context, ws *wsstream.Stream, cfg Config, budget *connBudget) *wsStream {
	ctx, cancel := context.WithCancel(ctx)
	s := &wsStream{ws: ws, cfg: cfg, budget: budget, ctx: ctx, cancel: cancel, room: make(chan struct{}, 1), done: make(chan struct{})}
	s.mu.Lock() // a ping that comes at once waits for s.ping
	s.ping = time.AfterFunc(cfg.PingInterval, s.pingPeer)
	s.mu.Unlock()
	context.AfterFunc(ctx, s.stop)
	return s
}

// stop ends writing: nothing more is queued or written; once the writer
// has finished the write it is in, done is closed and what the connection
// holds is given back (it then stops reading and ends).
func (s *wsStream) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *wsStream) stopLocked() {
	if !s.stopped {
		s.stopped = true
		s.ping.Stop()
		s.ws.StopParking() // a parked reader reads on, and finds the end
	}
	if s.writing || isClosed(s.done) {
		return // the writer stops the stream again when it ends
	}
	for _, o := range s.queue {
		s.budget.releaseWrite(o.size())
		o.done()
	}
	s.queue = nil
	close(s.done)
	s.budget.close()
}

// isClosed reports whether c is closed.
func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// write drains the queue, then ends: the writer, on the goroutine of the
// Write that found nothing queued, or of its own for a Queue. It takes
// everything queued at once and writes it as one batch.
func (s *wsStream) write() {
	for {
		s.mu.Lock()
		if s.stopped || len(s.queue) == 0 {
			s.writing = false
			if s.stopped || s.closing {
				s.stopLocked()
			}
			s.mu.Unlock()
			return
		}
		queued := s.queue
		s.queue = nil // an idle stream holds no queue
		s.mu.Unlock()
		select {
		case s.room <- struct{}{}:
		default:
		}
		s.send(queued)
	}
}

// send writes the payloads, together, and gives them back; a write that
// fails or takes longer than the write timeout disconnects the client.
func (s *wsStream) send(items []outgoing) {
	var one [1][]byte // a batch of one, the most common, allocates nothing
	payloads := one[:0]
	if len(items) > 1 {
		payloads = make([][]byte, 0, len(items))
	}
	held := 0
	for _, o := range items {
		payloads = append(payloads, o.payload)
		held += o.size()
	}
	err := s.ws.WriteBatch(time.Now().Add(s.cfg.WriteTimeout), payloads)
	for _, o := range items {
		o.done()
	}
	s.budget.releaseWrite(held)
	if err != nil {
		s.ws.Conn().Close(websocket.StatusPolicyViolation, "write failed or too slow")
		s.stop()
	}
}

// pingPeer pings the client, then sets the next ping; a client that does
// not answer within the write timeout is disconnected.
func (s *wsStream) pingPeer() {
	pctx, cancel := context.WithTimeout(s.ctx, s.cfg.WriteTimeout)
	err := s.ws.Ping(pctx)
	cancel()
	if err != nil {
		s.ws.Conn().Close(websocket.StatusPolicyViolation, "ping timed out")
		s.stop()
		return
	}
	s.mu.Lock()
	if !s.stopped {
		s.ping.Reset(s.cfg.PingInterval)
	}
	s.mu.Unlock()
}

// Read reads the next message (see [wsstream.Stream.Read]). It ignores the
// caller's ctx: cancelling a WebSocket read tears the connection down at
// once, which would cut off the close handshake (1001 "going away") that
// Close performs; Close ends a pending Read instead. Its own context is
// never done either, so that coder/websocket arms no cancellation for
// each frame it reads (a context.AfterFunc, three allocations and a
// registration with the parent, per header and per payload): every path
// that cancels s.ctx closes the WebSocket first, which ends the Read.
func (s *wsStream) Read(_ context.Context) ([]byte, error) {
	return s.ws.Read(context.Background())
}

// Park parks the reader (see [wsstream.Stream.Park]).
func (s *wsStream) Park(wake func()) { s.ws.Park(wake) }

// Write writes or queues a payload: when nothing is being written the
// caller writes it, and then what others queued meanwhile. A full queue
// (in bytes or in messages) holds the writer back (bursts of events are
// normal); a queue that stays full for the write timeout means the client
// reads too slowly, and it is disconnected.
func (s *wsStream) Write(_ context.Context, payload []byte) error {
	return s.put(outgoing{payload: payload}, true)
}

// WriteRelease writes or queues payload as Write does, and calls release
// once it is written or dropped (it is a [jsonrpc.Releaser]).
func (s *wsStream) WriteRelease(_ context.Context, payload []byte, release func()) error {
	return s.put(outgoing{payload, release}, true)
}

// Queue queues a payload as Write does, but never writes on the caller's
// goroutine: when nothing is being written, a writer of its own starts.
// A burst of notifications from one sender (the events of a batch, as the
// Session stream's receiver relays them) thus queues up while the writer
// writes, and goes out in few writes instead of one each (it is a
// [jsonrpc.Queuer]).
func (s *wsStream) Queue(payload []byte) error {
	return s.put(outgoing{payload: payload}, false)
}

// put queues o, or, when nothing is being written, writes it (inline) or
// starts a writer for it.
func (s *wsStream) put(o outgoing, inline bool) error {
	timeout := deadline{after: s.cfg.WriteTimeout}
	defer timeout.stop()
	switch err := s.budget.acquireWrite(o.size(), timeout.expired, s.done); {
	case errors.Is(err, errWriteTimeout):
		o.done()
		return s.tooSlow()
	case err != nil:
		o.done()
		return errors.New("websocket closed")
	}
	for {
		s.mu.Lock()
		switch {
		case s.stopped || s.closing:
			s.mu.Unlock()
			s.budget.releaseWrite(o.size())
			o.done()
			return errors.New("websocket closed")
		case !s.writing && inline:
			// Nothing is queued: the caller writes, then drains what
			// others queue meanwhile (no goroutine to start or hand to).
			s.writing = true
			s.mu.Unlock()
			s.send([]outgoing{o})
			s.write()
			return nil
		case !s.writing:
			s.writing = true
			s.queue = append(s.queue, o)
			s.mu.Unlock()
			go s.write()
			return nil
		case len(s.queue) < s.cfg.SendQueue:
			s.queue = append(s.queue, o)
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
		select {
		case <-s.room:
		case <-s.done:
			s.budget.releaseWrite(o.size())
			o.done()
			return errors.New("websocket closed")
		case <-timeout.expired():
			s.budget.releaseWrite(o.size())
			o.done()
			return s.tooSlow()
		}
	}
}

// deadline is a timer started when it is first waited on: a write that
// finds room at once, as most do, starts none.
type deadline struct {
	after time.Duration
	timer *time.Timer
}

// expired is the channel that fires the deadline's duration after its
// first call.
func (d *deadline) expired() <-chan time.Time {
	if d.timer == nil {
		d.timer = time.NewTimer(d.after)
	}
	return d.timer.C
}

func (d *deadline) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

// tooSlow disconnects a client that leaves its queue full for the write
// timeout.
func (s *wsStream) tooSlow() error {
	s.ws.Conn().Close(websocket.StatusPolicyViolation, "send queue full: reading too slowly")
	s.cancel()
	return errors.New("websocket send queue full; client disconnected")
}

// Close writes what is queued (bounded by the write timeout), then closes
// the WebSocket.
func (s *wsStream) Close() error {
	s.ws.StopParking() // the closing handshake reads, and the reader must end
	s.mu.Lock()
	wait := !s.stopped && len(s.queue) < s.cfg.SendQueue // a full queue: the reader is too slow to wait for
	s.closing = true
	if !s.writing {
		s.stopLocked()
	}
	s.mu.Unlock()
	if wait {
		select {
		case <-s.done:
		case <-time.After(s.cfg.WriteTimeout):
		}
	}
	defer s.cancel()
	if s.away.Load() {
		return s.ws.Conn().Close(websocket.StatusGoingAway, "gateway stopping; resume your session on another gateway")
	}
	return s.ws.Close()
}

func (s *wsStream) goingAway() { s.away.Store(true) }

func (s *wsStream) wait() { <-s.done }

// servePost serves one JSON-RPC message or batch per HTTP request. No server
// requests are possible here.
func (gw *Gateway) servePost(w http.ResponseWriter, r *http.Request, principal string) {
	if !originAllowed(r) {
		// A browser page of another origin may not drive the gateway
		// (the same rule as for WebSocket upgrades).
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":4003,"message":"forbidden: foreign Origin"}}`)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, gw.cfg.ReadLimit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":4013,"message":"message too large","data":{"limit":%d}}}`, gw.cfg.ReadLimit)
			return
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The body counts against the gateway's memory budget while it is
	// served (its calls are turned away 4029 past it).
	gw.memory.add(int64(len(body)))
	defer gw.memory.add(-int64(len(body)))
	cc := gw.newClientConn(principal, r.Header)
	defer cc.close("request_done")
	resp := jsonrpc.ServePayload(r.Context(), body, cc, gw.cfg.MaxBatch)
	if resp == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// originAllowed reports whether a request's Origin (if any) is the
// gateway's own host or loopback.
func originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser's cross-origin request
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, pattern := range loopbackOrigins {
		if ok, _ := path.Match(pattern, strings.ToLower(u.Host)); ok {
			return true
		}
	}
	return false
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

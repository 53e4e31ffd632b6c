package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Defaults for ConnOptions.
const (
	defaultMaxBatch      = 100
	defaultMaxConcurrent = 64
)

// ConnOptions configures a Conn. The zero value is a Conn that makes calls
// but answers every incoming call with CodeMethodNotFound.
type ConnOptions struct {
	// Handler serves incoming calls and notifications; nil answers every
	// call with CodeMethodNotFound and ignores notifications.
	Handler Handler
	// Preempter sees incoming requests before they are queued for Handler;
	// nil means none.
	Preempter Preempter
	// MaxBatch is the most elements an incoming batch array may have; zero
	// means 100. A longer batch is answered with a single CodeInvalidRequest
	// error and not served.
	MaxBatch int
	// MaxConcurrent is the most incoming requests served at once; zero means
	// 64. Up to MaxConcurrent more wait in a queue, and while the queue is
	// longer than that, or more than MaxConcurrent answers decided in the
	// read loop (errors, a Preempter's) wait to be written, the read loop
	// stops reading (backpressure). Only then can responses to this side's
	// calls be held up: a handler waiting on the peer deadlocks only if
	// MaxConcurrent handlers wait on the peer and more than MaxConcurrent
	// further requests arrive ahead of the answers.
	MaxConcurrent int
	// TooLarge is the error answered (with a null id) for a payload the
	// stream dropped as too large; nil means CodeInvalidRequest "message too
	// large".
	TooLarge *Error
	// Unmatched receives responses whose id matches none of this side's
	// pending calls (for example answers to requests a previous connection
	// sent). It is called in the read loop, so it must not block. Nil means
	// they are reported to OnError and dropped.
	Unmatched func(*Response)
	// EOFGrace is how long the calls already read may go on when the peer
	// ends its input cleanly (the stream's Read returns io.EOF), as a
	// client does that has sent its last request and waits for the
	// answers: the Conn stops reading, fails this side's pending and new
	// calls with ErrClosed (no answer can come any more), and lets the
	// peer's calls run and send their responses (and Notify still writes);
	// when they are done, or the grace has passed and their contexts are
	// cancelled (cause ErrClosed), it ends. Zero means no grace: the calls
	// are cancelled at once, as for any other end of the connection.
	EOFGrace time.Duration
	// Budget accounts for the bytes of the payloads read and not yet done
	// with (their calls answered and the answers written); when it is
	// spent the Conn stops reading until it has room. Nil means none.
	Budget Budget
	// OnDone, if set, is called once the connection has ended and Done is
	// closed, on the connection's last goroutine, which ends when it
	// returns: a caller that must act when the connection ends need not
	// keep a goroutine of its own waiting for Done.
	OnDone func()
	// OnError is told of problems that have no caller to return to: failed
	// writes of responses, responses to unknown ids, failed notifications. It
	// may be called from several goroutines at once, including the read
	// loop, so it must not block. Nil means ignore them.
	OnError func(error)
}

// Conn is a JSON-RPC connection over a Stream, in both directions: it serves
// the peer's requests with a Handler, and sends its own with Call and Notify.
// Its methods may be called concurrently.
//
// A Conn ends when the peer closes the stream, reading fails, the ctx given
// to NewConn is cancelled, or Close is called. Then handler contexts are
// cancelled and pending calls fail with ErrClosed; responses of handlers
// still running are written if the stream allows; and once every goroutine
// has finished, the stream is closed and Done is closed. With
// ConnOptions.EOFGrace, a clean end of the peer's input first lets the
// calls already read finish.
type Conn struct {
	stream        Stream
	handler       Handler
	preempter     Preempter
	maxBatch      int
	maxConcurrent int
	onError       func(error)
	unmatched     func(*Response)
	onDone        func()
	tooLarge      *Error
	eofGrace      time.Duration
	budget        Budget

	parent   context.Context         // the ctx given to NewConn
	ctx      context.Context         // parent of handler contexts; cancelled (cause ErrClosed) when the connection ends
	cancel   context.CancelCauseFunc // cancels ctx
	writeCtx context.Context         // for writing responses: not cancelled when the connection ends, so late responses still go out while the stream is open

	room      chan struct{} // signalled (capacity 1) when the queue of waiting requests or the answers being written (answering) shrink
	inputDone chan struct{} // closed by the read loop when it stops reading
	done      chan struct{} // closed by the read loop when everything has stopped

	serving sync.WaitGroup // handler workers and response writers; waited for by the read loop
	wg      sync.WaitGroup // the watch callback once it has started; waited for by the read loop
	// stopWatch unregisters the callback that ends the connection when the
	// ctx given to NewConn is done.
	stopWatch func() bool

	closeOnce sync.Once
	closeErr  error // the stream's Close error; set by closeOnce

	mu        sync.Mutex                     // protects the fields below
	stopping  bool                           // the connection is ending; why says why
	inputEnd  bool                           // the read loop has stopped reading: no more responses can arrive
	why       error                          // returned by Err
	pending   map[ID]chan *Response          // our calls awaiting a response, by id
	incoming  map[ID]context.CancelCauseFunc // the peer's calls being served, by id
	queue     []task                         // accepted requests waiting for a worker
	running   int                            // workers serving requests or lingering
	answering int                            // goWrite writes not finished
	// lingering are the workers waiting for a next request (see work),
	// each by the channel that hands it one.
	lingering []chan task
	lastID    int64 // the last id allocated by Call
}

// NewConn returns a connection over s and starts reading from it. ctx is the
// parent of handler contexts; cancelling it ends the connection, like Close
// except that Err reports ctx's cause.
//
// The connection owns s: it closes s when it ends and all its goroutines
// have finished.
func NewConn(ctx context.Context, s Stream, opts ConnOptions) *Conn {
	c := &Conn{
		stream:        s,
		handler:       opts.Handler,
		preempter:     opts.Preempter,
		maxBatch:      opts.MaxBatch,
		maxConcurrent: opts.MaxConcurrent,
		onError:       opts.OnError,
		unmatched:     opts.Unmatched,
		onDone:        opts.OnDone,
		tooLarge:      opts.TooLarge,
		eofGrace:      opts.EOFGrace,
		budget:        opts.Budget,
		parent:        ctx,
		writeCtx:      context.WithoutCancel(ctx),
		room:          make(chan struct{}, 1),
		inputDone:     make(chan struct{}),
		done:          make(chan struct{}),
		pending:       make(map[ID]chan *Response),
		incoming:      make(map[ID]context.CancelCauseFunc),
	}
	if c.maxBatch <= 0 {
		c.maxBatch = defaultMaxBatch
	}
	if c.maxConcurrent <= 0 {
		c.maxConcurrent = defaultMaxConcurrent
	}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.wg.Add(1) // done by the callback, or by the read loop if it never runs
	c.stopWatch = context.AfterFunc(ctx, func() {
		defer c.wg.Done()
		c.shutdown(nil)
	})
	go c.readLoop()
	return c
}

// Call sends the call method(params) to the peer with the given id, waits
// for the response, and unmarshals its result into result (unless result is
// nil). If id is the zero ID, Call allocates an id of its own; otherwise the
// id must not be in use by another of this connection's pending calls.
// params is marshalled with encoding/json; it must marshal to an object or
// an array, or be nil for none.
//
// Responses are matched in the read loop, ahead of queued requests, so Call
// may be used from a handler even when MaxConcurrent handlers are busy.
//
// If the peer answers with an error, Call returns it as an *Error. If ctx is
// done first, Call returns ctx.Err() and a late response is dropped (Call
// does not tell the peer; send MethodCancelRequest to do so). If the
// connection ends first, or stops reading (the peer's input ended), Call
// returns ErrClosed.
func (c *Conn) Call(ctx context.Context, id ID, method string, params, result any) error {
	data, err := marshalParams(method, params)
	if err != nil {
		return err
	}
	ch := make(chan *Response, 1) // route never blocks
	c.mu.Lock()
	if c.stopping || c.inputEnd {
		c.mu.Unlock()
		return ErrClosed
	}
	if !id.IsValid() {
		id = c.newID()
	}
	if _, used := c.pending[id]; used {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc: call %q: id %v already in use", method, id)
	}
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.pending[id] == ch {
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}()

	if err := c.send(ctx, &Request{ID: id, Method: method, Params: data}); err != nil {
		return err
	}
	var resp *Response
	select {
	case resp = <-ch:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ctx.Done():
		select {
		case resp = <-ch: // it arrived just in time
		default:
			return ErrClosed
		}
	case <-c.inputDone:
		select {
		case resp = <-ch: // read just before the input ended
		default:
			return ErrClosed
		}
	}
	if resp.Error != nil {
		return resp.Error
	}
	if raw, ok := result.(*json.RawMessage); ok && raw != nil {
		// What json.Unmarshal does, without checking again what the
		// decoder checked, nor copying: the result's bytes are the
		// response's own, and the response is this call's alone.
		*raw = resp.Result
		return nil
	}
	if result != nil {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("jsonrpc: decoding result of %q: %w", method, err)
		}
	}
	return nil
}

// newID returns an id for a call that no pending call uses. c.mu must be
// held.
func (c *Conn) newID() ID {
	for {
		c.lastID++
		id := StringID(fmt.Sprintf("jsonrpc-%d", c.lastID))
		if _, used := c.pending[id]; !used {
			return id
		}
	}
}

// Notify sends the notification method(params) to the peer. params is
// marshalled as for Call. Notify returns once the notification is written
// (on a Queuer, queued), or ErrClosed if the connection has ended. It
// still writes while the calls of a peer whose input ended finish (see
// ConnOptions.EOFGrace).
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	data, err := marshalParams(method, params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	stopping := c.stopping
	c.mu.Unlock()
	if stopping {
		return ErrClosed
	}
	req := &Request{Method: method, Params: data}
	q, ok := c.stream.(Queuer)
	if !ok {
		return c.send(ctx, req)
	}
	payload, err := encodeRequest(req)
	if err != nil {
		return err
	}
	if err := q.Queue(payload); err != nil {
		return fmt.Errorf("jsonrpc: sending %q: %w", method, err)
	}
	return nil
}

// Close ends the connection: it stops reading, cancels handler contexts,
// closes the stream, and waits for the connection's goroutines, including
// running handlers, to finish. It returns the stream's Close error. Close
// must not be called from a handler, which it would wait for.
func (c *Conn) Close() error {
	c.shutdown(nil)
	<-c.done
	return c.closeErr
}

// Done returns a channel that is closed when the connection has ended (the
// peer closed it, reading failed, ctx was cancelled, or Close was called)
// and all its goroutines have finished.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended: io.EOF if the peer closed it, nil
// after Close, the cause of the ctx given to NewConn if it was cancelled, or
// else the read error. It returns nil until the connection starts ending.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}

// marshalParams marshals a call's params.
func marshalParams(method string, params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	data, err := marshalCompact(params)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: marshalling params of %q: %w", method, err)
	}
	if string(data) == "null" {
		return nil, nil
	}
	if !isStructured(data) {
		return nil, fmt.Errorf("jsonrpc: params of %q must be a JSON object or array, not %.20s", method, data)
	}
	return data, nil
}

// send writes the request req, whose params come from marshalParams.
func (c *Conn) send(ctx context.Context, req *Request) error {
	data, err := encodeRequest(req)
	if err != nil {
		return err
	}
	if err := c.stream.Write(ctx, data); err != nil {
		if c.ctx.Err() != nil {
			return fmt.Errorf("jsonrpc: sending %q: %w: %w", req.Method, ErrClosed, err)
		}
		return fmt.Errorf("jsonrpc: sending %q: %w", req.Method, err)
	}
	return nil
}

// encodeRequest encodes req, whose params come from marshalParams.
func encodeRequest(req *Request) ([]byte, error) {
	if data, ok := appendFast(make([]byte, 0, requestSize(req)), req, true); ok {
		return data, nil
	}
	return EncodeMessage(req)
}

// requestSize is the length of req's encoding, or more: its method and
// params, `{"jsonrpc":"2.0","id":,"method":"","params":}` around them
// (45 bytes), and the id (an integer's 20 digits at most, a string
// quoted).
func requestSize(req *Request) int {
	n := len(req.Params) + len(req.Method) + 45 + 20
	if s, ok := req.ID.value.(string); ok {
		n += len(s) + 2
	}
	return n
}

// readLoop reads and serves payloads until reading fails, or, on a
// Parker, parks until there is more to read; then lets the calls read
// finish when the input ended cleanly and EOFGrace allows, waits for the
// other goroutines and closes the stream. The read loop is a role, which
// goroutines take in turn (see takeTurns).
func (c *Conn) readLoop() { c.takeTurns(task{}, false) }

// worker is a goroutine started for t, counted as running and serving.
func (c *Conn) worker(t task) { c.takeTurns(t, true) }

// takeTurns is a goroutine of the connection: a worker serving t if
// serving, else the read loop, and then either in turn. When the read
// loop reads a request that a worker may serve, its goroutine serves it
// and passes the read loop on (see passReadLoop); a worker lingering
// after a request may be handed the read loop, and reads.
func (c *Conn) takeTurns(t task, serving bool) {
	growStack() // parsing a message goes deep, and so does a request (see workerLinger)
	var l linger
	defer l.stop()
	for {
		if serving {
			reads := c.work(t, &l)
			c.serving.Done()
			if !reads {
				return
			}
		}
		var err error
		if t, err = c.read(); err != nil {
			if p, ok := c.stream.(Parker); ok && errors.Is(err, ErrParked) {
				p.Park(c.readLoop)
				return
			}
			c.endInput(err)
			return
		}
		serving = true
	}
}

// read reads and serves payloads until a Read or the budget fails, or
// until it keeps a request to serve on its goroutine: it returns that
// request then, having counted the goroutine as a worker (see turnWorker)
// and passed the read loop on.
func (c *Conn) read() (task, error) {
	for {
		c.waitForRoom()
		payload, err := c.stream.Read(c.ctx)
		if errors.Is(err, ErrMessageTooLarge) {
			e := c.tooLarge
			if e == nil {
				e = NewError(CodeInvalidRequest, "message too large")
			}
			c.goWrite(encodeResponses(nil, []*Response{{Error: e}}, false), 0)
			continue
		}
		if err != nil {
			return task{}, err
		}
		if c.budget != nil {
			if err = c.budget.Acquire(c.ctx, len(payload)); err != nil {
				return task{}, err
			}
		}
		keep := c.handlePayload(payload)
		if keep.req == nil {
			continue
		}
		if reader, ok := c.turnWorker(); ok {
			c.passReadLoop(reader)
			return keep, nil
		}
		c.enqueue(keep)
	}
}

// endInput ends the connection once reading has failed with err.
func (c *Conn) endInput(err error) {
	c.mu.Lock()
	c.inputEnd = true
	c.mu.Unlock()
	close(c.inputDone)
	var served <-chan struct{}
	if errors.Is(err, io.EOF) && c.eofGrace > 0 {
		served = c.finishCalls()
	}
	c.stop(err)
	c.serving.Wait()
	if served != nil {
		<-served
	}
	if c.stopWatch() {
		c.wg.Done() // the callback will never run
	}
	c.wg.Wait()
	c.closeStream()
	close(c.done)
	if c.onDone != nil {
		c.onDone()
	}
}

// finishCalls waits, after a clean end of input, until the calls already
// read have been served, the grace has passed, or the connection is
// closed. It returns a channel closed once they have all been served.
func (c *Conn) finishCalls() <-chan struct{} {
	served := make(chan struct{})
	go func() { // no worker or writer starts after the read loop stopped
		c.serving.Wait()
		close(served)
	}()
	grace := time.NewTimer(c.eofGrace)
	defer grace.Stop()
	select {
	case <-served:
	case <-grace.C:
	case <-c.ctx.Done():
	}
	return served
}

// stop marks the connection as ending, for the reason why (or the cause of
// the parent context being done) unless it was already ending, and cancels
// handler contexts and pending calls.
func (c *Conn) stop(why error) {
	c.mu.Lock()
	if !c.stopping {
		c.stopping = true
		c.why = why
		if c.parent.Err() != nil {
			c.why = context.Cause(c.parent)
		}
	}
	c.mu.Unlock()
	c.cancel(ErrClosed)
}

// shutdown stops the connection and closes the stream, which makes the read
// loop end.
func (c *Conn) shutdown(why error) {
	c.stop(why)
	c.closeStream()
}

// closeStream closes the stream once.
func (c *Conn) closeStream() {
	c.closeOnce.Do(func() { c.closeErr = c.stream.Close() })
}

// goWrite writes payload (if any) in a new goroutine, so that the read
// loop does not wait for the peer to read, then releases held bytes of the
// budget. The read loop waits, though, while more than MaxConcurrent such
// writes are unfinished (see waitForRoom): a peer that sends and never
// reads would otherwise have a goroutine each for the answers to
// everything it sends (a flood of small calls answered in the read loop,
// the gateway's "overloaded" among them, is bounded by no budget of bytes
// that its payloads hold).
func (c *Conn) goWrite(payload []byte, held int) {
	c.mu.Lock()
	c.answering++
	c.mu.Unlock()
	c.serving.Go(func() {
		if payload != nil {
			c.write(payload)
		}
		c.release(held)
		c.mu.Lock()
		c.answering--
		c.mu.Unlock()
		c.signalRoom()
	})
}

// signalRoom tells a read loop waiting for room (waitForRoom) to look
// again.
func (c *Conn) signalRoom() {
	select {
	case c.room <- struct{}{}:
	default: // already signalled
	}
}

// release gives held bytes back to the budget.
func (c *Conn) release(held int) {
	if c.budget != nil && held > 0 {
		c.budget.Release(held)
	}
}

// write writes payload, a response, reporting failure to OnError.
func (c *Conn) write(payload []byte) {
	if err := c.stream.Write(c.writeCtx, payload); err != nil {
		c.report(fmt.Errorf("jsonrpc: writing response: %w", err))
	}
}

// report tells OnError of err.
func (c *Conn) report(err error) {
	if c.onError != nil {
		c.onError(err)
	}
}

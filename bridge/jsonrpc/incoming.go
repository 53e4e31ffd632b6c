package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// task is an incoming request accepted for the Handler. A task without
// one hands a lingering worker the read loop (see passReadLoop).
type task struct {
	req    *Request
	ctx    context.Context         // the handler's context
	cancel context.CancelCauseFunc // cancels ctx; nil for a notification
	reply  *replier                // collects the response (none for a notification)
}

// handlePayload serves one payload. It runs in the read loop, and so never
// waits for a handler or for a write. It queues the requests it accepts
// for workers, but for the last, which it returns unqueued for the read
// loop to keep (a task without a request if none): its own goroutine
// serves it if it may (see read).
func (c *Conn) handlePayload(payload []byte) (keep task) {
	held := 0 // what the budget holds for payload
	if c.budget != nil {
		held = len(payload)
	}
	// A Stream's payload is the Conn's: its messages may keep parts of it.
	msgs, batch, err := decodePayload(payload, true)
	var early []*Response // responses decided here, in the read loop
	var berr *BatchError
	var derr *DecodeError
	switch {
	case errors.As(err, &berr):
		for _, d := range berr.Invalid {
			early = append(early, &Response{ID: d.ID, Error: d.Err})
		}
	case errors.As(err, &derr):
		c.goWrite(encodeResponses(nil, []*Response{{ID: derr.ID, Error: derr.Err}}, false), held)
		return task{}
	}
	if n := len(msgs) + len(early); batch && n > c.maxBatch {
		msg := fmt.Sprintf("batch too large: %d elements, at most %d", n, c.maxBatch)
		c.goWrite(encodeResponses(nil, []*Response{{Error: NewError(CodeInvalidRequest, msg)}}, false), held)
		return task{}
	}

	r := &replier{batch: batch, open: 1, refs: 1, held: held}
	for _, m := range msgs {
		switch m := m.(type) {
		case *Response:
			c.route(m)
		case *Request:
			resp, t := c.accept(m, r)
			if resp != nil {
				early = append(early, resp)
			}
			if t.req != nil {
				if keep.req != nil {
					c.enqueue(keep)
				}
				keep = t
			}
		}
	}
	if all, last := r.done(early...); last && len(all) > 0 {
		c.goWrite(encodeResponses(nil, all, r.batch), 0)
	}
	c.unref(r)
	return keep
}

// route delivers a response to the Call waiting for it.
func (c *Conn) route(resp *Response) {
	c.mu.Lock()
	ch, ok := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	c.mu.Unlock()
	switch {
	case ok:
		ch <- resp
	case c.unmatched != nil:
		c.unmatched(resp)
	case resp.Error != nil:
		c.report(fmt.Errorf("jsonrpc: response for unknown id %v: %w", resp.ID, resp.Error))
	default:
		c.report(fmt.Errorf("jsonrpc: response for unknown id %v", resp.ID))
	}
}

// accept takes an incoming request: it handles cancellation, duplicate ids
// and the Preempter, and returns the response to the request if it has
// one already, else the task that serves it with the Handler (a task
// without a request if none).
func (c *Conn) accept(req *Request, r *replier) (*Response, task) {
	if !req.IsCall() && req.Method == MethodCancelRequest {
		c.cancelIncoming(req.Params)
		return nil, task{}
	}
	if req.IsCall() {
		c.mu.Lock()
		_, dup := c.incoming[req.ID]
		c.mu.Unlock()
		if dup {
			return &Response{ID: req.ID, Error: NewError(CodeInvalidRequest, fmt.Sprintf("duplicate request id %v", req.ID))}, task{}
		}
	}
	if c.preempter != nil {
		result, err := c.preempter.Preempt(c.ctx, req)
		if !errors.Is(err, ErrNotHandled) {
			if !req.IsCall() {
				return nil, task{}
			}
			return response(c.ctx, req, result, err), task{}
		}
	}
	if c.handler == nil {
		if !req.IsCall() {
			return nil, task{}
		}
		return &Response{ID: req.ID, Error: methodNotFound(req)}, task{}
	}
	t := task{req: req, ctx: c.ctx, reply: r}
	if req.IsCall() {
		t.ctx, t.cancel = context.WithCancelCause(c.ctx)
		c.mu.Lock()
		c.incoming[req.ID] = t.cancel
		c.mu.Unlock()
	}
	r.expect(req.IsCall())
	return nil, t
}

// cancelIncoming serves MethodCancelRequest: it cancels the handler context
// of the call whose id is in params. Unknown ids are ignored.
func (c *Conn) cancelIncoming(params json.RawMessage) {
	var p struct {
		ID ID `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || !p.ID.IsValid() {
		return
	}
	c.mu.Lock()
	cancel := c.incoming[p.ID]
	c.mu.Unlock()
	if cancel != nil {
		cancel(ErrCancelledByPeer)
	}
}

// enqueue starts a worker for t, or queues t if MaxConcurrent workers are
// running.
func (c *Conn) enqueue(t task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if next := c.popLingering(); next != nil {
		next <- t
		return
	}
	if c.running < c.maxConcurrent {
		c.running++
		c.serving.Add(1)
		go c.worker(t)
		return
	}
	c.queue = append(c.queue, t)
}

// popLingering takes the latest lingering worker's channel (the warmest
// stack) off Conn.lingering, or returns nil if none lingers. c.mu is held.
func (c *Conn) popLingering() chan task {
	n := len(c.lingering)
	if n == 0 {
		return nil
	}
	next := c.lingering[n-1]
	c.lingering = c.lingering[:n-1]
	return next
}

// turnWorker counts the read loop's goroutine as a worker (running and
// serving), for a request it serves itself, if a worker lingers, whose
// place it takes (the lingering worker then takes the read loop: reader
// is where to hand it), or if a worker may start (reader is nil: a new
// goroutine takes the read loop). It reports whether it did.
func (c *Conn) turnWorker() (reader chan task, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if reader = c.popLingering(); reader == nil {
		if c.running >= c.maxConcurrent {
			return nil, false
		}
		c.running++
	}
	c.serving.Add(1)
	return reader, true
}

// passReadLoop hands the read loop to reader, a lingering worker's
// channel, or to a new goroutine if nil, as the read loop's goroutine
// turns worker (see turnWorker). The read loop's goroutine serves the
// request it read, where handing the request to a worker would make it
// wait for that worker to wake: a request waits for no other goroutine,
// and the next reader wakes while it is served.
func (c *Conn) passReadLoop(reader chan task) {
	if reader != nil {
		reader <- task{}
		return
	}
	go c.readLoop()
}

// workerLinger is how long a worker with nothing left to serve waits for
// the next request before it ends. A goroutine started for a request
// grows its stack, copying it, as the request goes deep (through gRPC in
// the gateway); one that served the request before has grown it already.
// A client's next request often comes within microseconds, but under load
// milliseconds apart: with 64 sessions calling at once through the
// gateway, 1 ms made 1.2 new goroutines per call, 10 ms none. An idle
// connection keeps no worker, and once the peer's input has ended none
// lingers: no request can come.
const workerLinger = 10 * time.Millisecond

// linger is what a goroutine lingers with, made on its first linger and
// kept while it takes turns (see takeTurns).
type linger struct {
	next  chan task // where enqueue hands a lingering worker its task
	timer *time.Timer
}

// wait starts a linger: next is to be listed in Conn.lingering.
func (l *linger) wait() {
	if l.next == nil {
		l.next = make(chan task, 1)
		l.timer = time.NewTimer(workerLinger)
	} else {
		l.timer.Reset(workerLinger)
	}
}

// stop stops the timer, if a linger made one.
func (l *linger) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
}

// work serves t, then queued tasks until the queue is empty, then the
// requests that come while it lingers (with l), until it stops lingering
// or is handed the read loop (see passReadLoop), which it reports; it is
// then no longer counted as running.
func (c *Conn) work(t task, l *linger) (reads bool) {
	for {
		if t.req == nil {
			return true
		}
		c.serve(t)
		c.mu.Lock()
		if len(c.queue) > 0 {
			t = c.queue[0]
			c.queue[0] = task{}
			c.queue = c.queue[1:]
			c.mu.Unlock()
			c.signalRoom()
			continue
		}
		l.wait()
		c.lingering = append(c.lingering, l.next)
		c.mu.Unlock()
		select {
		case t = <-l.next:
			continue
		case <-l.timer.C:
		case <-c.inputDone: // no request can come for it
		case <-c.ctx.Done():
		}
		c.mu.Lock()
		if i := slices.Index(c.lingering, l.next); i >= 0 {
			c.lingering = slices.Delete(c.lingering, i, i+1)
			c.running--
			c.mu.Unlock()
			return false
		}
		c.mu.Unlock()
		t = <-l.next // enqueue handed it a task as it stopped waiting
	}
}

// waitForRoom waits, in the read loop, while more than MaxConcurrent
// requests are queued or more than MaxConcurrent answers are being written
// by goWrite, or until the connection ends.
func (c *Conn) waitForRoom() {
	for {
		c.mu.Lock()
		full := len(c.queue) > c.maxConcurrent || c.answering > c.maxConcurrent
		c.mu.Unlock()
		if !full {
			return
		}
		select {
		case <-c.room:
		case <-c.ctx.Done():
			return
		}
	}
}

// serve runs the Handler for t and sends the response. A request whose
// context is already done (the peer cancelled it, or the connection ended
// while it was queued) is answered without running the Handler.
func (c *Conn) serve(t task) {
	var result any
	err := context.Cause(t.ctx)
	if err == nil {
		result, err = c.handler.Handle(t.ctx, t.req)
	}
	if !t.req.IsCall() {
		if err != nil && t.ctx.Err() == nil && !errors.Is(err, ErrNotHandled) {
			c.report(fmt.Errorf("jsonrpc: notification %q: %w", t.req.Method, err))
		}
		c.unref(t.reply)
		return
	}
	resp := response(t.ctx, t.req, result, err)
	c.mu.Lock()
	delete(c.incoming, t.req.ID) // before answering, so the peer may reuse the id
	c.mu.Unlock()
	t.cancel(nil)
	c.finish(t.reply, resp)
}

// finish records that a call of r's payload has finished with resp; the
// last writes the payload's answers.
func (c *Conn) finish(r *replier, resp *Response) {
	if all, last := r.done(resp); last && len(all) > 0 {
		c.writeAnswers(all, r.batch)
	}
	c.unref(r)
}

// unref records that a part of r's payload is done with it (its answer,
// if any, written); the last releases what the budget holds for it.
func (c *Conn) unref(r *replier) {
	r.mu.Lock()
	r.refs--
	last := r.refs == 0
	r.mu.Unlock()
	if last {
		c.release(r.held)
	}
}

// replier collects the responses to one payload and encodes them when all
// are in: a single response as an object, a batch's as one array.
type replier struct {
	batch bool
	held  int // bytes the budget holds for the payload

	mu    sync.Mutex  // protects open, refs and resps
	open  int         // responses still expected, plus one until the read loop is done with the payload
	refs  int         // requests still being served, plus one until the read loop is done with the payload
	resps []*Response // responses so far
}

// expect records that one more request is served, with a response to
// come if it is a call.
func (r *replier) expect(call bool) {
	r.mu.Lock()
	r.refs++
	if call {
		r.open++
	}
	r.mu.Unlock()
}

// done records that one expected part has finished with resps, and
// reports whether it was the last part, with every response of the
// payload then, to encode and send.
func (r *replier) done(resps ...*Response) (all []*Response, last bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resps = append(r.resps, resps...)
	r.open--
	if r.open > 0 {
		return nil, false
	}
	all, r.resps = r.resps, nil // the results are garbage once encoded, while the payload waits to be written
	return all, true
}

// growStack grows the calling goroutine's stack to 32 KiB in one copy,
// while the stack is shallow: a reader or worker that let it grow a
// doubling at a time would copy it, deep in a call, three or four times
// on its first call. Workers end when idle; so does the reader of a
// parked connection (a gateway's idle WebSocket), and an unparked one
// (a client's, stdio) keeps the stack until the garbage collector,
// finding it mostly unused, halves it. (cadbridge's engine does the same
// with its own copy of this function: the bridge stays standard library
// only.)
//
//go:noinline
func growStack() {
	var frame [16 << 10]byte
	keepFrame(frame[:])
}

// keepFrame uses growStack's frame, so that the compiler keeps it.
//
//go:noinline
func keepFrame([]byte) {}

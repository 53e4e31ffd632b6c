package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cadbridge/cadbridge/bridge/jsonrpc"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/protocodec"
)

// engineStream is a client connection's Session stream to the engine. Calls
// are matched to results by call_id; every other frame the engine sends
// (server requests, their cancels, events) goes to onFrame.
type engineStream struct {
	stream  enginev1.EngineService_SessionClient
	cancel  context.CancelFunc
	onFrame func(*enginev1.SessionResponse)

	sendMu sync.Mutex // serializes stream.Send

	mu      sync.Mutex // guards nextID, pending and err
	nextID  uint64
	pending map[uint64]chan received
	err     error // why the stream ended; set once
	done    chan struct{}
}

// openEngineStream opens a Session stream for principal. It does not wait
// for the engine to acknowledge it: the first call goes right behind the
// open frame, and the stream ends (failing its calls) if the engine's first
// frame is not the acknowledgement.
func openEngineStream(ctx context.Context, client enginev1.EngineServiceClient, principal, gatewayID string, onFrame func(*enginev1.SessionResponse)) (*engineStream, error) {
	sctx, cancel := context.WithCancel(ctx)
	stream, err := client.Session(sctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open session stream: %w: %w", errEngineUnavailable, err)
	}
	open := &enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Open{Open: &enginev1.OpenStream{Principal: principal, GatewayId: gatewayID}}}
	if err := stream.Send(open); err != nil {
		cancel()
		return nil, fmt.Errorf("open session stream: %w: %w", errEngineUnavailable, err)
	}
	es := &engineStream{
		stream:  stream,
		cancel:  cancel,
		onFrame: onFrame,
		pending: map[uint64]chan received{},
		done:    make(chan struct{}),
	}
	go es.recvLoop()
	return es, nil
}

func (es *engineStream) recvLoop() {
	first, err := es.stream.Recv()
	if err != nil || first.GetOpened() == nil {
		es.cancel()
		es.end(fmt.Errorf("open session stream: %w: %v", errEngineUnavailable, err))
		return
	}
	for {
		// A result's wire JSON stays in the codec's buffer until the call
		// that receives it is done with it.
		rcv := new(protocodec.Received)
		if err = es.stream.RecvMsg(rcv); err != nil {
			break
		}
		resp := rcv.Response
		if r := resp.GetResult(); r != nil {
			es.mu.Lock()
			ch := es.pending[r.GetCallId()]
			delete(es.pending, r.GetCallId())
			es.mu.Unlock()
			if ch != nil {
				ch <- received{r, rcv.Release}
			}
			continue
		}
		if c := resp.GetClose(); c != nil {
			// The engine is stopping and has finished the stream's calls:
			// ending the stream here lets its handler return.
			es.cancel()
			err = fmt.Errorf("the engine closed the stream (%s)", c.GetReason())
			break
		}
		if es.onFrame != nil {
			es.onFrame(resp)
		}
	}
	es.end(fmt.Errorf("%w: session stream: %v", errEngineUnavailable, err))
}

// end records why the stream ended and fails the calls waiting on it.
func (es *engineStream) end(err error) {
	es.mu.Lock()
	es.err = err
	es.pending = nil
	es.mu.Unlock()
	close(es.done)
}

// received is a call's result and what gives back the buffer its wire
// JSON is in (protocodec.Received.Release).
type received struct {
	result  *enginev1.SessionCallResult
	release func()
}

// call sends one call and waits for its result, and the release of the
// buffer its wire JSON is in, to call once it is no longer used (or not:
// the buffer is then left to the garbage collector). A broken stream is
// errEngineUnavailable. When ctx ends, call stops waiting; only a client's
// $/cancelRequest also cancels the work in the engine (CancelCall): work
// of a connection that merely broke goes on, for its client to resume the
// session and answer its requests, or to learn the outcome from
// operations.get.
func (es *engineStream) call(ctx context.Context, call *enginev1.SessionCall) (*enginev1.SessionCallResult, func(), error) {
	ch := make(chan received, 1)
	es.mu.Lock()
	if es.pending == nil {
		err := es.err
		es.mu.Unlock()
		return nil, nil, err
	}
	es.nextID++
	call.CallId = es.nextID
	es.pending[call.CallId] = ch
	es.mu.Unlock()
	if err := es.send(&enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Call{Call: call}}); err != nil {
		es.forget(call.CallId)
		return nil, nil, fmt.Errorf("%w: send: %v", errEngineUnavailable, err)
	}
	select {
	case r := <-ch:
		return r.result, r.release, nil
	case <-es.done:
		es.mu.Lock()
		err := es.err
		es.mu.Unlock()
		return nil, nil, err
	case <-ctx.Done():
		es.forget(call.CallId)
		if errors.Is(context.Cause(ctx), jsonrpc.ErrCancelledByPeer) {
			_ = es.send(&enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Cancel{Cancel: &enginev1.CancelCall{CallId: call.CallId}}})
		}
		return nil, nil, ctx.Err()
	}
}

func (es *engineStream) forget(id uint64) {
	es.mu.Lock()
	if es.pending != nil {
		delete(es.pending, id)
	}
	es.mu.Unlock()
}

func (es *engineStream) send(req *enginev1.SessionRequest) error {
	es.sendMu.Lock()
	defer es.sendMu.Unlock()
	return es.stream.Send(req)
}

// close detaches from the engine (the session stays there) and waits for
// the receive loop to end.
func (es *engineStream) close(reason string) {
	_ = es.send(&enginev1.SessionRequest{Frame: &enginev1.SessionRequest_Close{Close: &enginev1.CloseStream{Reason: reason}}})
	es.sendMu.Lock()
	_ = es.stream.CloseSend()
	es.sendMu.Unlock()
	es.cancel()
	<-es.done
}

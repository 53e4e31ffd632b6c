package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ServePayload serves one payload synchronously, as for the body of an HTTP
// POST, and returns the response payload, or nil if there is nothing to send
// (the payload held only notifications or responses). The calls of a batch
// are served concurrently, and their responses come in the order of the
// calls, followed by the errors for invalid elements. maxBatch is as
// ConnOptions.MaxBatch; a nil h answers every call with CodeMethodNotFound.
//
// There is no connection, so the handlers cannot call the peer, responses in
// the payload are ignored, and MethodCancelRequest is an ordinary
// notification.
func ServePayload(ctx context.Context, payload []byte, h Handler, maxBatch int) []byte {
	if maxBatch <= 0 {
		maxBatch = defaultMaxBatch
	}
	msgs, batch, err := DecodePayload(payload)
	var invalid []*Response
	var berr *BatchError
	var derr *DecodeError
	switch {
	case errors.As(err, &berr):
		for _, d := range berr.Invalid {
			invalid = append(invalid, &Response{ID: d.ID, Error: d.Err})
		}
	case errors.As(err, &derr):
		return encodeResponses(nil, []*Response{{ID: derr.ID, Error: derr.Err}}, false)
	}
	if n := len(msgs) + len(invalid); batch && n > maxBatch {
		msg := fmt.Sprintf("batch too large: %d elements, at most %d", n, maxBatch)
		return encodeResponses(nil, []*Response{{Error: NewError(CodeInvalidRequest, msg)}}, false)
	}

	resps := make([]*Response, len(msgs)) // by message; nil for no response
	seen := make(map[ID]bool)
	var wg sync.WaitGroup
	for i, m := range msgs {
		req, ok := m.(*Request)
		if !ok {
			continue
		}
		if req.IsCall() {
			if seen[req.ID] {
				resps[i] = &Response{ID: req.ID, Error: NewError(CodeInvalidRequest, fmt.Sprintf("duplicate request id %v", req.ID))}
				continue
			}
			seen[req.ID] = true
		}
		wg.Go(func() { resps[i] = serveRequest(ctx, h, req) })
	}
	wg.Wait()

	var out []*Response
	for _, resp := range resps {
		if resp != nil {
			out = append(out, resp)
		}
	}
	return encodeResponses(nil, append(out, invalid...), batch)
}

// serveRequest serves req with h and returns the response, or nil for a
// notification.
func serveRequest(ctx context.Context, h Handler, req *Request) *Response {
	if h == nil {
		if !req.IsCall() {
			return nil
		}
		return &Response{ID: req.ID, Error: methodNotFound(req)}
	}
	result, err := h.Handle(ctx, req)
	if !req.IsCall() {
		return nil
	}
	return response(ctx, req, result, err)
}

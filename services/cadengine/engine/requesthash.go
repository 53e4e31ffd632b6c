package engine

import (
	"bytes"
	"crypto/sha256"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
)

// A request hash tells a retry (the same request again) from another
// request under the same operation id. It is the SHA-256 of the method,
// a zero byte and the request's canonical form: the deterministic
// protobuf encoding of a copy of the request without the fields a retry
// may change (operation_id, session_id), with each step's arguments in
// args_json in their canonical form (see appendArgs) and the Struct args
// left out (they are read into args_json's place), so that arguments
// that say the same in other words (keys in another order, 1 for 1.0)
// hash alike.
//
// callHash and batchHash write that encoding field by field with
// protowire instead of building the copy and marshalling it: the same
// bytes (TestRequestHashEncoding compares them with proto.Marshal of
// the copy) without a message per step. TestRequestHashCoversEveryField
// proves that every other field of the requests counts.
type requestHash [sha256.Size]byte

// Field numbers of the requests' fields that the hash covers.
const (
	callDocumentID = 2
	callTool       = 3
	callArgsJSON   = 6

	batchDocumentID       = 2
	batchSteps            = 3
	batchDryRun           = 4
	batchVerbose          = 5
	batchOnError          = 6
	batchPreconditions    = 8
	batchExpectedRevision = 9

	stepTool     = 1
	stepBind     = 3
	stepArgsJSON = 4
)

func callHash(req *enginev1.CallToolRequest, s *stepPlan) requestHash {
	var tail denseArgs
	return hashWith(gatewayv1.MethodToolsCall, false, func(b []byte, _ *[]byte) []byte {
		b, tail = callCanonicalSplit(b, req, s)
		return b
	}, &tail)
}

// hashLaterFrom is the length of a call's canonical arguments in a dense
// form from which setCallHash takes its hash on another goroutine.
const hashLaterFrom = 256 << 10

// setCallHash sets o's request hash to callHash(req, s). For a call whose
// dense arguments are large (hashLaterFrom) it is taken on another
// goroutine while the call goes on, to be read with o.requestHash: the
// claim needs it only when the id is taken already, and the journal
// only when the call commits, by which time a second core has long made
// it. The goroutine reads only the request's head, encoded here, and the
// dense arguments, which nothing changes (the call's plan and run are
// reused once it ends; the arguments are its own).
func setCallHash(o *opEntry, req *enginev1.CallToolRequest, s *stepPlan) {
	if s.dense == nil || s.dense.canonicalSize() < hashLaterFrom {
		o.hash = callHash(req, s)
		return
	}
	head, tail := callCanonicalSplit(append([]byte(gatewayv1.MethodToolsCall), 0), req, s)
	o.hashed = make(chan struct{})
	go func() {
		h := sha256.New()
		h.Write(head)
		tail.writeCanonical(h)
		h.Sum(o.hash[:0])
		close(o.hashed)
	}()
}

// callCanonical appends the canonical form of a tools.call request.
func callCanonical(b []byte, req *enginev1.CallToolRequest, s *stepPlan) []byte {
	b, tail := callCanonicalSplit(b, req, s)
	if tail != nil {
		buf := bytes.NewBuffer(b)
		tail.writeCanonical(buf)
		b = buf.Bytes()
	}
	return b
}

// callCanonicalSplit is callCanonical in two parts: what it appends to b,
// and the arguments in a tool's dense form that follow it (the last
// field, megabytes for a large entity_batch_create), which are written
// straight to the hash rather than behind the rest; nil for other
// arguments, which are appended.
func callCanonicalSplit(b []byte, req *enginev1.CallToolRequest, s *stepPlan) (head []byte, tail denseArgs) {
	if req.DocumentId != nil {
		b = appendString(b, callDocumentID, *req.DocumentId)
	}
	if req.Tool != "" {
		b = appendString(b, callTool, req.Tool)
	}
	if s.dense != nil {
		b = protowire.AppendTag(b, callArgsJSON, protowire.BytesType)
		return protowire.AppendVarint(b, uint64(s.dense.canonicalSize())), s.dense
	}
	return s.appendArgs(b, callArgsJSON, true), nil // optional: present even when empty
}

func batchHash(req *enginev1.ExecuteBatchRequest, plans []*stepPlan) requestHash {
	return hashWith(gatewayv1.MethodCadBatch, true, func(b []byte, scratch *[]byte) []byte {
		return batchCanonical(b, scratch, req, plans)
	}, nil)
}

// batchCanonical appends the canonical form of a cad.batch request;
// scratch is a buffer for one step.
func batchCanonical(b []byte, scratch *[]byte, req *enginev1.ExecuteBatchRequest, plans []*stepPlan) []byte {
	if req.DocumentId != "" {
		b = appendString(b, batchDocumentID, req.DocumentId)
	}
	for i, step := range req.Steps {
		body := (*scratch)[:0]
		if step.Tool != "" {
			body = appendString(body, stepTool, step.Tool)
		}
		if step.Bind != nil {
			body = appendString(body, stepBind, *step.Bind)
		}
		body = plans[i].appendArgs(body, stepArgsJSON, false)
		b = protowire.AppendTag(b, batchSteps, protowire.BytesType)
		b = protowire.AppendBytes(b, body)
		*scratch = body
	}
	if req.DryRun != nil {
		b = appendBool(b, batchDryRun, *req.DryRun)
	}
	if req.Verbose != nil {
		b = appendBool(b, batchVerbose, *req.Verbose)
	}
	if req.OnError != nil {
		b = protowire.AppendTag(b, batchOnError, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*req.OnError))
	}
	for _, p := range req.Preconditions {
		b = appendMessage(b, batchPreconditions, p)
	}
	if req.ExpectedRevision != nil {
		b = protowire.AppendTag(b, batchExpectedRevision, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*req.ExpectedRevision))
	}
	return b
}

// appendArgs appends the step's arguments as field num in their
// canonical form: the deterministic protobuf encoding of the decoded
// message (which arguments in a tool's dense form carry, made as they
// were read); for a step with references, the generic form written out
// (references included); for a step that does not decode, the bytes as
// given. An empty form is left out unless present is set (an optional
// field).
func (s *stepPlan) appendArgs(b []byte, num protowire.Number, present bool) []byte {
	var args []byte
	switch {
	case s.dense != nil:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		buf := bytes.NewBuffer(protowire.AppendVarint(b, uint64(s.dense.canonicalSize())))
		s.dense.writeCanonical(buf)
		return buf.Bytes()
	case s.decoded != nil:
		opts := proto.MarshalOptions{Deterministic: true}
		if n := opts.Size(s.decoded); n > 0 || present {
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(n))
			// Size succeeded, so this does, and its sizes hold.
			opts.UseCachedSize = true
			b, _ = opts.MarshalAppend(b, s.decoded)
		}
		return b
	case s.template != nil:
		var err error
		if args, err = contract.AppendGeneric(nil, s.template); err != nil {
			args = s.raw
		}
	default:
		args = s.raw
	}
	if len(args) > 0 || present {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, args)
	}
	return b
}

func appendString(b []byte, num protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func appendMessage(b []byte, num protowire.Number, m proto.Message) []byte {
	opts := proto.MarshalOptions{Deterministic: true}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(opts.Size(m)))
	b, _ = opts.MarshalAppend(b, m) // a request that arrived as a proto always encodes
	return b
}

// hashWith hashes the method and what fields appends, in scratch buffers
// from hashBuffers (fields gets a second one for nested messages when it
// asks for it with nested, else nil), followed by the canonical encoding
// of *tail when fields sets it (tail may be nil).
func hashWith(method string, nested bool, fields func(b []byte, scratch *[]byte) []byte, tail *denseArgs) requestHash {
	buf := hashBuffers.Get().(*[]byte)
	var scratch *[]byte
	if nested {
		scratch = hashBuffers.Get().(*[]byte)
	}
	b := fields(append(append((*buf)[:0], method...), 0), scratch)
	var sum requestHash
	if tail == nil || *tail == nil {
		sum = sha256.Sum256(b)
	} else {
		h := sha256.New()
		h.Write(b)
		(*tail).writeCanonical(h)
		h.Sum(sum[:0])
	}
	*buf = b
	putHashBuffer(buf)
	if scratch != nil {
		putHashBuffer(scratch)
	}
	return sum
}

// putHashBuffer returns p to hashBuffers unless it grew past what is
// worth keeping.
func putHashBuffer(p *[]byte) {
	if cap(*p) <= 64<<10 {
		hashBuffers.Put(p)
	}
}

// hashBuffers are hashWith's scratch buffers.
var hashBuffers = sync.Pool{New: func() any { return new(make([]byte, 0, 512)) }}

// storedHash is a journal record's request hash (a record of another
// length, which no engine writes, matches no request).
func storedHash(b []byte) requestHash {
	var h requestHash
	copy(h[:], b)
	return h
}

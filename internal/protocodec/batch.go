package protocodec

import (
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// A cad.batch call, as the engine receives it.
//
// proto.Unmarshal of a SessionRequest carrying an ExecuteBatchRequest
// allocates three times a step (the BatchStep, its tool, a copy of its
// args), some 320 times for a batch of 100. The Codec reads the steps
// itself: the request is copied once, into a new buffer that the garbage
// collector owns (not one of the pool: the steps point into it), the
// steps are one slice of BatchStep values, a tool named in the catalog
// (enginev1.Tools) is the catalog's own string, a step's args_json is its
// bytes in that buffer, and the steps' binds are substrings of one
// string. Everything else of the call and of the batch (its call id, its
// trace context, document id, preconditions, unknown fields) is spliced
// out of the encoding and left to proto.Unmarshal: fields may come in any
// order, so the message is the one proto.Unmarshal reads, whatever the
// messages gain. A step is read by hand only when it is tool, bind and
// args_json, each of the wire type it has and the strings UTF-8; anything
// else (the deprecated Struct args, whose nesting proto.Unmarshal bounds
// by depth, a field the decoder does not know, bytes cut short), and a
// call that is not plainly one batch, is left whole to proto.Unmarshal,
// its result and its error (TestCodecUnmarshalBatchAgrees,
// FuzzCodecUnmarshal, TestBatchStepFields).
//
// The cost: a step's args keep the whole request's bytes alive, not only
// their own. In the engine nothing keeps them past the call (the plans
// that point at them are released when ExecuteBatch returns; a dry run's
// preview points at them until it is sent), and nothing writes to them;
// each is capped at its own length, so an append copies it rather than
// overwrite the next step's.

// batchCall reports whether head, the first bytes of a SessionRequest's
// encoding (the first buffer received), show a call of cad.batch: the
// call's execute_batch field among the fields visible in head. It only
// picks the way a message is read: what it lets through that is no plain
// batch, unmarshalBatch reads with proto.Unmarshal; what it misses (a
// batch behind a trace context longer than the first buffer) is read with
// proto.Unmarshal from the start.
func batchCall(head []byte) bool {
	num, typ, n := protowire.ConsumeTag(head)
	if n < 0 || num != callNum || typ != protowire.BytesType {
		return false
	}
	size, m := protowire.ConsumeVarint(head[n:])
	if m < 0 {
		return false
	}
	head = head[n+m:]
	if uint64(len(head)) > size {
		head = head[:size]
	}
	for off := 0; off < len(head); {
		num, typ, k := protowire.ConsumeTag(head[off:])
		if k < 0 {
			return false
		}
		if num == executeBatchNum {
			return typ == protowire.BytesType
		}
		v := protowire.ConsumeFieldValue(num, typ, head[off+k:])
		if v < 0 {
			return false
		}
		off += k + v
	}
	return false
}

// unmarshalBatch is proto.Unmarshal(b, r), b a copy of its own that the
// steps of a cad.batch call may point into.
func (c *Codec) unmarshalBatch(b []byte, r *enginev1.SessionRequest) error {
	call, ok := c.spliceCall(b)
	if !ok {
		return proto.Unmarshal(b, r)
	}
	proto.Reset(r)
	r.Frame = &enginev1.SessionRequest_Call{Call: call}
	return nil
}

// spliceCall reads b, the encoding of a SessionRequest, when it is one
// call holding one execute_batch field that decodeBatch reads: the call's
// other fields with proto.Unmarshal, the batch with decodeBatch. ok is
// false for anything else, and for anything proto.Unmarshal refuses.
func (c *Codec) spliceCall(b []byte) (call *enginev1.SessionCall, ok bool) {
	batch, rest, ok := splitField(b, callNum, executeBatchNum)
	if !ok {
		return nil, false
	}
	shape, ok := scanBatch(batch)
	if !ok {
		return nil, false
	}
	call = new(enginev1.SessionCall)
	if err := proto.Unmarshal(rest, call); err != nil || call.Request != nil {
		return nil, false // its error, or its choice among the requests
	}
	req, ok := c.decodeBatch(batch, shape)
	if !ok {
		return nil, false
	}
	call.Request = &enginev1.SessionCall_ExecuteBatch{ExecuteBatch: req}
	return call, true
}

// batchShape is what scanBatch counts in the encoding of an
// ExecuteBatchRequest, for decodeBatch to allocate once.
type batchShape struct {
	steps     int // steps fields
	bound     int // steps with a bind
	bindBytes int // the length of the binds of those steps, every occurrence
	restBytes int // the length of the other fields, tags included
}

// scanBatch counts the steps of b, the encoding of an
// ExecuteBatchRequest, and their binds, and checks that decodeBatch can
// read each step (see scanStep). ok is false for anything else: a steps
// field of another wire type, a step scanStep refuses, bytes cut short.
func scanBatch(b []byte) (shape batchShape, ok bool) {
	for off := 0; off < len(b); {
		num, typ, k := consumeTag(b[off:])
		if k < 0 {
			return shape, false
		}
		if num != stepsNum {
			m := protowire.ConsumeFieldValue(num, typ, b[off+k:])
			if m < 0 {
				return shape, false
			}
			shape.restBytes += k + m
			off += k + m
			continue
		}
		if typ != protowire.BytesType {
			return shape, false
		}
		step, m := consumeBytes(b[off+k:])
		if m < 0 {
			return shape, false
		}
		bind, bound, ok := scanStep(step)
		if !ok {
			return shape, false
		}
		shape.steps++
		if bound {
			shape.bound++
			shape.bindBytes += bind
		}
		off += k + m
	}
	return shape, true
}

// scanStep checks that step, the encoding of a BatchStep, is made of its
// tool, bind and args_json fields only, each of bytes type (any number of
// times, as proto allows), its strings valid UTF-8 (proto3 strings, which
// proto.Unmarshal refuses otherwise). It returns the length of the step's
// binds, every occurrence, and whether it has one.
func scanStep(step []byte) (bind int, bound, ok bool) {
	for off := 0; off < len(step); {
		num, typ, k := consumeTag(step[off:])
		if k < 0 || typ != protowire.BytesType {
			return 0, false, false
		}
		v, m := consumeBytes(step[off+k:])
		if m < 0 {
			return 0, false, false
		}
		switch num {
		case stepToolNum:
			if !utf8.Valid(v) {
				return 0, false, false
			}
		case stepBindNum:
			if !utf8.Valid(v) {
				return 0, false, false
			}
			bind, bound = bind+len(v), true
		case stepArgsJSONNum:
		default:
			return 0, false, false
		}
		off += k + m
	}
	return bind, bound, true
}

// decodeBatch reads b, the encoding of an ExecuteBatchRequest that
// scanBatch counted as shape: the steps by hand, in one slice, pointing
// into b; the other fields with proto.Unmarshal. ok is false when
// proto.Unmarshal refuses those.
func (c *Codec) decodeBatch(b []byte, shape batchShape) (req *enginev1.ExecuteBatchRequest, ok bool) {
	req = new(enginev1.ExecuteBatchRequest)
	var rest []byte
	if shape.restBytes > 0 {
		rest = make([]byte, 0, shape.restBytes)
	}
	var steps []enginev1.BatchStep
	if shape.steps > 0 {
		steps = make([]enginev1.BatchStep, shape.steps)
		req.Steps = make([]*enginev1.BatchStep, shape.steps)
	}
	var binds bindText
	binds.grow(shape)
	i := 0
	for off := 0; off < len(b); {
		num, typ, k := consumeTag(b[off:])
		if num == stepsNum {
			step, m := consumeBytes(b[off+k:])
			c.decodeStep(&steps[i], step, &binds)
			req.Steps[i] = &steps[i]
			i++
			off += k + m
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+k:])
		rest = append(rest, b[off:off+k+m]...)
		off += k + m
	}
	// Merge: the steps are set; rest has none.
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(rest, req); err != nil {
		return nil, false
	}
	return req, true
}

// decodeStep sets s, a new BatchStep, to step, its encoding, which
// scanStep accepted. As proto.Unmarshal, the last occurrence of a field
// is its value, and an empty args_json is nil; unlike it, args_json is
// the bytes in step, capped at their length, and a tool of the catalog
// the catalog's string.
func (c *Codec) decodeStep(s *enginev1.BatchStep, step []byte, binds *bindText) {
	var bind []byte
	bound := false
	for off := 0; off < len(step); {
		num, _, k := consumeTag(step[off:])
		v, m := consumeBytes(step[off+k:])
		switch num {
		case stepToolNum:
			s.Tool = c.toolName(v)
		case stepBindNum:
			bind, bound = v, true
		default: // args_json
			s.ArgsJson = nil
			if len(v) > 0 {
				s.ArgsJson = v[:len(v):len(v)]
			}
		}
		off += k + m
	}
	if bound {
		s.Bind = binds.add(bind)
	}
}

// toolName is the tool named b: the catalog's string when it is one of
// the catalog's, which costs nothing, or a new one. Only the catalog's
// names are kept, so no input grows what the Codec holds.
func (c *Codec) toolName(b []byte) string {
	if name, ok := c.tools[string(b)]; ok {
		return name
	}
	return string(b)
}

// toolNames is the catalog's tool names, each its own key.
func toolNames() map[string]string {
	names := make(map[string]string, len(enginev1.Tools))
	for _, t := range enginev1.Tools {
		names[t.Name] = t.Name
	}
	return names
}

// bindText holds the binds of a batch's steps: their strings are
// substrings of one, their values one slice, for a step's Bind to point
// at.
type bindText struct {
	text   strings.Builder
	values []string
}

// grow makes room for the binds of shape.
func (t *bindText) grow(shape batchShape) {
	if shape.bound > 0 {
		t.text.Grow(shape.bindBytes)
		t.values = make([]string, 0, shape.bound)
	}
}

// add keeps bind and returns a pointer to it, for BatchStep.Bind. There
// is room for it (grow counted every bind), so the strings and values
// before it stay where they are.
func (t *bindText) add(bind []byte) *string {
	start := t.text.Len()
	t.text.Write(bind)
	t.values = append(t.values, t.text.String()[start:])
	return &t.values[len(t.values)-1]
}

// The numbers of the fields the Codec reads of a cad.batch call
// (TestBatchStepFields fails when BatchStep changes), kept as numbers for
// the loops over a batch's steps.
var (
	callNum         = field(&enginev1.SessionRequest{}, "call").Number()
	executeBatchNum = field(&enginev1.SessionCall{}, "execute_batch").Number()
	stepsNum        = field(&enginev1.ExecuteBatchRequest{}, "steps").Number()
	stepToolNum     = field(&enginev1.BatchStep{}, "tool").Number()
	stepBindNum     = field(&enginev1.BatchStep{}, "bind").Number()
	stepArgsJSONNum = field(&enginev1.BatchStep{}, "args_json").Number()
)

// consumeTag is protowire.ConsumeTag, the one-byte tags of the fields of
// a batch's steps read inline.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	if len(b) > 0 && b[0] < 0x80 && b[0] >= 1<<3 {
		return protowire.Number(b[0] >> 3), protowire.Type(b[0] & 7), 1
	}
	return protowire.ConsumeTag(b)
}

// consumeBytes is protowire.ConsumeBytes, a length under 128 read inline.
func consumeBytes(b []byte) ([]byte, int) {
	if len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
		return b[1 : 1+b[0]], 1 + int(b[0])
	}
	return protowire.ConsumeBytes(b)
}

// firstBuffer is the bytes of data's first buffer, nil if it has none.
func firstBuffer(data mem.BufferSlice) []byte {
	if len(data) == 0 {
		return nil
	}
	return data[0].ReadOnlyData()
}

// Package protocodec is the gRPC codec of the link between the gateway and
// the engine: protobuf, as grpc's own codec writes and reads it (peers see
// no difference), but cheaper for the large messages of that link.
//
// grpc's codec takes the buffer of a message from its default pool, whose
// tiers jump from 32 KiB to 1 MiB and which clears a buffer whole on every
// use: a 101 KiB message clears 1 MiB when it is marshalled and again when
// it is unmarshalled, or allocates one when the pool was emptied by a
// collection. The Codec's pool has a tier at every power of two, so a
// message takes a buffer at most twice its size, and does not clear it.
// And a SessionResponse carrying a call's wire JSON
// (SessionCallResult.wire_json, the engine's answers to JSON clients, a
// session.resume among them) is marshalled around those bytes, which go
// to the transport as they are, and unmarshalled around them, which stay
// in the buffer the message was read into: neither side copies them.
// Received into a [Received], that buffer is one of the Codec's pool,
// given back by its Release. The engine's side reads the steps of a
// cad.batch call itself, in a few allocations instead of three a step
// (see [Codec.Unmarshal]); they point into the one copy of the message.
package protocodec

import (
	"fmt"
	"math/bits"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/reflect/protoreflect"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Name is the codec's name, grpc's own codec's: the content subtype on
// the wire stays "proto".
const Name = "proto"

// Codec is an encoding.CodecV2. It is safe for concurrent use. Give it to
// a server with grpc.ForceServerCodecV2 and to a client's calls with
// grpc.ForceCodecV2.
type Codec struct {
	pool mem.BufferPool
	// tools is the catalog's tool names, each its own key, for a batch
	// step's tool to be the catalog's string (see toolName). It is never
	// written after New.
	tools map[string]string
}

// New returns a Codec with a buffer pool of its own.
func New() *Codec {
	return &Codec{pool: new(pool), tools: toolNames()}
}

// pool is the Codec's mem.BufferPool: a sync.Pool for every power of two
// from 256 bytes (minTier) to 16 MiB (maxTier); a larger buffer is made
// at its size and not kept. Unlike grpc's pools it does not clear a
// buffer it hands out (grpc's cleared 128 KiB for each 101 KiB answer,
// on both sides of the link): every buffer the Codec takes is written
// whole before it is read (a message marshalled from its start, a
// message received copied in at its length), and what lies past its
// length is never sent.
type pool struct {
	tiers [maxTier - minTier + 1]sync.Pool
}

const minTier, maxTier = 8, 24 // 1<<minTier bytes to 1<<maxTier bytes

// Get returns a buffer of length size, its bytes as a former user left
// them.
func (p *pool) Get(size int) *[]byte {
	t := max(bits.Len(uint(size-1)), minTier) // the least tier of size or more
	if t > maxTier {
		b := make([]byte, size)
		return &b
	}
	if b, ok := p.tiers[t-minTier].Get().(*[]byte); ok {
		*b = (*b)[:size]
		return b
	}
	b := make([]byte, size, 1<<t)
	return &b
}

// Put keeps b for the largest tier its capacity holds.
func (p *pool) Put(b *[]byte) {
	t := bits.Len(uint(cap(*b))) - 1 // the largest tier of cap(*b) or less
	if t < minTier || t > maxTier {
		return
	}
	p.tiers[t-minTier].Put(b)
}

// Name implements encoding.CodecV2.
func (c *Codec) Name() string { return Name }

// wireThreshold is the length of wire JSON from which a SessionResponse
// is marshalled around it: one HTTP/2 frame.
const wireThreshold = 16 << 10

// WireResult is a SessionResponse carrying a call's result as wire JSON
// that the Codec writes itself, into a buffer of its pool that the
// transport gives back once it has written it: a large answer is then
// written once, into the buffer that is sent, and nothing is allocated
// for it. It is not a proto.Message: only the Codec marshals it (send it
// with SendMsg on a stream that uses the Codec).
type WireResult struct {
	// Result is the result without its response: the wire JSON is its
	// response.
	Result *enginev1.SessionCallResult
	// Size is the length of the wire JSON, or more.
	Size int
	// Append appends the wire JSON to b.
	Append func(b []byte) ([]byte, error)
}

// Marshal implements encoding.CodecV2.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) {
	if w, ok := v.(*WireResult); ok {
		return c.marshalWire(w)
	}
	m := messageOf(v)
	if m == nil {
		return nil, fmt.Errorf("protocodec: cannot marshal %T, which is not a proto.Message", v)
	}
	if r, ok := m.(*enginev1.SessionResponse); ok && len(r.GetResult().GetWireJson()) >= wireThreshold && len(r.ProtoReflect().GetUnknown()) == 0 {
		return marshalWireResult(withoutWire(r.GetResult()), mem.SliceBuffer(r.GetResult().GetWireJson()))
	}
	size := proto.Size(m)
	// UseCachedSize: the size was just computed, and a message being sent
	// is not changed.
	opts := proto.MarshalOptions{UseCachedSize: true}
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf, err := opts.Marshal(m)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	buf := c.pool.Get(size)
	out, err := opts.MarshalAppend((*buf)[:0], m)
	if err == nil && len(out) != size {
		// The pool does not clear its buffers: a message written short of
		// its size would send a former message's bytes.
		err = fmt.Errorf("protocodec: %T marshalled to %d bytes, not its size %d (changed while it was sent?)", m, len(out), size)
	}
	if err != nil {
		c.pool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, c.pool)}, nil
}

// Unmarshal implements encoding.CodecV2. Its message is the one
// proto.Unmarshal reads, and so is its error; the SessionRequest of a
// cad.batch call is read into a copy of data whose bytes the steps'
// args_json are (each capped at its length), so that a step's args keep
// the whole message's bytes alive.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	if rcv, ok := v.(*Received); ok {
		return c.unmarshalReceived(data, rcv)
	}
	m := messageOf(v)
	if m == nil {
		return fmt.Errorf("protocodec: cannot unmarshal into %T, which is not a proto.Message", v)
	}
	if r, ok := m.(*enginev1.SessionResponse); ok && data.Len() >= wireThreshold {
		_, err := unmarshalWireResult(data.Materialize(), r)
		return err
	}
	if r, ok := m.(*enginev1.SessionRequest); ok && batchCall(firstBuffer(data)) {
		return c.unmarshalBatch(data.Materialize(), r)
	}
	buf := data.MaterializeToBuffer(c.pool)
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), m)
}

// Received is a SessionResponse to receive with RecvMsg on a stream that
// uses the Codec: a result's wire JSON of a frame or more is then read
// into a buffer of the Codec's pool, not a new one, and stays there
// (SessionCallResult.wire_json is those bytes) until Release gives the
// buffer back. It is not a proto.Message: only the Codec unmarshals it.
type Received struct {
	// Response is the message received; Unmarshal sets it.
	Response *enginev1.SessionResponse
	buf      *[]byte
	pool     mem.BufferPool
}

// Release gives back the buffer that the wire JSON of r's result is in,
// if it is in one: nothing may use those bytes afterwards. Without it the
// buffer is left to the garbage collector. Release is idempotent.
func (r *Received) Release() {
	if r.buf != nil {
		r.pool.Put(r.buf)
		r.buf = nil
	}
}

// unmarshalReceived unmarshals data into rcv, a result's wire JSON of a
// frame or more left in a buffer of the pool.
func (c *Codec) unmarshalReceived(data mem.BufferSlice, rcv *Received) error {
	rcv.Release()
	rcv.Response = new(enginev1.SessionResponse)
	if data.Len() < wireThreshold {
		return c.Unmarshal(data, rcv.Response)
	}
	buf := c.pool.Get(data.Len())
	data.CopyTo(*buf)
	kept, err := unmarshalWireResult(*buf, rcv.Response)
	if !kept {
		c.pool.Put(buf) // proto.Unmarshal copies what it keeps
		return err
	}
	rcv.buf, rcv.pool = buf, c.pool
	return nil
}

// unmarshalWireResult is proto.Unmarshal(b, r), b being the codec's own,
// except that a result's wire JSON stays in b instead of being copied:
// the rest of the result is unmarshalled without it, and then it is set
// to the bytes in b. Anything else (another frame, another response
// besides the wire JSON, wire JSON twice) is left to proto.Unmarshal.
// kept says whether r holds bytes of b.
func unmarshalWireResult(b []byte, r *enginev1.SessionResponse) (kept bool, err error) {
	wire, rest, ok := splitField(b, resultField.Number(), wireJSONField.Number())
	if !ok {
		return false, proto.Unmarshal(b, r)
	}
	result, ok := unmarshalRefs(rest)
	if !ok {
		result = new(enginev1.SessionCallResult)
		if err := proto.Unmarshal(rest, result); err != nil || result.Response != nil {
			return false, proto.Unmarshal(b, r) // its error, or its choice among the responses
		}
	}
	result.Response = &enginev1.SessionCallResult_WireJson{WireJson: wire}
	proto.Reset(r)
	r.Frame = &enginev1.SessionResponse_Result{Result: result}
	return true, nil
}

// splitField splits b, the encoding of a message, when it is one field
// numbered outer, of bytes type, whose value holds one field numbered
// field, of bytes type: that field's value (in b) and the outer value's
// other fields (in b, or a copy).
func splitField(b []byte, outer, field protowire.Number) (value, rest []byte, ok bool) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || num != outer || typ != protowire.BytesType {
		return nil, nil, false
	}
	inner, m := protowire.ConsumeBytes(b[n:])
	if m < 0 || n+m != len(b) {
		return nil, nil, false
	}
	start, end := -1, -1
	for off := 0; off < len(inner); {
		num, typ, n := protowire.ConsumeTag(inner[off:])
		if n < 0 {
			return nil, nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, inner[off+n:])
		if m < 0 {
			return nil, nil, false
		}
		if num == field {
			if typ != protowire.BytesType || start >= 0 {
				return nil, nil, false
			}
			value, _ = protowire.ConsumeBytes(inner[off+n:])
			start, end = off, off+n+m
		}
		off += n + m
	}
	if start < 0 {
		return nil, nil, false
	}
	return value, append(inner[:start:start], inner[end:]...), true
}

// unmarshalRefs is proto.Unmarshal(rest, result) for the rest of a
// replay's result: a call id and the references (id and method) of the
// open requests it lists, a hundred of them for a resume. Their strings
// are substrings of one copy of rest and the references one slice, three
// allocations instead of three per reference. ok is false for anything
// else (another field, a wire type a field does not have, invalid UTF-8,
// bytes cut short), which is left to proto.Unmarshal.
func unmarshalRefs(rest []byte) (result *enginev1.SessionCallResult, ok bool) {
	n := 0
	for off := 0; off < len(rest); {
		num, typ, k := protowire.ConsumeTag(rest[off:])
		if k < 0 {
			return nil, false
		}
		off += k
		switch {
		case num == callIDField.Number() && typ == protowire.VarintType:
			_, k = protowire.ConsumeVarint(rest[off:])
		case num == openRequestsField.Number() && typ == protowire.BytesType:
			var ref []byte
			ref, k = protowire.ConsumeBytes(rest[off:])
			if k >= 0 && !validRef(ref) {
				return nil, false
			}
			n++
		default:
			return nil, false
		}
		if k < 0 {
			return nil, false
		}
		off += k
	}
	result = new(enginev1.SessionCallResult)
	if n > 0 {
		result.OpenRequests = make([]*enginev1.OpenServerRequest, 0, n)
	}
	refs := make([]enginev1.OpenServerRequest, n)
	text := string(rest)
	for off := 0; off < len(rest); {
		num, _, k := protowire.ConsumeTag(rest[off:])
		off += k
		if num == callIDField.Number() {
			result.CallId, k = protowire.ConsumeVarint(rest[off:])
			off += k
			continue
		}
		ref, k := protowire.ConsumeBytes(rest[off:])
		start := off + k - len(ref)
		off += k
		o := &refs[len(result.OpenRequests)]
		for i := 0; i < len(ref); {
			num, _, k := protowire.ConsumeTag(ref[i:])
			v, m := protowire.ConsumeBytes(ref[i+k:])
			s := text[start+i+k+m-len(v) : start+i+k+m]
			if num == refIDField.Number() {
				o.Id = s
			} else {
				o.Method = s
			}
			i += k + m
		}
		result.OpenRequests = append(result.OpenRequests, o)
	}
	return result, true
}

// validRef reports whether ref is an OpenServerRequest of an id and a
// method only, each a valid UTF-8 string, as unmarshalRefs reads it.
func validRef(ref []byte) bool {
	for i := 0; i < len(ref); {
		num, typ, k := protowire.ConsumeTag(ref[i:])
		if k < 0 || typ != protowire.BytesType || (num != refIDField.Number() && num != refMethodField.Number()) {
			return false
		}
		v, m := protowire.ConsumeBytes(ref[i+k:])
		if m < 0 || !utf8.Valid(v) {
			return false
		}
		i += k + m
	}
	return true
}

// messageOf is v as a proto.Message, nil if it is none.
func messageOf(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV2:
		return v
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	}
	return nil
}

// The fields marshalWireResult writes by number.
var (
	resultField   = field(&enginev1.SessionResponse{}, "result")
	wireJSONField = field(&enginev1.SessionCallResult{}, "wire_json")
	// The fields unmarshalRefs reads.
	callIDField       = field(&enginev1.SessionCallResult{}, "call_id")
	openRequestsField = field(&enginev1.SessionCallResult{}, "open_requests")
	refIDField        = field(&enginev1.OpenServerRequest{}, "id")
	refMethodField    = field(&enginev1.OpenServerRequest{}, "method")
)

// field is m's field name.
func field(m proto.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
	return m.ProtoReflect().Descriptor().Fields().ByName(name)
}

// marshalWire marshals w, its wire JSON written into a buffer of the
// pool.
func (c *Codec) marshalWire(w *WireResult) (mem.BufferSlice, error) {
	buf := c.pool.Get(w.Size)
	wire, err := w.Append((*buf)[:0])
	if err != nil {
		c.pool.Put(buf)
		return nil, err
	}
	*buf = wire // grown past Size, it goes back to the tier its capacity fits
	return marshalWireResult(w.Result, mem.NewBuffer(buf, c.pool))
}

// withoutWire is a shallow copy of result without its wire JSON.
func withoutWire(result *enginev1.SessionCallResult) *enginev1.SessionCallResult {
	rest := result.ProtoReflect().New()
	result.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd != wireJSONField {
			rest.Set(fd, v)
		}
		return true
	})
	rest.SetUnknown(result.ProtoReflect().GetUnknown())
	return rest.Interface().(*enginev1.SessionCallResult)
}

// marshalWireResult marshals the SessionResponse whose frame is rest, a
// result without a response, with wire, the wire JSON, as its response,
// without copying the wire JSON: the result's fields, then the wire JSON
// field, as the last of two buffers. Fields may come in any order on the
// wire, so the message reads back as it was (the frame and the response
// are oneofs: only result, only wire_json is set).
func marshalWireResult(rest *enginev1.SessionCallResult, wire mem.Buffer) (mem.BufferSlice, error) {
	n := wire.Len()
	restSize := proto.Size(rest)
	inner := restSize + protowire.SizeTag(wireJSONField.Number()) + protowire.SizeVarint(uint64(n))
	head := make([]byte, 0, protowire.SizeTag(resultField.Number())+protowire.SizeVarint(uint64(inner+n))+inner)
	head = protowire.AppendTag(head, resultField.Number(), protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(inner+n))
	head, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(head, rest)
	if err != nil {
		wire.Free()
		return nil, err
	}
	head = protowire.AppendTag(head, wireJSONField.Number(), protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(n))
	return mem.BufferSlice{mem.SliceBuffer(head), wire}, nil
}

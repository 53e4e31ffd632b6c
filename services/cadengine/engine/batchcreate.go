package engine

import (
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// entity_batch_create's dense path.
//
// The ordinary way to take a tool's arguments is to decode them into its
// args message and hand that to the tool. For entity_batch_create that
// message is a hundred thousand NewEntity messages (some 240 bytes each,
// every number behind a pointer), made only to be read once into
// geometry and, for the request hash, marshalled again. decodeNewEntities
// reads each element into one NewEntity, reused, with the generated
// decoder (the same strictness: unknown keys, wrong types, keys given
// twice), checks it with the generated field rules, makes its geometry
// with newEntityGeometry, as batchCreate does, and appends its
// deterministic protobuf encoding (what the request hash covers) to one
// buffer. What is kept of an element is its geometry and style.
//
// It accepts only what the ordinary way accepts and would create without
// a failure, and then means exactly the same (FuzzDecodeNewEntities holds
// the two side by side). Anything else — input the generated decoder or
// the rules refuse, an element whose geometry cannot be made, no elements
// — it leaves to the ordinary way, which says what is wrong, in the same
// words and at the same point (validation or the step) as always.

// newEntities is entity_batch_create's arguments decoded densely.
type newEntities struct {
	ents []newEntity
	// canonical is the deterministic protobuf encoding of the
	// EntityBatchCreateArgs they were read from.
	canonical []byte
}

// newEntity is one element: its geometry, made, and its style, as given.
type newEntity struct {
	g drawing.Geometry
	s style
}

// maxNewEntities is EntityBatchCreateArgs.entities' max_items: more is
// refused by the rules.
const maxNewEntities = 100_000

// minNewEntityJSON is the length of the shortest element JSON can hold
// (`{"type":"point","x":0,"y":0}`): the most elements the args can hold
// is their length over it.
const minNewEntityJSON = 28

// decodeNewEntities decodes entity_batch_create's arguments densely, or
// returns nil when it leaves them to the ordinary way (see above).
func decodeNewEntities(raw []byte) denseArgs {
	d := jsonwire.NewDecoder(raw)
	if !d.OpenObject() {
		return nil
	}
	var a *newEntities
	for {
		key, ok := d.NextKey()
		if !ok {
			break
		}
		if string(key) != "entities" || a != nil || d.EmptyArrayNext() || !d.OpenArray() {
			return nil // another key is unknown, and "entities" twice or empty is refused
		}
		a = &newEntities{
			ents:      make([]newEntity, 0, min(len(raw)/minNewEntityJSON+1, maxNewEntities)),
			canonical: make([]byte, 0, len(raw)),
		}
		var ne enginev1.NewEntity
		var body []byte
		for d.NextElement() {
			if len(a.ents) == maxNewEntities {
				return nil
			}
			ne.Reset()
			if !ne.UnmarshalWire(d) || ne.CheckRules() != nil {
				return nil
			}
			g, err := newEntityGeometry("", &ne)
			if err != nil {
				return nil
			}
			// The style's pointers are the decoder's: each points to a
			// value of its own, which the next element does not reuse.
			a.ents = append(a.ents, newEntity{g: g, s: style{ne.Layer, ne.Color, ne.Linetype}})
			body = appendNewEntity(body[:0], &ne)
			a.canonical = protowire.AppendTag(a.canonical, entitiesField, protowire.BytesType)
			a.canonical = protowire.AppendBytes(a.canonical, body)
		}
		if d.Failed() {
			return nil
		}
	}
	if !d.End() || a == nil {
		return nil // no "entities": the step says so
	}
	return a
}

// canonicalArgs implements denseArgs.
func (a *newEntities) canonicalArgs() []byte { return a.canonical }

// run implements denseArgs: batchCreate on the elements as read.
func (a *newEntities) run(c *call) (proto.Message, error) {
	return createAll(c, len(a.ents), func(path string, i int) (*drawing.Entity, error) {
		ne := &a.ents[i]
		return c.Create(path, ne.s, ne.g)
	})
}

// Field numbers of EntityBatchCreateArgs, NewEntity and Vertex.
const (
	entitiesField = 1

	newEntityType       = 1
	newEntityX          = 2
	newEntityY          = 3
	newEntityX1         = 4
	newEntityY1         = 5
	newEntityX2         = 6
	newEntityY2         = 7
	newEntityCx         = 8
	newEntityCy         = 9
	newEntityRadius     = 10
	newEntityStartAngle = 11
	newEntityEndAngle   = 12
	newEntityPoints     = 13
	newEntityClosed     = 14
	newEntityText       = 15
	newEntityHeight     = 16
	newEntityRotation   = 17
	newEntityMajorX     = 18
	newEntityMajorY     = 19
	newEntityRatio      = 20
	newEntityLayer      = 21
	newEntityColor      = 22
	newEntityLinetype   = 23

	vertexX     = 1
	vertexY     = 2
	vertexBulge = 3
)

// appendNewEntity appends ne's deterministic protobuf encoding, as
// proto.MarshalOptions{Deterministic: true} writes it (fields in number
// order, optional ones when set, the others when not zero):
// TestAppendNewEntity compares the two for every field.
func appendNewEntity(b []byte, ne *enginev1.NewEntity) []byte {
	if ne.Type != 0 {
		b = protowire.AppendTag(b, newEntityType, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(ne.Type)))
	}
	b = appendOptionalDouble(b, newEntityX, ne.X)
	b = appendOptionalDouble(b, newEntityY, ne.Y)
	b = appendOptionalDouble(b, newEntityX1, ne.X1)
	b = appendOptionalDouble(b, newEntityY1, ne.Y1)
	b = appendOptionalDouble(b, newEntityX2, ne.X2)
	b = appendOptionalDouble(b, newEntityY2, ne.Y2)
	b = appendOptionalDouble(b, newEntityCx, ne.Cx)
	b = appendOptionalDouble(b, newEntityCy, ne.Cy)
	b = appendOptionalDouble(b, newEntityRadius, ne.Radius)
	b = appendOptionalDouble(b, newEntityStartAngle, ne.StartAngle)
	b = appendOptionalDouble(b, newEntityEndAngle, ne.EndAngle)
	for _, v := range ne.Points {
		b = protowire.AppendTag(b, newEntityPoints, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(vertexSize(v)))
		b = appendDouble(b, vertexX, v.X)
		b = appendDouble(b, vertexY, v.Y)
		b = appendOptionalDouble(b, vertexBulge, v.Bulge)
	}
	if ne.Closed != nil {
		b = appendBool(b, newEntityClosed, *ne.Closed)
	}
	if ne.Text != nil {
		b = appendString(b, newEntityText, *ne.Text)
	}
	b = appendOptionalDouble(b, newEntityHeight, ne.Height)
	b = appendOptionalDouble(b, newEntityRotation, ne.Rotation)
	b = appendOptionalDouble(b, newEntityMajorX, ne.MajorX)
	b = appendOptionalDouble(b, newEntityMajorY, ne.MajorY)
	b = appendOptionalDouble(b, newEntityRatio, ne.Ratio)
	if ne.Layer != nil {
		b = appendString(b, newEntityLayer, *ne.Layer)
	}
	if ne.Color != nil {
		b = protowire.AppendTag(b, newEntityColor, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(*ne.Color)))
	}
	if ne.Linetype != nil {
		b = appendString(b, newEntityLinetype, *ne.Linetype)
	}
	return b
}

// vertexSize is the length of v's encoding (see appendNewEntity): a
// double is a one-byte tag and eight bytes.
func vertexSize(v *enginev1.Vertex) int {
	n := 0
	if v.X != 0 || math.Signbit(v.X) {
		n += 9
	}
	if v.Y != 0 || math.Signbit(v.Y) {
		n += 9
	}
	if v.Bulge != nil {
		n += 9
	}
	return n
}

// appendOptionalDouble appends an optional double field when it is set.
func appendOptionalDouble(b []byte, num protowire.Number, v *float64) []byte {
	if v == nil {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(*v))
}

// appendDouble appends a double field without presence: left out when it
// is zero (but not -0).
func appendDouble(b []byte, num protowire.Number, v float64) []byte {
	if v == 0 && !math.Signbit(v) {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

// createAll creates n entities in one step and one store transaction,
// the i-th with create (at path "" first); if any fails nothing is
// created, and the error's path points at it ("/entities/3/radius").
func createAll(c *call, n int, create func(path string, i int) (*drawing.Entity, error)) (*enginev1.EntityBatchCreateResult, error) {
	if n == 0 {
		return nil, invalidArgs("/entities", reasonMissing, "give at least one entity")
	}
	created := make([]uint64, n)
	c.tx.Grow(n)
	for i := range n {
		// An entity is made without its path ("/entities/<i>") first: only
		// one that fails pays for that string, made again with it for the
		// error (making one has no effect until it succeeds).
		e, err := create("", i)
		if err != nil {
			_, err = create("/entities/"+strconv.Itoa(i), i)
			return nil, err
		}
		created[i] = e.Handle
	}
	handles := formatHandles(created)
	return &enginev1.EntityBatchCreateResult{Handles: handles, Count: int64(len(handles))}, nil
}

package engine

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strconv"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// entity_batch_create's dense path.
//
// The ordinary way to take a tool's arguments is to decode them into its
// args message and hand that to the tool. For entity_batch_create that
// message is a hundred thousand NewEntity messages (some 240 bytes each,
// every number behind a pointer), made only to be read once into
// geometry and, for the request hash, marshalled again. decodeNewEntities
// reads each element into one NewEntity, reused (readNewEntity: the
// generated decoder's reading, its numbers kept beside it rather than in
// the decoder's slab), checks it with the generated field rules, makes its
// geometry with newEntityGeometry, as batchCreate does, and keeps its
// geometry, and its style when it has one. The request hash covers the
// deterministic protobuf encoding of the args message: an element whose
// geometry and style say all it held (a point, a line, a circle) is
// encoded again from them when the hash is taken, and only the others
// (arcs, polylines, texts, ellipses, whose geometry is normalised) keep
// their encoding, so that the common batch holds no second copy of itself.
//
// It accepts only what the ordinary way accepts and would create without
// a failure, and then means exactly the same (FuzzDecodeNewEntities holds
// the two side by side). Anything else — input the generated decoder or
// the rules refuse, an element whose geometry cannot be made, no elements
// — it leaves to the ordinary way, which says what is wrong, in the same
// words and at the same point (validation or the step) as always.

// newEntities is entity_batch_create's arguments decoded densely.
type newEntities struct {
	geoms []drawing.Geometry // each element's, made
	// styles are each element's style, as given; nil when none has one
	// (most batches), so that what the batch keeps until it runs holds
	// two pointers an element rather than five.
	styles []style
	// others is the encoding, as an element of the list (see
	// appendEntitiesElement), of each element newEntityOf cannot make
	// again from its geometry, in order.
	others []byte
	// size is the length of the deterministic protobuf encoding of the
	// EntityBatchCreateArgs they were read from.
	size int
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
		if a, d = readNewEntities(d, raw); a == nil {
			return nil
		}
	}
	if !d.End() || a == nil {
		return nil // no "entities": the step says so
	}
	return a
}

// splitFrom is the length of the elements' JSON from which
// readNewEntities reads them in two halves at once.
const splitFrom = 256 << 10

// readNewEntities reads the elements of the array d is in, and its end,
// and returns them with the decoder to go on with (d, or the one that read
// the second half), or nil if one of them is left to the ordinary way.
//
// Many elements are read in two halves at once, on two goroutines: the
// second half from a comma near the middle that looks like one between
// two elements (splitPoint), the first up to it. The halves mean what
// reading them one after the other would only if the first half ends
// there, on an element's end, as it is read, which readElements checks;
// if it reads past it instead (the comma was inside an element: a
// polyline's vertices, a text), it goes on to the end alone and the
// second half's reading is dropped. So the result is the same either way.
func readNewEntities(d *jsonwire.Decoder, raw []byte) (*newEntities, *jsonwire.Decoder) {
	start := d.Offset()
	at := -1
	if len(raw)-start >= splitFrom {
		at = splitPoint(raw, start+(len(raw)-start)/2)
	}
	if at < 0 {
		a, _ := readElements(d, raw, len(raw)-start, -1, nil)
		return a, d
	}
	var (
		stop   atomic.Bool // the second half is not needed
		second *newEntities
		tail   = d.Fork(at)
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		second, _ = readElements(tail, raw, len(raw)-at, -1, &stop)
	}()
	first, split := readElements(d, raw, len(raw)-start, at, &stop)
	if !split {
		stop.Store(true)
	}
	<-done
	switch {
	case first == nil:
		return nil, d
	case !split:
		return first, d
	case second == nil || !first.join(second):
		return nil, tail
	}
	return first, tail
}

// readElements reads elements of the array d is in, making room for n
// bytes of them (the second half's are appended to the first's), up to its end (which it consumes), or, when at is not negative,
// until an element ends at the comma at at (split is then true); if one
// ends past it instead, it sets *stop and reads on to the end. It returns
// nil for elements it leaves to the ordinary way, or, when at is
// negative, once *stop is set (a nil stop is never set).
func readElements(d *jsonwire.Decoder, raw []byte, n, at int, stop *atomic.Bool) (a *newEntities, split bool) {
	a = &newEntities{}
	var (
		ne    enginev1.NewEntity
		nums  [newEntityRatio + 1]float64
		begin = d.Offset()
	)
	for {
		if at >= 0 {
			i := d.Offset()
			for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
				i++
			}
			switch {
			case i == at:
				return a, true
			case i > at:
				// Not a split: the second half's reading is not needed.
				at = -1
				stop.Store(true)
				stop = nil
			}
		}
		if !d.NextElement() {
			break
		}
		if at < 0 && stop != nil && stop.Load() {
			return nil, false
		}
		if len(a.geoms) == maxNewEntities {
			return nil, false
		}
		var st style
		g, size := plainLine(d.Rest())
		if size > 0 {
			d.Skip(size)
			size = lineElementSize
		} else {
			if !readNewEntity(d, &ne, &nums) || ne.CheckRules() != nil {
				return nil, false
			}
			var err error
			if g, err = newEntityGeometry("", &ne); err != nil {
				return nil, false
			}
			size = newEntitySize(&ne)
			// The style's pointers are the decoder's: each points to a
			// value of its own, which the next element does not reuse.
			st = style{ne.Layer, ne.Color, ne.Linetype}
		}
		if a.geoms == nil {
			// Room for n bytes of elements as long as the first.
			a.geoms = make([]drawing.Geometry, 0, min(n/max(d.Offset()-begin, minNewEntityJSON)*9/8+16, maxNewEntities))
		}
		if st != (style{}) || a.styles != nil {
			if a.styles == nil {
				a.styles = make([]style, len(a.geoms), cap(a.geoms))
			}
			a.styles = append(a.styles, st)
		}
		a.geoms = append(a.geoms, g)
		a.size += 1 + protowire.SizeVarint(uint64(size)) + size
		if !remade(g) {
			a.others = appendEntitiesElement(a.others, &ne)
		}
	}
	if d.Failed() {
		return nil, false
	}
	return a, false
}

// plainLine reads a line written as most are, at the start of b:
// `{"type":"line",` and then x1, y1, x2 and y2 in any order, without
// spaces, their numbers ones jsonwire.Number takes, and `}`. It returns
// the line's geometry (as newEntityGeometry makes it) and the length of
// its JSON, or 0 for anything else, which readNewEntity reads: a line of
// one point too (the step refuses it). Such an element is a NewEntity of
// the type and those four doubles, which no field rule limits, and has no
// style.
func plainLine(b []byte) (drawing.Geometry, int) {
	const head = `{"type":"line",`
	if len(b) < len(head) || string(b[:len(head)]) != head {
		return nil, 0
	}
	var (
		v    [4]float64 // x1, y1, x2, y2
		seen int
	)
	i := len(head)
	for k := range 4 {
		if k > 0 {
			if i == len(b) || b[i] != ',' {
				return nil, 0
			}
			i++
		}
		// "x1": and the like, five bytes.
		if len(b)-i < 5 || b[i] != '"' || b[i+3] != '"' || b[i+4] != ':' || b[i+2] != '1' && b[i+2] != '2' || b[i+1] != 'x' && b[i+1] != 'y' {
			return nil, 0
		}
		at := int(b[i+1]-'x') + 2*int(b[i+2]-'1')
		if seen&(1<<at) != 0 {
			return nil, 0
		}
		seen |= 1 << at
		x, n, ok := jsonwire.Number(b[i+5:])
		if !ok {
			return nil, 0
		}
		v[at], i = x, i+5+n
	}
	if i == len(b) || b[i] != '}' {
		return nil, 0
	}
	p, q := geom.Pt(v[0], v[1]), geom.Pt(v[2], v[3])
	if p.Same(q) {
		return nil, 0
	}
	return drawing.Line{A: p, B: q}, i + 1
}

// join appends b's elements to a's, and reports false if there are then
// more than the rules take.
func (a *newEntities) join(b *newEntities) bool {
	n := len(a.geoms)
	if n+len(b.geoms) > maxNewEntities {
		return false
	}
	if a.styles != nil || b.styles != nil {
		if a.styles == nil {
			a.styles = make([]style, n, n+len(b.geoms))
		}
		if b.styles == nil {
			a.styles = append(a.styles, make([]style, len(b.geoms))...)
		} else {
			a.styles = append(a.styles, b.styles...)
		}
	}
	a.geoms = append(a.geoms, b.geoms...)
	a.others = append(a.others, b.others...)
	a.size += b.size
	return true
}

// splitPoint is the first comma of raw from index from on that stands
// between an element's '}' and a '{' that opens an object whose first
// key is "type", as the elements of entity_batch_create are usually
// written; -1 if there is none within a megabyte.
func splitPoint(raw []byte, from int) int {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	end := min(len(raw), from+1<<20)
	for i := from; i < end; i++ {
		j := bytes.IndexByte(raw[i:end], ',')
		if j < 0 {
			return -1
		}
		i += j
		b := i - 1
		for b > 0 && isSpace(raw[b]) {
			b--
		}
		if b <= 0 || raw[b] != '}' {
			continue
		}
		rest := bytes.TrimLeftFunc(raw[i+1:], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
		if len(rest) > 0 && rest[0] == '{' {
			rest = bytes.TrimLeftFunc(rest[1:], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
			if bytes.HasPrefix(rest, []byte(`"type"`)) {
				return i
			}
		}
	}
	return -1
}

// readNewEntity reads one element into ne as the generated
// NewEntity.UnmarshalWire does, and returns false where it would; but
// ne's optional doubles point into nums, which the next element reuses,
// and a type whose name is spelled with escapes, or is not one of
// newEntityFields's, is left to the ordinary way (false) rather than
// looked up. TestReadNewEntity and FuzzDecodeNewEntities hold it to the
// generated decoder.
func readNewEntity(d *jsonwire.Decoder, ne *enginev1.NewEntity, nums *[newEntityRatio + 1]float64) bool {
	*ne = enginev1.NewEntity{}
	if !d.OpenObject() {
		return false
	}
	var seen uint32
	for {
		key, ok := d.NextKey()
		if !ok {
			break
		}
		num := newEntityKey(key)
		if num == 0 || seen&(1<<num) != 0 {
			return false // an unknown key, or one given twice
		}
		seen |= 1 << num
		switch num {
		case newEntityType:
			name, ok := d.RawValue()
			if !ok {
				return false
			}
			if ne.Type = newEntityTypeOf(name); ne.Type == 0 {
				return false
			}
		case newEntityPoints:
			if !d.OpenArray() {
				return false
			}
			var slab jsonwire.Slab[enginev1.Vertex]
			for d.NextElement() {
				v := slab.New()
				if !v.UnmarshalWire(d) {
					return false
				}
				ne.Points = append(ne.Points, v)
			}
			if d.Failed() {
				return false
			}
		case newEntityClosed:
			v, ok := d.Bool()
			if !ok {
				return false
			}
			ne.Closed = &v
		case newEntityText, newEntityLayer, newEntityLinetype:
			v, ok := d.String()
			if !ok {
				return false
			}
			switch num {
			case newEntityText:
				ne.Text = &v
			case newEntityLayer:
				ne.Layer = &v
			default:
				ne.Linetype = &v
			}
		case newEntityLayout:
			// An element on a layout goes the ordinary way (createNew),
			// which resolves the layout's name.
			return false
		case newEntityColor:
			v, ok := d.Int32()
			if !ok {
				return false
			}
			ne.Color = &v
		default: // a double
			v, ok := d.Float64()
			if !ok {
				return false
			}
			nums[num] = v
			*newEntityDouble(ne, num) = &nums[num]
		}
	}
	return !d.Failed() && seen&(1<<newEntityType) != 0
}

// newEntityKey is the number of NewEntity's field whose JSON key is key,
// 0 for none.
func newEntityKey(key []byte) protowire.Number {
	switch string(key) {
	case "type":
		return newEntityType
	case "x":
		return newEntityX
	case "y":
		return newEntityY
	case "x1":
		return newEntityX1
	case "y1":
		return newEntityY1
	case "x2":
		return newEntityX2
	case "y2":
		return newEntityY2
	case "cx":
		return newEntityCx
	case "cy":
		return newEntityCy
	case "radius":
		return newEntityRadius
	case "start_angle":
		return newEntityStartAngle
	case "end_angle":
		return newEntityEndAngle
	case "points":
		return newEntityPoints
	case "closed":
		return newEntityClosed
	case "text":
		return newEntityText
	case "height":
		return newEntityHeight
	case "rotation":
		return newEntityRotation
	case "major_x":
		return newEntityMajorX
	case "major_y":
		return newEntityMajorY
	case "ratio":
		return newEntityRatio
	case "layer":
		return newEntityLayer
	case "color":
		return newEntityColor
	case "linetype":
		return newEntityLinetype
	case "layout":
		return newEntityLayout
	}
	return 0
}

// newEntityDouble is ne's optional double field number num.
func newEntityDouble(ne *enginev1.NewEntity, num protowire.Number) **float64 {
	switch num {
	case newEntityX:
		return &ne.X
	case newEntityY:
		return &ne.Y
	case newEntityX1:
		return &ne.X1
	case newEntityY1:
		return &ne.Y1
	case newEntityX2:
		return &ne.X2
	case newEntityY2:
		return &ne.Y2
	case newEntityCx:
		return &ne.Cx
	case newEntityCy:
		return &ne.Cy
	case newEntityRadius:
		return &ne.Radius
	case newEntityStartAngle:
		return &ne.StartAngle
	case newEntityEndAngle:
		return &ne.EndAngle
	case newEntityHeight:
		return &ne.Height
	case newEntityRotation:
		return &ne.Rotation
	case newEntityMajorX:
		return &ne.MajorX
	case newEntityMajorY:
		return &ne.MajorY
	}
	return &ne.Ratio
}

// newEntityTypeOf is the type whose wire name the JSON string name (as
// the input has it, quotes included) spells without escapes, among those
// an element can have (newEntityFields); 0 for anything else.
func newEntityTypeOf(name []byte) enginev1.EntityType {
	switch string(name) {
	case `"point"`:
		return enginev1.EntityType_ENTITY_TYPE_POINT
	case `"line"`:
		return enginev1.EntityType_ENTITY_TYPE_LINE
	case `"circle"`:
		return enginev1.EntityType_ENTITY_TYPE_CIRCLE
	case `"arc"`:
		return enginev1.EntityType_ENTITY_TYPE_ARC
	case `"polyline"`:
		return enginev1.EntityType_ENTITY_TYPE_POLYLINE
	case `"text"`:
		return enginev1.EntityType_ENTITY_TYPE_TEXT
	case `"ellipse"`:
		return enginev1.EntityType_ENTITY_TYPE_ELLIPSE
	}
	return 0
}

// canonicalSize implements denseArgs.
func (a *newEntities) canonicalSize() int { return a.size }

// writeCanonical implements denseArgs: each element's encoding as an
// element of the list, made again from its geometry and style (see
// newEntityOf) or taken from others, written in pieces of some 32 KiB.
func (a *newEntities) writeCanonical(w io.Writer) {
	const piece = 32 << 10
	var (
		b      = make([]byte, 0, piece)
		ne     enginev1.NewEntity
		nums   [newEntityRatio + 1]float64
		others = a.others
	)
	for i, g := range a.geoms {
		var s style
		if a.styles != nil {
			s = a.styles[i]
		}
		if l, ok := g.(drawing.Line); ok && s == (style{}) {
			b = appendLineElement(b, l) // the commonest, at once
		} else if newEntityOf(&ne, &nums, g, s) {
			b = appendEntitiesElement(b, &ne)
		} else {
			// The next of others: its tag, its length, its encoding.
			n, k := protowire.ConsumeVarint(others[1:])
			end := 1 + k + int(n)
			b, others = append(b, others[:end]...), others[end:]
		}
		if len(b) > piece-1024 {
			w.Write(b)
			b = b[:0]
		}
	}
	w.Write(b)
}

// lineElementSize is the length of the encoding of a line's NewEntity
// without a style: its type (two bytes) and four doubles (nine each).
const lineElementSize = 2 + 4*9

// appendLineElement is appendEntitiesElement of the NewEntity of a line
// without a style (as newEntityOf makes it), written at once
// (TestAppendLineElement compares the two).
func appendLineElement(b []byte, l drawing.Line) []byte {
	b = append(b, entitiesField<<3|byte(protowire.BytesType), lineElementSize,
		newEntityType<<3|byte(protowire.VarintType), byte(enginev1.EntityType_ENTITY_TYPE_LINE))
	for i, v := range [...]float64{l.A.X, l.A.Y, l.B.X, l.B.Y} {
		b = append(b, byte(newEntityX1+i)<<3|byte(protowire.Fixed64Type))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// remade reports whether newEntityOf makes an element of geometry g again.
func remade(g drawing.Geometry) bool {
	switch g.(type) {
	case drawing.Point, drawing.Line, drawing.Circle:
		return true
	}
	return false
}

// newEntityOf sets ne to the NewEntity an element of geometry g and style
// s was read from, when g says all it held: a point, line or circle
// (newEntityGeometry keeps their numbers as given, and an element of
// those types holds exactly their fields); its numbers point into nums.
// It reports false for any other geometry.
func newEntityOf(ne *enginev1.NewEntity, nums *[newEntityRatio + 1]float64, g drawing.Geometry, s style) bool {
	*ne = enginev1.NewEntity{Layer: s.layer, Color: s.color, Linetype: s.linetype}
	set := func(num protowire.Number, v float64) {
		nums[num] = v
		*newEntityDouble(ne, num) = &nums[num]
	}
	switch g := g.(type) {
	case drawing.Point:
		ne.Type = enginev1.EntityType_ENTITY_TYPE_POINT
		set(newEntityX, g.P.X)
		set(newEntityY, g.P.Y)
	case drawing.Line:
		ne.Type = enginev1.EntityType_ENTITY_TYPE_LINE
		set(newEntityX1, g.A.X)
		set(newEntityY1, g.A.Y)
		set(newEntityX2, g.B.X)
		set(newEntityY2, g.B.Y)
	case drawing.Circle:
		ne.Type = enginev1.EntityType_ENTITY_TYPE_CIRCLE
		set(newEntityCx, g.C.X)
		set(newEntityCy, g.C.Y)
		set(newEntityRadius, g.R)
	default:
		return false
	}
	return true
}

// run implements denseArgs: batchCreate on the elements as read, its
// result written as JSON straight from the handles' text (a hundred
// thousand handles are some 800 KB, which contract.Marshal would copy over
// several times as its buffer grows, after a string each).
func (a *newEntities) run(c *call) ([]byte, error) {
	text, ends, err := createAll(c, len(a.geoms), func(path string, i int) (*drawing.Entity, error) {
		var s style
		if a.styles != nil {
			s = a.styles[i]
		}
		return c.Create(path, s, a.geoms[i])
	})
	if err != nil {
		return nil, err
	}
	return handlesJSON(text, ends), nil
}

// handlesJSON is the JSON of the EntityBatchCreateResult of the handles
// spelled one after the other in text, each ending at its end, as
// contract.Marshal writes it (TestHandlesJSON): a handle is hex digits,
// which a JSON string holds as they are.
func handlesJSON(text []byte, ends []int32) []byte {
	b := make([]byte, 0, len(text)+3*len(ends)+len(`{"handles":[],"count":}`)+20)
	if len(ends) > 0 {
		b = append(b, `{"handles":[`...)
		start := 0
		for i, end := range ends {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(append(b, '"'), text[start:end]...), '"')
			start = int(end)
		}
		b = append(b, "],"...)
	} else {
		b = append(b, '{')
	}
	b = append(b, `"count":`...)
	return append(strconv.AppendInt(b, int64(len(ends)), 10), '}')
}

// appendEntitiesElement appends ne as an element of
// EntityBatchCreateArgs.entities (field 1: its tag, its length, its
// encoding), writing its encoding in place behind a length of one byte,
// which fits nearly every element, and moving it where it does not.
func appendEntitiesElement(b []byte, ne *enginev1.NewEntity) []byte {
	b = protowire.AppendTag(b, entitiesField, protowire.BytesType)
	at := len(b)
	b = appendNewEntity(append(b, 0), ne)
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	body := slices.Clone(b[at+1:])
	return protowire.AppendBytes(b[:at], body)
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
	newEntityLayout     = 24

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
	if ne.Layout != nil {
		b = appendString(b, newEntityLayout, *ne.Layout)
	}
	return b
}

// newEntitySize is the length of appendNewEntity's encoding of ne.
func newEntitySize(ne *enginev1.NewEntity) int {
	n := 0
	if ne.Type != 0 {
		n += 1 + protowire.SizeVarint(uint64(int64(ne.Type)))
	}
	for _, v := range [...]*float64{ne.X, ne.Y, ne.X1, ne.Y1, ne.X2, ne.Y2, ne.Cx, ne.Cy, ne.Radius, ne.StartAngle, ne.EndAngle} {
		if v != nil {
			n += 1 + 8
		}
	}
	for _, v := range ne.Points {
		n += 1 + protowire.SizeBytes(vertexSize(v))
	}
	if ne.Closed != nil {
		n += 1 + 1
	}
	if ne.Text != nil {
		n += 1 + protowire.SizeBytes(len(*ne.Text))
	}
	for _, v := range [...]*float64{ne.Height, ne.Rotation, ne.MajorX, ne.MajorY, ne.Ratio} {
		if v != nil {
			n += 2 + 8 // fields 16 and on take two bytes of tag
		}
	}
	if ne.Layer != nil {
		n += 2 + protowire.SizeBytes(len(*ne.Layer))
	}
	if ne.Color != nil {
		n += 2 + protowire.SizeVarint(uint64(int64(*ne.Color)))
	}
	if ne.Linetype != nil {
		n += 2 + protowire.SizeBytes(len(*ne.Linetype))
	}
	if ne.Layout != nil {
		n += 2 + protowire.SizeBytes(len(*ne.Layout))
	}
	return n
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
// the i-th with create (at path "" first), and returns their handles,
// spelled one after the other in text, each ending at its end; if any
// fails nothing is created, and the error's path points at it
// ("/entities/3/radius").
func createAll(c *call, n int, create func(path string, i int) (*drawing.Entity, error)) (text []byte, ends []int32, err error) {
	if n == 0 {
		return nil, nil, invalidArgs("/entities", reasonMissing, "give at least one entity")
	}
	// Most handles of a document have at most five digits; n is at most
	// maxNewEntities, so an int32 holds where each ends.
	text, ends = make([]byte, 0, 5*n), make([]int32, n)
	c.tx.Grow(n)
	for i := range n {
		// An entity is made without its path ("/entities/<i>") first: only
		// one that fails pays for that string, made again with it for the
		// error (making one has no effect until it succeeds).
		e, err := create("", i)
		if err != nil {
			_, err = create("/entities/"+strconv.Itoa(i), i)
			return nil, nil, err
		}
		text = drawing.AppendHandle(text, e.Handle)
		ends[i] = int32(len(text))
	}
	return text, ends, nil
}

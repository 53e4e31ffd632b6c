package engine

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract"
	"github.com/cadbridge/cadbridge/contract/jsonwire"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestAppendNewEntity: appendNewEntity writes what the deterministic
// marshaller writes, for every field of NewEntity set alone (a field added
// to NewEntity fails here until appendNewEntity writes it), for all of
// them at once, and for the values whose presence is subtle (zero and -0
// doubles of a vertex, a zero optional double, an empty string).
func TestAppendNewEntity(t *testing.T) {
	check := func(name string, ne *enginev1.NewEntity) {
		t.Helper()
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(ne)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendNewEntity(nil, ne); !bytes.Equal(got, want) {
			t.Errorf("%s: appendNewEntity = %x, want %x", name, got, want)
		}
		if got := newEntitySize(ne); got != len(want) {
			t.Errorf("%s: newEntitySize = %d, want %d", name, got, len(want))
		}
		// As an element of the batch's list, its length before it, in
		// one byte or (past 127 bytes) more.
		want, err = proto.MarshalOptions{Deterministic: true}.Marshal(&enginev1.EntityBatchCreateArgs{Entities: []*enginev1.NewEntity{ne, ne}})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEntitiesElement(appendEntitiesElement(nil, ne), ne); !bytes.Equal(got, want) {
			t.Errorf("%s: appendEntitiesElement = %x, want %x", name, got, want)
		}
	}
	all := &enginev1.NewEntity{}
	fields := all.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		ne := &enginev1.NewEntity{}
		for _, m := range []protoreflect.Message{ne.ProtoReflect(), all.ProtoReflect()} {
			m.Set(fd, someValue(m, fd, i))
		}
		check(string(fd.Name()), ne)
	}
	check("all", all)
	if n := proto.Size(all); n < 0x80 {
		t.Fatalf("the message with every field is %d bytes: make it longer than 127, so that its length takes two", n)
	}
	zero, neg := 0.0, math.Copysign(0, -1)
	check("subtle", &enginev1.NewEntity{
		Type: enginev1.EntityType_ENTITY_TYPE_POLYLINE, X: &zero, Y: &neg, Text: new(""), Layer: new(""), Color: new(int32(-1)),
		Points: []*enginev1.Vertex{{}, {X: neg, Y: 0, Bulge: &zero}, {X: 1, Y: neg, Bulge: &neg}},
	})
	check("empty", &enginev1.NewEntity{})
}

// someValue is a value for fd, not its zero, different for each i.
func someValue(m protoreflect.Message, fd protoreflect.FieldDescriptor, i int) protoreflect.Value {
	switch {
	case fd.IsList():
		l := m.NewField(fd).List()
		l.Append(protoreflect.ValueOfMessage((&enginev1.Vertex{X: float64(i), Y: -1.5, Bulge: new(0.25)}).ProtoReflect()))
		l.Append(protoreflect.ValueOfMessage((&enginev1.Vertex{Y: 2}).ProtoReflect()))
		return protoreflect.ValueOfList(l)
	}
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(i%7 + 1))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(i) + 0.125)
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(strings.Repeat("é", i))
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(int32(i * 7))
	}
	panic("NewEntity has a field of kind " + fd.Kind().String() + ": give it a value here and check appendNewEntity writes it")
}

// TestDecodeNewEntities: the dense decoder takes common arguments, and
// leaves to the ordinary way what it refuses or what fails in the step,
// whose errors the engine's tests check (TestInvalidArgs).
func TestDecodeNewEntities(t *testing.T) {
	for _, args := range []string{
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1}]}`,
		` { "entities" : [ {"x1":0, "type":"line","y1":0,"x2":1e0,"y2":1,"layer":"0","color":3,"linetype":"dashed"} , {"type":"point","x":-0,"y":2.5} ] } `,
		`{"entities":[{"type":"circle","cx":1,"cy":2,"radius":3},{"type":"arc","cx":1,"cy":2,"radius":3,"start_angle":350,"end_angle":10}]}`,
		`{"entities":[{"type":"polyline","points":[{"x":0,"y":0},{"x":1,"y":1,"bulge":0.5}],"closed":true}]}`,
		`{"entities":[{"type":"text","text":"a\u00e9\"b","x":0,"y":0,"height":2,"rotation":400}]}`,
		`{"entities":[{"type":"ellipse","cx":0,"cy":0,"major_x":3,"major_y":4,"ratio":0.5}]}`,
		manyNewEntities(3000), // past writeCanonical's first piece
		// Lines as most are written (plainLine), and ones that are not
		// quite, beside them.
		`{"entities":[{"type":"line","x1":0,"y1":-0,"x2":999.5,"y2":-12.25},{"type":"line","x1":1e5,"y1":0,"x2":1,"y2":1},{"type":"line","x1":1,"y1":0,"x2":1,"y2":1,"layer":"a"}]}`,
		`{"entities":[{"type":"line","x1":1234567890123456,"y1":0,"x2":1,"y2":1},{"type":"line","x1":0,"y1":0,"x2":1,"y2":1 },{"type":"line","y1":0,"x1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"x2":0.5,"y1":7,"y2":-7},{"type":"line","y2":1,"x2":2,"y1":3,"x1":4},{"type":"line","x1":0,"x2":0.5,"y1":7,"y2":-7,"color":1}]}`,
	} {
		if agreeNewEntities(t, []byte(args)) == nil {
			t.Errorf("decodeNewEntities(%.300s) left common arguments to the ordinary way", args)
		}
	}
	for _, args := range []string{
		`{}`,
		`{"entities":[]}`,
		`{"entities":null}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1}],"entities":[]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1}],"extra":1}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1,"bogus":1}]}`,
		`{"entities":[{"type":"line","x1":"0","y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"x1":0,"y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":0,"y2":0}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1},{"type":"line","x1":1,"y1":1,"x2":1,"y2":1.0000000000001}]}`,
		`{"entities":[{"type":"line","x1":01,"y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"x1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y3":1}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"z2":1}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1,}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1,"y2":2}]}`,
		`{"entities":[{"type":"line","x1":1.,"y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":-,"y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":1,"y1":0,"x2":1,"y2":1}}]}`,
		`{"entities":[{"type":"line","x1":1,"y1":0,"x2":1,"y2":1]}`,
		`{"entities":[{"type":"line","x1":1,"y1":0,"x2":1,"y2":1`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1}]}`,
		`{"entities":[{"type":"point","x":0,"y":0,"radius":1}]}`,
		`{"entities":[{"type":"circle","cx":0,"cy":0,"radius":-1}]}`,
		`{"entities":[{"type":"point","x":0,"y":0,"color":257}]}`,
		`{"entities":[{"type":"point","x":0,"y":0,"linetype":"wiggly"}]}`,
		`{"entities":[{"type":"text","text":"","x":0,"y":0}]}`,
		`{"entities":[{"type":"polyline","points":[{"x":0,"y":0}]}]}`,
		`{"entities":[{"type":"arc","cx":0,"cy":0,"radius":1,"start_angle":30,"end_angle":390}]}`,
		`{"entities":[{"type":"blob","x":0,"y":0}]}`,
		`{"entities":[{"x":0,"y":0}]}`,
		`{"entities":[null]}`,
		`{"entities":[{"type":"point","x":0,"y":0}]} x`,
		`{"entities":[{"type":"point","x":0,"y":0}]`,
		`[]`,
		``,
	} {
		if agreeNewEntities(t, []byte(args)) != nil {
			t.Errorf("decodeNewEntities(%s) took arguments the ordinary way refuses or fails", args)
		}
	}
}

// manyNewEntities is the arguments of n elements of every type, some with
// a style.
func manyNewEntities(n int) string {
	var b strings.Builder
	b.WriteString(`{"entities":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		x := float64(i) / 3
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, `{"type":"line","x1":%v,"y1":-0.0,"x2":%v,"y2":1e300,"layer":"L%d"}`, x, x+1, i)
		case 1:
			fmt.Fprintf(&b, `{"type":"point","x":%v,"y":%v,"color":%d}`, x, -x, i%257)
		case 2:
			fmt.Fprintf(&b, `{"type":"circle","cx":%v,"cy":%v,"radius":%v,"linetype":"hidden"}`, x, x, x+1)
		case 3:
			fmt.Fprintf(&b, `{"type":"arc","cx":%v,"cy":0,"radius":2,"start_angle":%v,"end_angle":-30}`, x, x)
		case 4:
			fmt.Fprintf(&b, `{"type":"text","text":"%s","x":%v,"y":0,"rotation":%v}`, strings.Repeat("t", i%200+1), x, x)
		default:
			fmt.Fprintf(&b, `{"type":"polyline","points":[{"x":%v,"y":0,"bulge":0},{"x":0,"y":%v}],"closed":false}`, x, x+1)
		}
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestReadNewEntity: readNewEntity knows every key of NewEntity and the
// wire name of every type an element can have, as the generated decoder
// does.
func TestReadNewEntity(t *testing.T) {
	fields := (&enginev1.NewEntity{}).ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if got := newEntityKey([]byte(contract.Key(fd))); got != fd.Number() {
			t.Errorf("newEntityKey(%q) = %d, want %d", contract.Key(fd), got, fd.Number())
		}
	}
	for name, n := range enginev1.EntityTypeByWireName {
		typ := enginev1.EntityType(n)
		_, takes := newEntityFields(typ)
		if got := newEntityTypeOf([]byte(`"` + name + `"`)); takes && got != typ || !takes && got != 0 {
			t.Errorf("newEntityTypeOf(%q) = %v, want %v (an element can have it: %v)", name, got, typ, takes)
		}
	}
}

// TestDecodeNewEntitiesLimit: more entities than the rules allow go the
// ordinary way, which refuses them; the most it allows are taken.
func TestDecodeNewEntitiesLimit(t *testing.T) {
	many := func(n int) []byte {
		b := []byte(`{"entities":[`)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"point","x":1,"y":2}`...)
		}
		return append(b, "]}"...)
	}
	if decodeNewEntities(many(maxNewEntities)) == nil {
		t.Errorf("decodeNewEntities left %d entities to the ordinary way", maxNewEntities)
	}
	if decodeNewEntities(many(maxNewEntities+1)) != nil {
		t.Errorf("decodeNewEntities took %d entities", maxNewEntities+1)
	}
}

// TestAppendLineElement: appendLineElement writes what appendEntitiesElement
// writes of the NewEntity of a line without a style.
func TestAppendLineElement(t *testing.T) {
	for _, l := range []drawing.Line{
		{A: geom.Pt(0, 0), B: geom.Pt(1, 1)},
		{A: geom.Pt(math.Copysign(0, -1), 1e300), B: geom.Pt(-2.5, math.SmallestNonzeroFloat64)},
	} {
		var (
			ne   enginev1.NewEntity
			nums [newEntityRatio + 1]float64
		)
		if !newEntityOf(&ne, &nums, l, style{}) {
			t.Fatal("newEntityOf refused a line")
		}
		if got, want := appendLineElement([]byte("x"), l), appendEntitiesElement([]byte("x"), &ne); !bytes.Equal(got, want) {
			t.Errorf("appendLineElement(%v) = %x, want %x", l, got, want)
		}
	}
}

// TestDecodeNewEntitiesHalves: arguments long enough to be read in two
// halves at once mean what they mean read in one, whichever half holds
// the styles, however the elements are spaced, and whichever half holds
// an element left to the ordinary way; a split point that is not between
// two elements is noticed and the elements read in one.
func TestDecodeNewEntitiesHalves(t *testing.T) {
	lines := func(n int, styled func(i int) bool, sep string) string {
		var b strings.Builder
		b.WriteString(`{"entities":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(sep)
			}
			fmt.Fprintf(&b, `{"type":"line","x1":%d,"y1":0.5,"x2":%d.25,"y2":1`, i, i+1)
			if styled(i) {
				fmt.Fprintf(&b, `,"layer":"L%d"`, i%7)
			}
			b.WriteByte('}')
		}
		b.WriteString(`]}`)
		return b.String()
	}
	const n = 12_000
	never := func(int) bool { return false }
	for _, args := range []string{
		manyNewEntities(n),
		lines(n, never, ","),
		lines(n, func(i int) bool { return i < n/4 }, ","),
		lines(n, func(i int) bool { return i > 3*n/4 }, ","),
		strings.ReplaceAll(lines(n, never, " ,\n\t "), `{"type"`, "{\r\n\"type\""),
	} {
		if len(args) < splitFrom || splitPoint([]byte(args), len(args)/2) < 0 {
			t.Fatalf("arguments of %d bytes are not read in halves", len(args))
		}
		if agreeNewEntities(t, []byte(args)) == nil {
			t.Errorf("decodeNewEntities(%.200s…) left common arguments to the ordinary way", args)
		}
	}
	// One element the ordinary way refuses, in either half, or a vertex
	// that looks like an element's start just past the middle.
	plain := lines(n, never, ",")
	bad := `{"type":"line","x1":0,"y1":0,"x2":1,"bogus":1}`
	vertex := `{"type":"polyline","points":[{"x":0,"y":0},{"type":"line","x":1,"y":1}]}`
	at := splitPoint([]byte(plain), len(plain)/2)
	for _, args := range []string{
		strings.Replace(plain, `{"type":"line","x1":5,`, bad+`,{"type":"line","x1":5,`, 1),
		plain[:len(plain)-2] + "," + bad + "]}",
		plain[:at+1] + vertex + "," + plain[at+1:],
		plain[:at] + "," + vertex + plain[at:],
	} {
		if agreeNewEntities(t, []byte(args)) != nil {
			t.Errorf("decodeNewEntities took arguments the ordinary way refuses")
		}
	}

	// A split point inside an element: the first half reads past it, reads
	// on alone, and says the second half is not needed.
	raw := []byte(lines(10, never, ","))
	d := jsonwire.NewDecoder(raw)
	if !d.OpenObject() {
		t.Fatal("OpenObject")
	}
	if key, ok := d.NextKey(); !ok || string(key) != "entities" || !d.OpenArray() {
		t.Fatal("entities")
	}
	inside := bytes.Index(raw, []byte(`"x1":3`)) - 1 // the comma before it
	var stop atomic.Bool
	a, split := readElements(d, raw, len(raw), inside, &stop)
	if a == nil || split || len(a.geoms) != 10 || !stop.Load() {
		t.Errorf("readElements with a split inside an element = %d elements (nil: %v), split %v, stop %v; want 10, false, true", len(a.geoms), a == nil, split, stop.Load())
	}
}

// FuzzDecodeNewEntities holds the dense decoder to the ordinary way: what
// it takes, the ordinary way takes and would create without a failure,
// with the same geometry and style and the same canonical encoding; and
// it takes everything the generated decoder takes that the step would
// create.
func FuzzDecodeNewEntities(f *testing.F) {
	for _, s := range []string{
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":1,"y2":1}]}`,
		`{"entities":[{"type":"line","x1":-0.5,"y1":0,"x2":1,"y2":1},{"type":"line","x1":2,"y1":0,"x2":2,"y2":0}]}`,
		`{"entities":[{"type":"point","x":-0,"y":2.5,"layer":"a","color":0,"linetype":"ByBlock"},{"type":"circle","cx":1,"cy":2,"radius":3}]}`,
		`{"entities":[{"type":"arc","cx":1,"cy":2,"radius":3,"start_angle":350,"end_angle":10}]}`,
		`{"entities":[{"type":"polyline","points":[{"x":0,"y":0},{"x":1,"y":1,"bulge":0.5}],"closed":true}]}`,
		`{"entities":[{"type":"text","text":"a\u00e9\"b","x":0,"y":0,"height":2,"rotation":-30}]}`,
		`{"entities":[{"type":"ellipse","cx":0,"cy":0,"major_x":3,"major_y":4,"ratio":0.5,"start_angle":0,"end_angle":180}]}`,
		`{"entities":[{"type":"line","x1":0,"y1":0,"x2":0,"y2":0}]}`,
		`{"entities":[{"type":"point","x":0,"y":0,"radius":1}]}`,
		`{"entities":[],"x":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeNewEntities(t, data)
	})
}

// agreeNewEntities decodes args densely and the ordinary way, fails t
// where they disagree, and returns the dense form (nil when it left them
// to the ordinary way).
func agreeNewEntities(t *testing.T, args []byte) *newEntities {
	t.Helper()
	var ordinary enginev1.EntityBatchCreateArgs
	refused := contract.UnmarshalChecked(args, &ordinary, nil) != nil
	// fails is the first element the step would fail on; -1 when none.
	fails := -1
	for i, ne := range ordinary.GetEntities() {
		if _, err := newEntityGeometry("", ne); err != nil {
			fails = i
			break
		}
	}
	da := decodeNewEntities(args)
	if da == nil {
		var fast enginev1.EntityBatchCreateArgs
		if _, ok := contract.DecodeFast(args, &fast, ""); ok && fails < 0 && len(ordinary.GetEntities()) > 0 {
			t.Errorf("decodeNewEntities(%q) left arguments to the ordinary way that the generated decoder takes and the step creates", args)
		}
		return nil
	}
	a := da.(*newEntities)
	switch {
	case refused:
		t.Fatalf("decodeNewEntities(%q) took arguments the ordinary way refuses", args)
	case fails >= 0:
		t.Fatalf("decodeNewEntities(%q) took arguments whose element %d the step fails on", args, fails)
	case len(a.geoms) != len(ordinary.Entities):
		t.Fatalf("decodeNewEntities(%q) read %d entities, the ordinary way %d", args, len(a.geoms), len(ordinary.Entities))
	case a.styles != nil && len(a.styles) != len(a.geoms):
		t.Fatalf("decodeNewEntities(%q) read %d styles for %d entities", args, len(a.styles), len(a.geoms))
	}
	for i, ne := range ordinary.Entities {
		g, _ := newEntityGeometry("", ne)
		if !reflect.DeepEqual(a.geoms[i], g) {
			t.Errorf("decodeNewEntities(%q) element %d geometry = %+v, want %+v", args, i, a.geoms[i], g)
		}
		var s style
		if a.styles != nil {
			s = a.styles[i]
		}
		if want := (style{ne.Layer, ne.Color, ne.Linetype}); !reflect.DeepEqual(s, want) {
			t.Errorf("decodeNewEntities(%q) element %d style = %+v, want %+v", args, i, s, want)
		}
	}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(&ordinary)
	if err != nil {
		t.Fatal(err)
	}
	var canonical bytes.Buffer
	a.writeCanonical(&canonical)
	if got := canonical.Bytes(); !bytes.Equal(got, want) || a.canonicalSize() != len(want) {
		t.Errorf("decodeNewEntities(%q) canonical = %x (size %d), want %x", args, got, a.canonicalSize(), want)
	}
	return a
}

// BenchmarkDecodeNewEntities decodes the arguments of an
// entity_batch_create of 100k lines (BenchmarkHundredThousandLines'):
// densely; the ordinary way (into EntityBatchCreateArgs, then each
// element's geometry, then the canonical encoding); and, as the least any
// decoder does, reading every number of them.
func BenchmarkDecodeNewEntities(b *testing.B) {
	var args bytes.Buffer
	args.WriteString(`{"entities":[`)
	for i := range 100_000 {
		if i > 0 {
			args.WriteByte(',')
		}
		x, y := float64(i%1000), float64(i/1000)
		fmt.Fprintf(&args, `{"type":"line","x1":%v,"x2":%v,"y1":%v,"y2":%v}`, x, x+0.5, y, y+0.5)
	}
	args.WriteString(`]}`)
	raw := args.Bytes()
	b.Run("dense", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if decodeNewEntities(raw) == nil {
				b.Fatal("not dense")
			}
		}
	})
	b.Run("ordinary", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var m enginev1.EntityBatchCreateArgs
			if err := contract.UnmarshalChecked(raw, &m, nil); err != nil {
				b.Fatal(err)
			}
			for _, ne := range m.Entities {
				if _, err := newEntityGeometry("", ne); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := (proto.MarshalOptions{Deterministic: true}).Marshal(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("numbers", func(b *testing.B) {
		for range b.N {
			d := jsonwire.NewDecoder(raw)
			d.OpenObject()
			d.NextKey()
			d.OpenArray()
			for d.NextElement() {
				d.OpenObject()
				for key, ok := d.NextKey(); ok; key, ok = d.NextKey() {
					if string(key) == "type" {
						d.String()
					} else {
						d.Float64()
					}
				}
			}
			if _, more := d.NextKey(); more || !d.End() {
				b.Fatal("not read through")
			}
		}
	})
}

// TestHandlesJSON: handlesJSON writes what contract.Marshal writes of the
// result, for no handles, one, and handles of several lengths.
func TestHandlesJSON(t *testing.T) {
	for _, hs := range [][]uint64{nil, {0x1F}, {1, 0xF, 0x10, 0xFFFF, 0x10000, 1<<64 - 1}} {
		var text []byte
		var ends []int32
		for _, h := range hs {
			text = drawing.AppendHandle(text, h)
			ends = append(ends, int32(len(text)))
		}
		want, err := contract.Marshal(&enginev1.EntityBatchCreateResult{Handles: handleStrings(text, ends), Count: int64(len(hs))})
		if err != nil {
			t.Fatal(err)
		}
		if got := handlesJSON(text, ends); !bytes.Equal(got, want) {
			t.Errorf("handlesJSON(%x) = %s, want %s", hs, got, want)
		}
	}
}

package drawing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// FuzzDecodeEntity feeds the stored-entity decoder arbitrary bytes: it must
// never panic, and whatever it accepts must encode to a form that decodes
// to the same entity.
func FuzzDecodeEntity(f *testing.F) {
	for _, g := range sampleGeometries() {
		f.Add((&Entity{Layer: "walls", Color: 3, Linetype: "DASHED", Geom: g}).Encode())
	}
	f.Add([]byte{tagEntity, encVersion, 5, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add((&Entity{Layer: "0", Geom: sampleTable()}).Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeEntity(0x100, data)
		if err != nil {
			return
		}
		enc := e.Encode()
		back, err := DecodeEntity(0x100, enc)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", enc, err)
		}
		if back.fp != e.fp || !bytes.Equal(back.Encode(), enc) {
			t.Fatalf("decode(encode(e)) differs from e")
		}
	})
}

// FuzzDecodeBlock feeds the stored-block decoder arbitrary bytes: it must
// never panic, and whatever it accepts must encode to the same bytes.
func FuzzDecodeBlock(f *testing.F) {
	var ents []*Entity
	for _, g := range sampleGeometries() {
		ents = append(ents, &Entity{Layer: "0", Color: 0, Linetype: "ByBlock", Geom: g})
	}
	f.Add(NewBlock("BOLT", geom.Pt(1, 2), ents).Encode())
	f.Add([]byte{tagBlock, encVersion, 1, 'B', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodeBlock(0x100, data)
		if err != nil {
			return
		}
		if enc := b.Encode(); !bytes.Equal(enc, data) {
			back, err := decodeBlock(0x100, enc)
			if err != nil || back.digest != b.digest {
				t.Fatalf("decode(encode(b)) differs from b: %v", err)
			}
		}
	})
}

func TestFormatHandle(t *testing.T) {
	for _, h := range []uint64{0, 1, 0xf, 0x100, 0xABCDEF, math.MaxUint64} {
		want := strings.ToUpper(strconv.FormatUint(h, 16))
		if got := FormatHandle(h); got != want {
			t.Errorf("FormatHandle(%#x) = %q, want %q", h, got, want)
		}
		if back, ok := ParseHandle(FormatHandle(h)); h != 0 && (!ok || back != h) { // 0 is no handle
			t.Errorf("ParseHandle(FormatHandle(%#x)) = %#x, %v", h, back, ok)
		}
	}
}

// TestProtoHandleFingerprint: the wire entity spells the handle as
// FormatHandle does and the fingerprint as the hex SHA-256 of the
// canonical encoding, for every kind of geometry and the longest handle.
func TestProtoHandleFingerprint(t *testing.T) {
	for i, g := range sampleGeometries() {
		for _, h := range []uint64{0x100, 0xABCDEF, math.MaxUint64} {
			e := (&Entity{Handle: h, Layer: "walls", Color: 3, Linetype: "DASHED", Geom: g}).Seal()
			sum := sha256.Sum256(e.Encode())
			pb := e.Proto()
			if pb.Handle != FormatHandle(h) || pb.Fingerprint != hex.EncodeToString(sum[:]) || pb.Fingerprint != e.Fingerprint() {
				t.Errorf("geometry %d, handle %#x: Proto() has handle %q, fingerprint %q; want %q, %x", i, h, pb.Handle, pb.Fingerprint, FormatHandle(h), sum)
			}
		}
	}
}

// TestAppendSmall: the encoding appendSmall appends without an encoder is
// the one encodeTo writes, for every geometry it takes (and it takes the
// fixed-size ones with short names); Seal fingerprints it and
// Document.AppendEncoded stores it, without allocating.
func TestAppendSmall(t *testing.T) {
	long := strings.Repeat("n", 101)
	for i, g := range append(sampleGeometries(), Point{geom.Pt(math.Copysign(0, -1), 1)}) {
		for j, names := range [][2]string{{"0", "ByLayer"}, {"walls", long[:95]}, {long, "ByLayer"}, {"0", "DASHED"}, {"walls", long[:90]}} {
			e := &Entity{Handle: 0x100, Layer: names[0], Color: -2, Linetype: names[1], Geom: g}
			if j >= 3 { // with a linetype scale, in model space and on a layout
				e.SetLtScale(0.3)
				e.Layout = []string{"", "Layout1"}[j-3]
			}
			w := &encoder{}
			e.encodeTo(w)
			got, ok := e.appendSmall([]byte{0xAA})
			switch g.(type) {
			case Point, Line, Circle, Arc, Ellipse:
				if want := len(names[0])+len(names[1])+len(e.Layout) <= 100; ok != want {
					t.Errorf("geometry %d, names of %d and %d bytes: appendSmall took it: %v, want %v", i, len(names[0]), len(names[1]), ok, want)
				}
			default:
				if ok {
					t.Errorf("geometry %d (%T): appendSmall took it", i, g)
				}
			}
			if ok && (!bytes.Equal(got[1:], w.b) || got[0] != 0xAA) {
				t.Errorf("geometry %d: appendSmall = %x, want %x after AA", i, got, w.b)
			}
			if len(got)-1 > smallEncoding {
				t.Errorf("geometry %d: %d bytes, more than smallEncoding", i, len(got)-1)
			}
			if e.Seal(); e.fp != sha256.Sum256(w.b) {
				t.Errorf("geometry %d: Seal's fingerprint is not the SHA-256 of the encoding", i)
			}
			d := NewDocument("doc", "d", 0, time.Time{})
			d.SetEntity(e.Handle, e)
			if stored, ok := d.AppendEncoded([]byte{0xAA}, e.Handle); !ok || !bytes.Equal(stored[1:], w.b) {
				t.Errorf("geometry %d: AppendEncoded = %x, want %x after AA", i, stored, w.b)
			}
		}
	}
	line := &Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: Line{geom.Pt(0, 0), geom.Pt(1, 1)}}
	d := NewDocument("doc", "d", 0, time.Time{})
	d.SetEntity(0x100, line.Seal())
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { line.Seal(); d.AppendEncoded(buf, 0x100) }); n != 0 {
		t.Errorf("Seal and AppendEncoded of a line allocate %v times, want 0", n)
	}
}

// A preserved table (or dimension) whose writer's drawing was read is
// drawn as that drawing alone: its outline (here a frame from its codes,
// as big as the drawing's grid) is not drawn over it. Without the
// drawing, the outline is what is drawn.
func TestForeignDrawnReplacesOutline(t *testing.T) {
	frame := []geom.Segment{
		{A: geom.Pt(0, 0), B: geom.Pt(10, 0)}, {A: geom.Pt(10, 0), B: geom.Pt(10, -5)},
		{A: geom.Pt(10, -5), B: geom.Pt(0, -5)}, {A: geom.Pt(0, -5), B: geom.Pt(0, 0)},
	}
	g := NewForeign("ACAD_TABLE", nil, frame, []geom.Vec{geom.Pt(0, 0), geom.Pt(10, -5)})
	if got := g.Picture().Strokes; len(got) != 4 {
		t.Errorf("without a drawing, strokes = %v, want the 4 sides of the frame", got)
	}
	rule := geom.Segment{A: geom.Pt(0, -2), B: geom.Pt(10, -2)}
	g.Drawn = &Picture{Strokes: []any{rule}, Texts: []Text{{Text: "1", P: geom.Pt(1, -1), Height: 1}}}
	p := g.Picture()
	if len(p.Strokes) != 1 || p.Strokes[0] != any(rule) || len(p.Texts) != 1 {
		t.Errorf("with a drawing, strokes = %v and %d texts, want only the drawing's %v and its text", p.Strokes, len(p.Texts), rule)
	}
}

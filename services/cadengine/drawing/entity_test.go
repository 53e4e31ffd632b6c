package drawing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"

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

package drawing

import (
	"bytes"
	"testing"
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

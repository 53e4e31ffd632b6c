package core

import (
	"bytes"
	"testing"
)

// FuzzDecodeEntity feeds the stored-entity decoder arbitrary bytes: it must
// never panic, and whatever it accepts must encode to a form that decodes
// to the same entity.
func FuzzDecodeEntity(f *testing.F) {
	for _, g := range sampleGeometries() {
		f.Add((&entity{layer: "walls", color: 3, linetype: "DASHED", geom: g}).encode())
	}
	f.Add([]byte{tagEntity, encVersion, 5, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := decodeEntity(0x100, data)
		if err != nil {
			return
		}
		enc := e.encode()
		back, err := decodeEntity(0x100, enc)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", enc, err)
		}
		if back.fp != e.fp || !bytes.Equal(back.encode(), enc) {
			t.Fatalf("decode(encode(e)) differs from e")
		}
	})
}

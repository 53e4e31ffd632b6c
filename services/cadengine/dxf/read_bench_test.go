package dxf

import "testing"

// BenchmarkReadText reads an AutoCAD 2018 DXF of 100,000 lines from its
// text, as document.import does.
func BenchmarkReadText(b *testing.B) {
	text := Write2018(lineDocument(100_000))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadText(text); err != nil {
			b.Fatal(err)
		}
	}
}

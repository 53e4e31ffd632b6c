package dxf

import (
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// lineDocument is a drawing of n lines on layer 0, with coordinates of
// a few digits and some fractions, as cadbench's dxf-export sends.
func lineDocument(n int) *drawing.Document {
	d := drawing.NewDocument("doc-bench", "bench", enginev1.Units_UNITS_MM, time.Time{})
	for i := range n {
		x, y := float64(i%1000)*1.25, float64(i/1000)*0.5
		d.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: drawing.Line{A: geom.Pt(x, y), B: geom.Pt(x+10.125, y+3)}})
	}
	return d
}

// BenchmarkWrite2018 writes a drawing of 100,000 lines as an AutoCAD 2018
// DXF.
func BenchmarkWrite2018(b *testing.B) { benchmarkWrite(b, Write2018) }

// BenchmarkWriteR12 writes a drawing of 100,000 lines as an R12 DXF.
func BenchmarkWriteR12(b *testing.B) { benchmarkWrite(b, Write) }

func benchmarkWrite(b *testing.B, write func(*drawing.Document) string) {
	d := lineDocument(100_000)
	b.SetBytes(int64(len(write(d))))
	b.ReportAllocs()
	for b.Loop() {
		write(d)
	}
}

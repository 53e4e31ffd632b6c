package dxf

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestProxyText: a preserved entity whose proxy graphics hold a text
// draws that text, at its point, height and direction (as AutoCAD and
// ezdxf draw proxy graphics), not the box that bounds it; the box still
// bounds the entity.
func TestProxyText(t *testing.T) {
	var rec []byte
	f64 := func(vs ...float64) {
		for _, v := range vs {
			rec = binary.LittleEndian.AppendUint64(rec, math.Float64bits(v))
		}
	}
	f64(1, 2, 0, 0, 0, 1, 0, 1, 0) // at, normal, direction: up
	f64(2.5, 1, 0)                 // height, width factor, oblique
	rec = append(rec, 'A', 'B', 0, 0)
	data := binary.LittleEndian.AppendUint32(nil, uint32(8+8+len(rec)))
	data = binary.LittleEndian.AppendUint32(data, 1)
	data = binary.LittleEndian.AppendUint32(data, uint32(8+len(rec)))
	data = binary.LittleEndian.AppendUint32(data, 10) // a text
	data = append(data, rec...)
	r := dxfRecord{kind: "ACAD_PROXY_ENTITY", pairs: []dxfPair{
		{code: 92, value: strconv.Itoa(len(data))}, {code: 310, value: hex.EncodeToString(data)},
	}}

	g := foreignOf(r, nil)
	p := g.Picture()
	if len(p.Strokes) != 0 {
		t.Errorf("the proxy text's picture has strokes %v, want none (no box)", p.Strokes)
	}
	if len(p.Texts) != 1 {
		t.Fatalf("the proxy text's picture has texts %+v, want one", p.Texts)
	}
	got := p.Texts[0]
	if got.Text != "AB" || !got.P.Same(geom.Pt(1, 2)) || math.Abs(got.Height-2.5) > 1e-12 || math.Abs(got.Rotation-90) > 1e-9 {
		t.Errorf("the proxy text = %q at %v, height %g, turned %g°; want \"AB\" at (1, 2), 2.5 high, turned 90°", got.Text, got.P, got.Height, got.Rotation)
	}
	// Two characters as wide as the text is tall, up from (1, 2): the
	// box reaches y = 2 + 5 and x = 1 - 2.5 (the text's top is to its
	// left).
	if b := g.Bounds(); b.Max.Y < 7-1e-9 || b.Min.X > 1-2.5+1e-9 {
		t.Errorf("the proxy text's bounds = %v, want them to hold its box up to y = 7 and left to x = -1.5", b)
	}
}

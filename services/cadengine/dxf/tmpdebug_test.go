package dxf

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

func TestTmpDebug(t *testing.T) {
	b, _ := os.ReadFile("/work/shared/dxfcorpus/files/mozman__ezdxf__examples_dxf__mtext_complex_inline_codes.dxf")
	f, err := ReadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	d := drawing.NewDocument("x", "c", f.Units, time.Time{})
	f.Build(d)
	d.Each(0, func(e *drawing.Entity) bool {
		if g, ok := e.Geom.(drawing.MText); ok {
			fmt.Printf("%q\n%v %v\n", g.Text, g.Bounds(), g.Lines())
		}
		return true
	})
}

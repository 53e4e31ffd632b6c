package drawing

import (
	"math"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// TestCurvedLeaderTangents: a spline leader leaves its first vertex along
// its first segment (where its arrowhead points) and reaches its last
// along its last (the hook to its text), as ezdxf renders it.
func TestCurvedLeaderTangents(t *testing.T) {
	g := Leader{V: []geom.Vec{geom.Pt(0, 0), geom.Pt(3, 3), geom.Pt(8, 3)}, Curved: true}
	path := g.Path()
	if len(path) < 3 {
		t.Fatalf("Path() has %d pieces, want a flattened curve", len(path))
	}
	first, last := path[0].(geom.Segment), path[len(path)-1].(geom.Segment)
	if !first.A.Same(g.V[0]) || !last.B.Same(g.V[2]) {
		t.Fatalf("Path() runs from %v to %v, want from %v to %v", first.A, last.B, g.V[0], g.V[2])
	}
	for _, c := range []struct {
		name      string
		got, want geom.Vec
	}{
		{"leaves the first vertex", first.B.Sub(first.A), geom.Pt(1, 1)},
		{"reaches the last vertex", last.B.Sub(last.A), geom.Pt(1, 0)},
	} {
		turn := math.Abs(math.Atan2(c.got.X*c.want.Y-c.got.Y*c.want.X, c.got.X*c.want.X+c.got.Y*c.want.Y))
		if turn > 2*math.Pi/180 {
			t.Errorf("the curve %s going %v, %.1f° off %v", c.name, c.got, turn*180/math.Pi, c.want)
		}
	}
}

package dxf

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A mesh is drawn as AutoCAD draws it in wireframe, seen from above: a
// polygon mesh its grid (closed where its flags say), a smoothed one the
// grid of its surface vertices and not its frame, a polyface mesh the
// edges of its faces less the invisible ones, a MESH the edges of its
// faces; each edge once.
func TestPreservedMeshOutline(t *testing.T) {
	for _, tc := range []struct {
		name, entities string
		typ            string
		want           []string // each edge "x1,y1-x2,y2", ends in order
	}{
		{
			// 2 rows (M) of 3 (N), closed in N (32): each row a closed
			// triangle, each column one edge; z does not show from above.
			name: "polygon mesh closed in N",
			entities: "0|POLYLINE|66|1|10|0|20|0|30|0|70|48|71|2|72|3" +
				"|0|VERTEX|10|0|20|0|30|5|70|64|0|VERTEX|10|4|20|0|30|5|70|64|0|VERTEX|10|2|20|3|30|5|70|64" +
				"|0|VERTEX|10|0|20|10|30|7|70|64|0|VERTEX|10|4|20|10|30|7|70|64|0|VERTEX|10|2|20|13|30|7|70|64|0|SEQEND",
			typ: "POLYLINE",
			want: []string{
				"0,0-4,0", "4,0-2,3", "0,0-2,3", // first row, closed
				"0,10-4,10", "4,10-2,13", "0,10-2,13", // second row, closed
				"0,0-0,10", "4,0-4,10", "2,3-2,13", // the columns, open
			},
		},
		{
			// A 2 × 2 frame (VERTEX flag 16) smoothed (4) into a surface
			// of 2 × 3 vertices (flag 8, densities 73 and 74): the
			// surface is drawn, the frame is not.
			name: "smoothed polygon mesh",
			entities: "0|POLYLINE|66|1|10|0|20|0|30|0|70|20|71|2|72|2|73|2|74|3|75|5" +
				"|0|VERTEX|10|-50|20|-50|30|0|70|80|0|VERTEX|10|50|20|-50|30|0|70|80|0|VERTEX|10|-50|20|50|30|0|70|80|0|VERTEX|10|50|20|50|30|0|70|80" +
				"|0|VERTEX|10|0|20|0|30|0|70|72|0|VERTEX|10|1|20|0|30|1|70|72|0|VERTEX|10|2|20|0|30|0|70|72" +
				"|0|VERTEX|10|0|20|1|30|0|70|72|0|VERTEX|10|1|20|1|30|1|70|72|0|VERTEX|10|2|20|1|30|0|70|72|0|SEQEND",
			typ:  "POLYLINE",
			want: []string{"0,0-1,0", "1,0-2,0", "0,1-1,1", "1,1-2,1", "0,0-0,1", "1,0-1,1", "2,0-2,1"},
		},
		{
			// A unit square split into two triangles along its diagonal
			// 1–3, which both faces mark invisible (a negative index:
			// the edge from that vertex to the next): its four sides.
			name: "polyface mesh with invisible edges",
			entities: "0|POLYLINE|66|1|10|0|20|0|30|0|70|64|71|4|72|2" +
				"|0|VERTEX|10|0|20|0|30|0|70|192|0|VERTEX|10|1|20|0|30|0|70|192|0|VERTEX|10|1|20|1|30|0|70|192|0|VERTEX|10|0|20|1|30|0|70|192" +
				"|0|VERTEX|10|0|20|0|30|0|70|128|71|1|72|2|73|-3" +
				"|0|VERTEX|10|0|20|0|30|0|70|128|71|3|72|4|73|-1|0|SEQEND",
			typ:  "POLYLINE",
			want: []string{"0,0-1,0", "1,0-1,1", "1,1-0,1", "0,1-0,0"},
		},
		{
			// The same square, one face marking the diagonal invisible
			// and the other not: the face that draws it wins.
			name: "polyface mesh, an edge one face hides",
			entities: "0|POLYLINE|66|1|10|0|20|0|30|0|70|64|71|4|72|2" +
				"|0|VERTEX|10|0|20|0|30|0|70|192|0|VERTEX|10|1|20|0|30|0|70|192|0|VERTEX|10|1|20|1|30|0|70|192|0|VERTEX|10|0|20|1|30|0|70|192" +
				"|0|VERTEX|10|0|20|0|30|0|70|128|71|1|72|2|73|-3" +
				"|0|VERTEX|10|0|20|0|30|0|70|128|71|3|72|4|73|1|0|SEQEND",
			typ:  "POLYLINE",
			want: []string{"0,0-1,0", "1,0-1,1", "1,1-0,1", "0,1-0,0", "1,1-0,0"},
		},
		{
			// Two quads sharing the edge 1–4: seven edges, the shared
			// one once.
			name: "MESH",
			entities: "0|MESH|100|AcDbEntity|8|0|100|AcDbSubDMesh|71|2|72|0|91|0|92|6" +
				"|10|0|20|0|30|0|10|1|20|0|30|0|10|2|20|0|30|0|10|0|20|1|30|1|10|1|20|1|30|1|10|2|20|1|30|1" +
				"|93|10|90|4|90|0|90|1|90|4|90|3|90|4|90|1|90|2|90|5|90|4" +
				"|94|7|90|0|90|1|90|1|90|4|90|4|90|3|90|3|90|0|90|1|90|2|90|2|90|5|90|5|90|4|95|0|90|0",
			typ:  "MESH",
			want: []string{"0,0-1,0", "1,0-1,1", "1,1-0,1", "0,1-0,0", "1,0-2,0", "2,0-2,1", "2,1-1,1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := importText(strings.ReplaceAll("0|SECTION|2|ENTITIES|"+tc.entities+"|0|ENDSEC|0|EOF|", "|", "\n"))
			if err != nil {
				t.Fatal(err)
			}
			g := foreignOfType(t, d, tc.typ)
			got := edgeNames(g.Outline)
			want := edgeNames(nil, tc.want...)
			if !slices.Equal(got, want) {
				t.Errorf("outline = %v, want %v", got, want)
			}
		})
	}
}

// edgeNames are the segments' names ("x1,y1-x2,y2", the lesser end
// first) and those given (either end first), sorted.
func edgeNames(segs []geom.Segment, named ...string) []string {
	var out []string
	for _, s := range segs {
		a, b := fmt.Sprintf("%g,%g", s.A.X, s.A.Y), fmt.Sprintf("%g,%g", s.B.X, s.B.Y)
		out = append(out, min(a, b)+"-"+max(a, b))
	}
	for _, n := range named {
		a, b, _ := strings.Cut(n, "-")
		out = append(out, min(a, b)+"-"+max(a, b))
	}
	slices.Sort(out)
	return out
}

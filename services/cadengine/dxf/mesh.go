package dxf

import (
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// What a mesh draws, seen from above, as AutoCAD draws it in wireframe:
// a polygon mesh (POLYLINE 16) its grid of vertices, row by row and
// column by column; a polyface mesh (POLYLINE 64) the edges of its faces
// but those a face marks invisible; a MESH the edges of its faces.

// meshEdges collects the edges of a mesh, each once whichever way round
// and however many faces share it, between the mesh's vertices (world
// points, by index).
type meshEdges struct {
	pts  []geom.Vec
	seen map[[2]int]bool
	out  []geom.Segment
}

func newMeshEdges(pts []geom.Vec) *meshEdges {
	return &meshEdges{pts: pts, seen: map[[2]int]bool{}}
}

// add draws the edge from vertex a to vertex b (indexes from 0), unless
// it is drawn already, either end is not a vertex, or it has no length.
func (m *meshEdges) add(a, b int) {
	if a < 0 || b < 0 || a >= len(m.pts) || b >= len(m.pts) {
		return
	}
	key := [2]int{min(a, b), max(a, b)}
	if m.seen[key] || m.pts[a].Same(m.pts[b]) {
		return
	}
	m.seen[key] = true
	m.out = append(m.out, geom.Segment{A: m.pts[a], B: m.pts[b]})
}

// gridOutline is a polygon mesh of rows × cols vertices (pts row by row)
// as AutoCAD draws it: each row and each column joined, the rows closed
// (last column back to the first) when closedN, the columns when closedM.
// Nil when pts are not that many.
func gridOutline(pts []geom.Vec, rows, cols int, closedM, closedN bool) []geom.Segment {
	if rows < 1 || cols < 1 || rows*cols != len(pts) {
		return nil
	}
	e := newMeshEdges(pts)
	at := func(m, n int) int { return m*cols + n }
	for m := range rows {
		for n := range cols {
			switch {
			case n+1 < cols:
				e.add(at(m, n), at(m, n+1))
			case closedN && cols > 2:
				e.add(at(m, n), at(m, 0))
			}
			switch {
			case m+1 < rows:
				e.add(at(m, n), at(m+1, n))
			case closedM && rows > 2:
				e.add(at(m, n), at(0, n))
			}
		}
	}
	return e.out
}

// polygonMeshOutline is a POLYLINE polygon mesh (flag 16): its M × N
// vertices (71, 72) as gridOutline draws them, closed in M by flag 1 and
// in N by flag 32. A smoothed one (flag 4) is drawn as its surface, the
// vertices fitted to its frame (VERTEX flag 8), M density × N density
// (73, 74) of them, as AutoCAD draws it (SPLFRAME 0); its frame (VERTEX
// flag 16) is left out. pts are its vertices in world coordinates, each
// with its VERTEX flags.
func polygonMeshOutline(r dxfRecord, pts []geom.Vec, flags []int64) []geom.Segment {
	mesh := r.flags()
	closedM, closedN := mesh&1 != 0, mesh&32 != 0
	if mesh&4 != 0 {
		var surface []geom.Vec
		for i, f := range flags {
			if f&8 != 0 {
				surface = append(surface, pts[i])
			}
		}
		if rows, cols := int(firstInt(r.pairs, 73, 0)), int(firstInt(r.pairs, 74, 0)); len(surface) > 0 && rows*cols == len(surface) {
			return gridOutline(surface, rows, cols, closedM, closedN)
		}
	}
	var frame []geom.Vec
	for i, f := range flags {
		if f&8 == 0 {
			frame = append(frame, pts[i])
		}
	}
	return gridOutline(frame, int(firstInt(r.pairs, 71, 0)), int(firstInt(r.pairs, 72, 0)), closedM, closedN)
}

// polyfaceOutline is a polyface mesh's faces drawn through its vertices
// (world points): a face is the vertices (from 1) its indexes 71–74
// name, up to the first that is 0, joined round; an edge whose index is
// negative (the edge from that vertex to the next) is invisible and left
// out, unless another face draws it.
func polyfaceOutline(pts []geom.Vec, faces [][]int64) []geom.Segment {
	e := newMeshEdges(pts)
	for _, f := range faces {
		for i, k := range f {
			if k < 0 {
				continue
			}
			e.add(int(k)-1, int(abs64(f[(i+1)%len(f)]))-1)
		}
	}
	return e.out
}

// polyfaceFace is the indexes (71–74) of a polyface mesh's face record
// up to the first that is 0 or missing.
func polyfaceFace(s dxfRecord) []int64 {
	var f []int64
	for c := 71; c <= 74; c++ {
		k := firstInt(s.pairs, c, 0)
		if k == 0 {
			break
		}
		f = append(f, k)
	}
	return f
}

func abs64(k int64) int64 {
	if k < 0 {
		return -k
	}
	return k
}

// subdMeshOutline is a MESH (AcDbSubDMesh) as the edges of its faces: its
// vertices (the 10s after their count 92) and its face list (the 90s
// after its size 93: each face its vertex count, then its vertexes from
// 0), in world coordinates. A mesh smoothed (subdivision level 91 above
// 0) is drawn as its faces too, unsmoothed.
func subdMeshOutline(r dxfRecord) []geom.Segment {
	var pts []geom.Vec
	var list []int64
	vertices, items := -1, -1 // how many still to read; -1 before the count
	for i, p := range r.pairs {
		switch {
		case p.code == 92 && vertices < 0:
			n, _ := p.int()
			vertices = int(max(n, 0))
		case p.code == 10 && vertices > 0:
			v := pairPoint(r.pairs, i)
			pts = append(pts, geom.Pt(v[0], v[1]))
			vertices--
		case p.code == 93 && items < 0:
			n, _ := p.int()
			items = int(max(n, 0))
		case p.code == 90 && items > 0:
			n, _ := p.int()
			list = append(list, n)
			items--
		}
	}
	if len(finitePoints(pts)) != len(pts) {
		return nil
	}
	e := newMeshEdges(pts)
	for i := 0; i < len(list); {
		n := int(list[i])
		if n < 1 || i+1+n > len(list) {
			break
		}
		f := list[i+1 : i+1+n]
		for j, k := range f {
			e.add(int(k), int(f[(j+1)%n]))
		}
		i += 1 + n
	}
	return e.out
}

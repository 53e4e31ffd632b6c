package dxf

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Proxy graphics: the drawing a program saves with an entity other
// programs may not know (code 310 chunks of binary, announced by 92 or
// 160), read as ezdxf's proxygraphic module reads them, for preserved
// entities that have them (MULTILEADER, ACAD_TABLE, ACAD_PROXY_ENTITY…).

// proxyGraphics are the bytes of an entity's proxy graphics (see
// proxySpan), or nil.
func proxyGraphics(ps []dxfPair) []byte {
	i, j := proxySpan(ps)
	var data []byte
	for _, p := range ps[min(i+1, j):j] {
		b, err := hex.DecodeString(strings.TrimSpace(p.value))
		if err != nil {
			return nil
		}
		data = append(data, b...)
	}
	return data
}

// proxySpan is where a record's proxy graphics are, ps[i:j]: their size
// (92, or 160 from R2013 on) and the 310s that follow it; i == j when
// it has none.
func proxySpan(ps []dxfPair) (i, j int) {
	for i = 0; i+1 < len(ps); i++ {
		if (ps[i].code == 92 || ps[i].code == 160) && ps[i+1].code == 310 {
			j = i + 1
			for j < len(ps) && ps[j].code == 310 {
				j++
			}
			return i, j
		}
	}
	return 0, 0
}

// A proxyReader reads the little-endian values of a proxy graphics
// record, each padded to 4 bytes (ezdxf's ByteStream); ok is false once
// one was cut short.
type proxyReader struct {
	b  []byte
	i  int
	ok bool
}

func (r *proxyReader) u32() uint32 {
	if !r.ok || r.i+4 > len(r.b) {
		r.ok = false
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.i:])
	r.i += 4
	return v
}

func (r *proxyReader) f64() float64 {
	if !r.ok || r.i+8 > len(r.b) {
		r.ok = false
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.i:]))
	r.i += 8
	return v
}

func (r *proxyReader) vec() [3]float64 { return [3]float64{r.f64(), r.f64(), r.f64()} }

// text is a string ending in a zero byte, or with unicode two (UTF-16).
func (r *proxyReader) text(unicode bool) string {
	step := 1
	if unicode {
		step = 2
	}
	for end := r.i; r.ok && end+step <= len(r.b); end += step {
		if r.b[end] != 0 || unicode && r.b[end+1] != 0 {
			continue
		}
		s := r.b[r.i:end]
		r.i = (end + step + 3) &^ 3
		if !unicode {
			return string(s)
		}
		u := make([]uint16, len(s)/2)
		for k := range u {
			u[k] = binary.LittleEndian.Uint16(s[2*k:])
		}
		return string(utf16.Decode(u))
	}
	r.ok = false
	return ""
}

// A proxyPic is what proxy graphics draw, in world x and y.
type proxyPic struct {
	outline []geom.Segment
	points  []geom.Vec
	texts   []drawing.Text
}

// proxyPicture is what the proxy graphics data draw (as ezdxf's
// proxygraphic.ProxyGraphic reads them): polylines and polygons, circles
// and arcs, meshes and shells by their vertices, and, with text, its
// texts (on their baselines' starts; their estimated boxes bound them);
// each placed by the matrices pushed (each
// inside the one before: ezdxf takes only the last, and so misplaces a
// table's cells, which it draws from the table's block instead). ok is
// false when the data are cut short or draw nothing.
func proxyPicture(data []byte, text bool) (proxyPic, bool) {
	var pic proxyPic
	var matrices [][16]float64
	drawn := false
	place := func(v [3]float64) geom.Vec {
		if n := len(matrices); n > 0 {
			m := matrices[n-1]
			return geom.Pt(m[0]*v[0]+m[1]*v[1]+m[2]*v[2]+m[3], m[4]*v[0]+m[5]*v[1]+m[6]*v[2]+m[7])
		}
		return geom.Pt(v[0], v[1])
	}
	add := func(vs [][3]float64, closed bool) {
		pts := make([]geom.Vec, len(vs))
		for i, v := range vs {
			pts[i] = place(v)
		}
		if pts = finitePoints(pts); closed {
			pic.outline = append(pic.outline, closedOutline(pts)...)
		} else {
			pic.outline = append(pic.outline, openOutline(pts)...)
		}
		pic.points, drawn = append(pic.points, pts...), true
	}
	for i := 8; i+8 <= len(data); {
		size, kind := int(binary.LittleEndian.Uint32(data[i:])), binary.LittleEndian.Uint32(data[i+4:])
		if size < 8 || size > len(data)-i {
			return pic, false
		}
		r := &proxyReader{b: data[i+8 : i+size], ok: true}
		i += size
		switch kind {
		case 2: // circle: centre, radius, normal
			c, radius, n := r.vec(), r.f64(), r.vec()
			add(circlePoints(c, radius, n, [3]float64{}, 2*math.Pi), false)
		case 3: // circle through three points, in the plan
			p1, p2, p3 := r.vec(), r.vec(), r.vec()
			add(arc3Points(p1, p2, p3, true), false)
		case 4: // arc: centre, radius, normal, start direction, sweep
			c, radius, n, start, sweep := r.vec(), r.f64(), r.vec(), r.vec(), r.f64()
			add(circlePoints(c, radius, n, start, sweep), false)
		case 5: // arc through three points, in the plan
			p1, p2, p3 := r.vec(), r.vec(), r.vec()
			add(arc3Points(p1, p2, p3, false), false)
		case 6, 7, 32: // polyline, polygon, polyline and its normal
			n := int(r.u32())
			if kind == 32 {
				n++
			}
			if n < 0 || n > len(r.b)/24 {
				return pic, false
			}
			vs := make([][3]float64, n)
			for k := range vs {
				vs[k] = r.vec()
			}
			if kind == 32 {
				vs = vs[:n-1]
			}
			add(vs, kind == 7)
		case 8, 9: // mesh (rows × columns vertices), shell (its vertices)
			n := int(r.u32())
			if kind == 8 {
				n *= int(r.u32())
			}
			if n < 0 || n > len(r.b)/24 {
				return pic, false
			}
			vs := make([][3]float64, n)
			for k := range vs {
				vs[k] = r.vec()
			}
			before := len(pic.outline)
			add(vs, false)
			pic.outline = pic.outline[:before] // the faces are not read
		case 10, 11, 36, 38: // text, text2, and in unicode
			at, n, dir := r.vec(), r.vec(), r.vec()
			t := textBox{stretchX: 1, stretchY: 1, angle: math.Atan2(dir[1], dir[0])}
			var s string
			if kind == 10 || kind == 36 {
				t.height, t.width, t.oblique = r.f64(), r.f64(), r.f64()
				s = r.text(kind == 36)
			} else {
				s = r.text(kind == 38)
				r.u32()
				r.u32()
				t.height, t.width, t.oblique = r.f64(), r.f64(), r.f64()
				r.f64() // tracking
				t.mirrorX, t.mirrorY = r.u32() != 0, r.u32() != 0
			}
			t.chars = utf8.RuneCountInString(decodeDXFText(s))
			if !r.ok {
				return pic, false
			}
			drawn = true
			if !text || t.chars == 0 {
				continue
			}
			ax, ay, un, ok := arbitraryAxes(n)
			if !ok {
				ax, ay, un = [3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}
			}
			ocs := func(x, y, z float64) [3]float64 {
				return [3]float64{x*ax[0] + y*ay[0] + z*un[0], x*ax[1] + y*ay[1] + z*un[1], x*ax[2] + y*ay[2] + z*un[2]}
			}
			for _, q := range t.corners() {
				if p := place(ocs(at[0]+q.X, at[1]+q.Y, at[2])); p.Finite() {
					pic.points = append(pic.points, p)
				}
			}
			// The text itself, on its baseline's start, its direction and
			// height as the matrix places them.
			sin, cos := math.Sincos(t.angle)
			origin := place(ocs(at[0], at[1], at[2]))
			along := place(ocs(at[0]+cos, at[1]+sin, at[2])).Sub(origin)
			up := place(ocs(at[0]-sin, at[1]+cos, at[2])).Sub(origin)
			txt := drawing.Text{
				Text: decodeDXFText(s), P: origin, Height: t.height * up.Len(),
				Rotation: geom.NormDeg(geom.Deg(along.Angle())), Style: plainStandard(drawing.TextStyle{Width: math.Abs(t.width)}),
			}
			if txt.P.Finite() && txt.Height > 0 && !math.IsInf(txt.Height, 0) && !math.IsNaN(txt.Rotation) {
				pic.texts = append(pic.texts, txt)
			}
		case 29: // push a matrix (16 numbers, by rows), applied inside the one before
			var m [16]float64
			for k := range m {
				m[k] = r.f64()
			}
			if n := len(matrices); n > 0 {
				m = mul4(matrices[n-1], m)
			}
			matrices = append(matrices, m)
		case 31: // pop it
			if len(matrices) > 0 {
				matrices = matrices[:len(matrices)-1]
			}
		}
		if !r.ok {
			return pic, false
		}
	}
	return pic, drawn
}

// mul4 is the 4 × 4 matrix product a·b (by rows).
func mul4(a, b [16]float64) [16]float64 {
	var c [16]float64
	for i := range 4 {
		for j := range 4 {
			for k := range 4 {
				c[4*i+j] += a[4*i+k] * b[4*k+j]
			}
		}
	}
	return c
}

// circlePoints are the points of an arc about c of radius r in the
// plane of normal n, from the direction start (in that plane; zero for
// the plane's x axis) through sweep radians, 64 pieces a turn.
func circlePoints(c [3]float64, r float64, n, start [3]float64, sweep float64) [][3]float64 {
	ax, _, un, ok := arbitraryAxes(n)
	if !ok {
		return nil
	}
	if l := math.Sqrt(start[0]*start[0] + start[1]*start[1] + start[2]*start[2]); l > 0 {
		ax = [3]float64{start[0] / l, start[1] / l, start[2] / l}
	}
	ay := cross3(un, ax)
	k := turnSteps(sweep)
	out := make([][3]float64, k+1)
	for i := range out {
		s, co := math.Sincos(sweep * float64(i) / float64(k))
		for j := range 3 {
			out[i][j] = c[j] + r*(co*ax[j]+s*ay[j])
		}
	}
	return out
}

// arc3Points are the points of the circle through p1, p2 and p3 in the
// plan, or (!full) of its arc from p1 through p2 to p3.
func arc3Points(p1, p2, p3 [3]float64, full bool) [][3]float64 {
	a, b, c := geom.Pt(p1[0], p1[1]), geom.Pt(p2[0], p2[1]), geom.Pt(p3[0], p3[1])
	d := 2 * (a.X*(b.Y-c.Y) + b.X*(c.Y-a.Y) + c.X*(a.Y-b.Y))
	if d == 0 {
		return [][3]float64{p1, p2, p3}
	}
	sq := func(p geom.Vec) float64 { return p.X*p.X + p.Y*p.Y }
	o := geom.Pt((sq(a)*(b.Y-c.Y)+sq(b)*(c.Y-a.Y)+sq(c)*(a.Y-b.Y))/d, (sq(a)*(c.X-b.X)+sq(b)*(a.X-c.X)+sq(c)*(b.X-a.X))/d)
	start, sweep := a.Sub(o).Angle(), 2*math.Pi
	if !full {
		sweep = geom.NormRad(c.Sub(o).Angle() - start)
		if geom.NormRad(b.Sub(o).Angle()-start) > sweep { // clockwise: from p3 round to p1
			start, sweep = c.Sub(o).Angle(), 2*math.Pi-sweep
		}
	}
	return circlePoints([3]float64{o.X, o.Y, p1[2]}, a.Dist(o), [3]float64{0, 0, 1}, [3]float64{math.Cos(start), math.Sin(start), 0}, sweep)
}

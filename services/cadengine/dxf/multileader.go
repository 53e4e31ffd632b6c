package dxf

import (
	"math"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// MULTILEADER, read into a native drawing.Leader (Multi) that carries
// its text, and written back as one (R12, which has none, gets its lines
// as polylines and its text as TEXT, one per line). One whose content is
// a block is kept as the file had it.

// mleaderSection is the part of a MULTILEADER's record a pair is in.
type mleaderSection int

const (
	mlTop mleaderSection = iota
	mlContext
	mlLeader
	mlLine
)

// mleaderLeader is one leader of a MULTILEADER's context data.
type mleaderLeader struct {
	lines     [][]geom.Vec
	last      geom.Vec
	dogleg    geom.Vec
	hasDogleg bool // 291: the dogleg's direction is given
	length    float64
	vertical  bool // 271 = 1: the text is attached above or below
}

// multileader reads a MULTILEADER: from its context data (300
// CONTEXT_DATA{ … 301 }) the arrowhead size (140), the text (290 = 1:
// its content 304, insertion 12, direction 13, width 43, line spacing
// 45, alignment 171, at the height 41) and each leader (302 LEADER{ …
// 303: its last point 10, dogleg 11 and 40, attachment 271), whose
// lines (304 LEADER_LINE{ … 305) list their vertices 10 from the point
// they point at; from the entity the leader type 170 (0 none, 1
// straight, 2 a spline) and whether its leaders have doglegs (291). A
// leader's line runs, as ezdxf draws it, through its vertices to the
// leader's last point and, attached at the side, along its dogleg.
func (r dxfRecord) multileader(c dxfCommon) (drawing.Geometry, string, error) {
	if _, ok := c.ocs(); !ok {
		return nil, "3D (its extrusion direction is not ±Z)", nil
	}
	sec := mlTop
	var leaders []*mleaderLeader
	var cur *mleaderLeader
	var text *drawing.MText
	hasText, hasBlock := false, false
	var content string
	var textDir geom.Vec
	scale, charHeight, arrow, spacing := 1.0, 0.0, 0.0, 1.0
	leaderType, dogleg := int64(1), true
	for i := 0; i < len(r.pairs); i++ {
		p := r.pairs[i]
		word := p.word()
		switch {
		case p.code == 300 && word == "CONTEXT_DATA{":
			sec = mlContext
			continue
		case p.code == 301 && sec == mlContext:
			sec = mlTop
			continue
		case p.code == 302 && word == "LEADER{" && sec == mlContext:
			sec, cur = mlLeader, &mleaderLeader{dogleg: geom.Pt(1, 0)}
			leaders = append(leaders, cur)
			continue
		case p.code == 303 && sec == mlLeader:
			sec = mlContext
			continue
		case p.code == 304 && word == "LEADER_LINE{" && sec == mlLeader:
			sec = mlLine
			cur.lines = append(cur.lines, nil)
			continue
		case p.code == 305 && sec == mlLine:
			sec = mlLeader
			continue
		}
		num := func() (float64, error) { return p.float() }
		point := func() (geom.Vec, error) {
			q, _, err := r.pointAt(i)
			return q, err
		}
		var err error
		switch sec {
		case mlTop:
			switch p.code {
			case 170:
				leaderType, err = p.int()
			case 291:
				var n int64
				n, err = p.int()
				dogleg = n != 0
			case 172:
				var n int64
				n, err = p.int()
				hasBlock = hasBlock || n == 1
			}
		case mlContext:
			switch p.code {
			case 40:
				scale, err = num()
			case 41:
				charHeight, err = num()
			case 140:
				arrow, err = num()
			case 290:
				var n int64
				n, err = p.int()
				hasText = n == 1
			case 296:
				var n int64
				n, err = p.int()
				hasBlock = hasBlock || n == 1
			case 304:
				content = p.value
			case 12:
				text = &drawing.MText{}
				text.P, err = point()
			case 13:
				textDir, err = point()
			case 43:
				if text != nil {
					text.Width, err = num()
				}
			case 45:
				spacing, err = num()
			case 171:
				var n int64
				if n, err = p.int(); text != nil && n >= 1 && n <= 3 {
					text.Attach = uint8(n)
				}
			}
		case mlLeader:
			switch p.code {
			case 10:
				cur.last, err = point()
			case 11:
				cur.dogleg, err = point()
			case 291:
				var n int64
				n, err = p.int()
				cur.hasDogleg = n != 0
			case 40:
				cur.length, err = num()
			case 271:
				var n int64
				n, err = p.int()
				cur.vertical = n == 1
			}
		case mlLine:
			if p.code == 10 {
				var q geom.Vec
				q, err = point()
				cur.lines[len(cur.lines)-1] = append(cur.lines[len(cur.lines)-1], q)
			}
		}
		if err != nil {
			return nil, "", err
		}
	}
	if hasBlock {
		return nil, "its content is a block (kept as the file had it)", nil
	}
	if leaderType == 0 {
		return nil, "its leader lines are invisible", nil
	}
	g := drawing.Leader{Arrow: true, Curved: leaderType == 2, Size: arrow, Style: "Standard", Multi: true}
	if leaderType == 2 {
		dogleg = false
	}
	for _, l := range leaders {
		d := geom.Pt(l.length, 0)
		if u := l.dogleg; l.hasDogleg && u.Len() > 0 {
			d = u.Unit().Mul(l.length)
		}
		for _, v := range l.lines {
			if l.vertical {
				v = append(v, l.last)
			} else {
				if dogleg {
					v = append(v, l.last)
				}
				v = append(v, l.last.Add(d))
			}
			if len(v) < 2 {
				continue
			}
			if g.V == nil {
				g.V = v
			} else {
				g.More = append(g.More, v)
			}
		}
	}
	if len(g.V) < 2 {
		return nil, "degenerate (no leader line of two points)", nil
	}
	if hasText && text != nil {
		text.Text = decodeMTextValue(content)
		text.Height = charHeight
		text.Width = math.Max(0, text.Width*scale)
		text.Spacing = spacing
		if !(text.Spacing > 0) {
			text.Spacing = 1
		}
		if text.Attach == 0 {
			text.Attach = 1
		}
		if textDir.Len() > 0 {
			text.Rotation = geom.NormDeg(geom.Deg(math.Atan2(textDir.Y, textDir.X)))
		}
		if strings.TrimSpace(text.Text) != "" && text.Height > 0 {
			g.Text = text
		}
	}
	return g, "", nil
}

// mleaderByBlock is the raw colour "by block" of a MULTILEADER's parts.
const mleaderByBlock = -1056964608

// mleaderOverrides are a MULTILEADER's property override flags (90): every
// property is the entity's own, not its style's.
const mleaderOverrides = 1<<23 - 1

// multileader writes a MULTILEADER (2018): each line a leader of its own
// with one line, attached at the top or bottom (so drawn to its last
// vertex, no dogleg), its text as its mtext content; its style the one
// MLEADERSTYLE the writer writes (see mleaderStyleObject). R12 gets its
// lines as polylines and its text as TEXT.
func (w *dxfWriter) multileader(e *drawing.Entity, g drawing.Leader) {
	if !w.v2018 {
		for i, v := range g.Lines() {
			c := *e
			if i > 0 {
				c.Handle = w.handle()
			}
			pv := make([]geom.Vertex, len(v))
			for j, p := range v {
				pv[j] = geom.Vertex{P: p}
			}
			w.polyline(&c, pv, nil, false)
		}
		if g.Text != nil {
			for _, t := range g.Text.Picture().Texts {
				w.text(w.handle(), e, t)
			}
		}
		return
	}
	if w.mleaderStyle == 0 {
		w.mleaderStyle = w.handle()
	}
	w.common("MULTILEADER", e.Handle, e)
	w.sub("AcDbMLeader")
	w.int(270, 2)
	w.pair(300, "CONTEXT_DATA{")
	w.float(40, 1)
	base := g.V[len(g.V)-1]
	w.Point(10, base)
	height := 2.5
	if g.Text != nil {
		height = g.Text.Height
	}
	w.float(41, height)
	w.float(140, g.Size)
	w.float(145, 0)
	w.int(174, 1)
	w.int(175, 1)
	w.int(176, 0)
	w.int(177, 0)
	if t := g.Text; t != nil {
		w.int(290, 1)
		w.pair(304, mtextValue(t.Text))
		w.float(11, 0)
		w.float(21, 0)
		w.float(31, 1)
		w.Point(12, t.P)
		s, c := geom.SinCosDeg(t.Rotation)
		w.Point(13, geom.Pt(c, s))
		w.float(42, 0)
		w.float(43, t.Width)
		w.float(44, 0)
		w.float(45, t.Spacing)
		w.int(170, 1)
		w.int(90, mleaderByBlock)
		w.int(171, int((max(t.Attach, 1)-1)%3+1))
		w.int(172, 1)
		w.int(91, mleaderByBlock)
		w.float(141, 1.5)
		w.int(92, 0)
		w.int(291, 0)
		w.int(292, 0)
		w.int(173, 0)
		w.int(293, 0)
		w.float(142, 0)
		w.float(143, 0)
		w.int(294, 0)
		w.int(295, 0)
	} else {
		w.int(290, 0)
	}
	w.int(296, 0)
	w.Point(110, geom.Vec{})
	w.Point(111, geom.Pt(1, 0))
	w.Point(112, geom.Pt(0, 1))
	w.int(297, 0)
	for i, v := range g.Lines() {
		w.pair(302, "LEADER{")
		w.int(290, 1)
		w.int(291, 1)
		w.Point(10, v[len(v)-1])
		w.Point(11, geom.Pt(1, 0))
		w.int(90, i)
		w.float(40, 0)
		w.pair(304, "LEADER_LINE{")
		for _, p := range v[:len(v)-1] {
			w.Point(10, p)
		}
		w.int(91, 0)
		w.int(92, mleaderByBlock)
		w.pair(305, "}")
		w.int(271, 1)
		w.pair(303, "}")
	}
	w.int(272, 9)
	w.int(273, 9)
	w.pair(301, "}")
	w.pairHandle(340, w.mleaderStyle)
	w.int(90, mleaderOverrides)
	w.int(170, boolInt(g.Curved)+1)
	w.int(91, mleaderByBlock)
	w.int(171, -2)
	w.int(290, 1)
	w.int(291, 0)
	w.float(41, 0)
	w.float(42, g.Size)
	content := 0
	if g.Text != nil {
		content = 2
	}
	w.int(172, content)
	w.int(173, 1)
	w.int(95, 1)
	w.int(174, 1)
	w.int(175, 2)
	w.int(92, mleaderByBlock)
	w.int(292, 0)
	w.int(93, mleaderByBlock)
	w.float(10, 1)
	w.float(20, 1)
	w.float(30, 1)
	w.float(43, 0)
	w.int(176, 0)
	w.int(293, 0)
	w.int(294, 0)
	w.int(178, 0)
	w.int(179, 1)
	w.float(45, 1)
	w.int(271, 1)
	w.int(272, 9)
	w.int(273, 9)
}

// mleaderStyleObject writes the MLEADERSTYLE "Standard" at h, in the
// dictionary owner, that the multileaders written refer to: closed
// filled arrows, straight lines, mtext content, as ezdxf's default.
func (w *dxfWriter) mleaderStyleObject(h, owner uint64) {
	w.pair(0, "MLEADERSTYLE")
	w.pairHandle(5, h)
	w.pairHandle(330, owner)
	w.pair(100, "AcDbMLeaderStyle")
	w.int(179, 2)
	w.int(170, 2)
	w.int(171, 1)
	w.int(172, 0)
	w.int(90, 2)
	w.float(40, 0)
	w.float(41, 0)
	w.int(173, 1)
	w.int(91, mleaderByBlock)
	w.int(92, -2)
	w.int(290, 1)
	w.float(42, 2)
	w.int(291, 1)
	w.float(43, 8)
	w.pair(3, "Standard")
	w.float(44, 4)
	w.pair(300, "")
	w.int(174, 1)
	w.int(178, 1)
	w.int(175, 1)
	w.int(176, 0)
	w.int(93, mleaderByBlock)
	w.float(45, 4)
	w.int(292, 0)
	w.int(297, 0)
	w.float(46, 4)
	w.int(94, mleaderByBlock)
	w.float(47, 1)
	w.float(49, 1)
	w.float(140, 1)
	w.int(294, 1)
	w.float(141, 0)
	w.int(177, 0)
	w.float(142, 1)
	w.int(295, 0)
	w.int(296, 0)
	w.float(143, 3.75)
	w.int(271, 0)
	w.int(272, 9)
	w.int(273, 9)
}

package dxf

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// ordinatePicture is what an ordinate DIMENSION (a preserved one) draws
// when its file has no block for it, as AutoCAD regenerates it from its
// definition points and ezdxf's renderer (render/dim_ordinate.py) draws
// it: the leader from the feature (13/23), DIMEXO off it, along the
// leader's direction (x-type, bit 64 of 70: across the measured x axis;
// else across y), a jog two arrowheads long to the leader's end (14/24),
// and the text beyond it, turned along the leader (x-type) or level,
// above the leader when the style sets text above (as the engine's own
// dimensions do: DIMTAD 1), which the leader then runs under. The text is
// its override (1) or the distance from the origin (10/20) along the
// measured axis. Sizes are the style's (DIMTXT, DIMASZ, times DIMSCALE;
// DIMEXO and DIMGAP the document's default style's, in proportion to
// the text), its text in the plain Standard style (neither DIMTXSTY nor
// a width factor is read: what the picture draws must not depend on a
// text style the engine's export does not keep), its length ezdxf's
// estimate (a character as wide as the text is tall). nil when the
// points cannot be read.
func (f *File) ordinatePicture(r dxfRecord, style string) *drawing.Picture {
	v, err := r.values(10, 20, 13, 23, 14, 24, 51, 70)
	if err != nil {
		return nil
	}
	origin, feature, end := geom.Pt(v[10], v[20]), geom.Pt(v[13], v[23]), geom.Pt(v[14], v[24])
	if !origin.Finite() || !feature.Finite() || !end.Finite() || !geom.IsFinite(v[51]) {
		return nil
	}
	def := drawing.DefaultDimStyle(f.Units)
	h := f.dimSize(r, style, def.TextHeight, dimText)
	if !(h > 0) {
		return nil
	}
	arrow := f.dimSize(r, style, def.ArrowSize, dimArrow)
	k := h / def.TextHeight
	exo, gap := def.ExtOffset*k, def.TextGap*k

	turn := -v[51] // 51 is clockwise
	s, c := geom.SinCosDeg(turn)
	xAxis := geom.Pt(c, s)
	yAxis := xAxis.Perp()
	xType := int(v[70])&64 != 0
	along := yAxis // the leader's direction: across the measured axis
	measured := xAxis
	if !xType {
		along, measured = xAxis, yAxis
	}
	leader := end.Sub(feature)
	if leader.Dot(along) < 0 {
		along = along.Mul(-1)
	}

	text := ""
	for _, p := range r.pairs {
		if p.code == 1 {
			text = decodeDXFText(p.value)
		}
	}
	value := math.Abs(feature.Sub(origin).Dot(measured))
	number := strconv.FormatFloat(value, 'f', def.Decimals, 64)
	if strings.Contains(number, ".") {
		number = strings.TrimRight(strings.TrimRight(number, "0"), ".")
	}
	switch {
	case text == "" || text == "<>":
		text = number
	case text == " ":
		text = ""
	default:
		text = strings.ReplaceAll(text, "<>", number)
	}
	width := float64(utf8.RuneCountInString(text)) * h // ezdxf's estimate, at width factor 1

	leg := 2 * arrow
	d0 := math.Max(leg, math.Abs(leader.Dot(along))-2*leg)
	start0, end0 := feature.Add(along.Mul(exo)), feature.Add(along.Mul(d0))
	start1, end1 := end.Sub(along.Mul(leg)), end
	if text != "" {
		end1 = end.Add(along.Mul(width))
	}
	p := &drawing.Picture{Strokes: []any{
		geom.Segment{A: start0, B: end0}, geom.Segment{A: end0, B: start1}, geom.Segment{A: start1, B: end1},
	}}
	if text != "" {
		up := yAxis // the text's up: across the leader, to its left as it reads
		rot := turn
		if xType {
			up, rot = xAxis.Mul(-1), turn+90
		}
		at := end.Add(along.Mul(width / 2)).Add(up.Mul(h/2 + gap))
		p.Texts = []drawing.Text{{
			Text: text, P: at, Height: h, Rotation: geom.NormDeg(rot),
			Align: drawing.Align{H: drawing.AlignCenter, V: drawing.AlignMiddle},
		}}
	}
	return p
}

// dimStyleName is the dimension style a DIMENSION names (3), "Standard"
// when it names none.
func (r dxfRecord) dimStyleName() string {
	for _, p := range r.pairs {
		if p.code == 3 && strings.TrimSpace(p.value) != "" {
			return strings.TrimSpace(p.value)
		}
	}
	return "Standard"
}

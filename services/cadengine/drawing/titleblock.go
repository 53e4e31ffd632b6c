package drawing

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// A sheet's border and title block (DESIGN §12), drawn as ISO 5457 and
// ISO 7200 say, as one block in paper millimetres inserted at the
// paper's origin: the drawing frame 20 mm from the left edge (the filing
// margin) and 10 mm from the others, a centring mark at the middle of
// each side, a grid reference in the margin, and in the frame's lower-right corner a title block 180 mm
// wide and 36 mm tall whose fields are the block's attributes, so an
// insert's values are edited as any other's.

// Layers of a title block: its insert, with the inner lines and texts
// (0.25 mm), and the frame, title block outline and centring marks
// (0.7 mm, ISO 5457's least).
const (
	TitleblockLayer       = "TITLEBLOCK"
	TitleblockBorderLayer = "TITLEBLOCK_BORDER"
)

// TitleblockPrefix begins the name of every title block's block.
const TitleblockPrefix = "TITLEBLOCK_"

// Sizes of the ISO title block, in millimetres.
const (
	titleblockWidth  = 180
	titleblockHeight = 36
	filingMargin     = 20 // the frame's left margin
	frameMargin      = 10 // its other margins
	centringOverrun  = 5  // how far a centring mark runs into the frame
	labelHeight      = 1.8
	gridTextHeight   = 3.5
)

// gridLetters name the grid's rows, from the top: ISO 5457 leaves out I
// and O.
const gridLetters = "ABCDEFGHJKLMNPQRSTUVWXYZ"

// gridCuts are the ends of a frame side from lo to hi and the cuts
// between its grid fields: the sheet's side (side mm long) divided into
// the even number of equal fields nearest 50 mm long (ISO 5457's A0 24 ×
// 16 … A4 6 × 4) from the centring mark at its middle, the fields that
// reach into the margins cut at the frame.
func gridCuts(lo, hi, side float64) []float64 {
	n := max(2, 2*int(math.Round(side/100)))
	f := side / float64(n)
	out := []float64{lo}
	for k := 1; k < n; k++ {
		if x := float64(k) * f; x > lo && x < hi {
			out = append(out, x)
		}
	}
	return append(out, hi)
}

// TitleblockField is a field of the title block: its name (an
// attribute's tag, upper-cased), the label printed in its box, and the
// box, from the title block's lower-left corner, with the height of the
// value's text.
type TitleblockField struct {
	Name   string
	Label  string
	box    [4]float64 // x0, y0, x1, y1
	height float64
}

// TitleblockFields are the ISO 7200 title block's fields, top row
// first. The title, the drawing (identification) number and the owner
// are set 5 mm tall, the others 3.5 mm; the labels 1.8 mm.
var TitleblockFields = []TitleblockField{
	{"drawn_by", "Drawn by", [4]float64{0, 28, 50, 36}, 3.5},
	{"approved_by", "Approved by", [4]float64{50, 28, 90, 36}, 3.5},
	{"document_type", "Document type", [4]float64{90, 28, 180, 36}, 3.5},
	{"date", "Date of issue", [4]float64{0, 20, 50, 28}, 3.5},
	{"scale", "Scale", [4]float64{50, 20, 90, 28}, 3.5},
	{"material", "Material", [4]float64{90, 20, 180, 28}, 3.5},
	{"owner", "Legal owner", [4]float64{0, 0, 90, 20}, 5},
	{"title", "Title", [4]float64{90, 10, 180, 20}, 5},
	{"drawing_number", "Drawing number", [4]float64{90, 0, 140, 10}, 5},
	{"revision", "Rev.", [4]float64{140, 0, 160, 10}, 3.5},
	{"sheet", "Sheet", [4]float64{160, 0, 180, 10}, 3.5},
}

// TitleblockFieldNames are the fields' names, in their order, for a
// message.
func TitleblockFieldNames() string {
	names := make([]string, len(TitleblockFields))
	for i, f := range TitleblockFields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// TitleblockName is the name of the ISO title block's block for a
// layout's paper: TITLEBLOCK_ISO_A3 (with _PORTRAIT when the sheet is
// taller than wide), or TITLEBLOCK_ISO_<width>X<height> for a paper
// given in millimetres.
func TitleblockName(l Layout) string {
	if l.Paper == "" {
		return fmt.Sprintf("%sISO_%sX%s", TitleblockPrefix, mm(l.Width), mm(l.Height))
	}
	name := TitleblockPrefix + "ISO_" + strings.ToUpper(l.Paper)
	if l.Height > l.Width {
		name += "_PORTRAIT"
	}
	return name
}

func mm(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// NewTitleblock is the ISO border and title block for a layout's paper,
// as a block whose base point is the paper's lower-left corner: insert
// it at the origin of the layout. Its fields are attribute definitions
// with empty defaults, tagged with their names upper-cased. A paper too
// small for the 180 mm title block inside the frame fails.
func NewTitleblock(l Layout) (*Block, error) {
	w, h := l.Width, l.Height
	fx0, fy0, fx1, fy1 := float64(filingMargin), float64(frameMargin), w-frameMargin, h-frameMargin
	if fx1-fx0 < titleblockWidth || fy1-fy0 < titleblockHeight {
		return nil, fmt.Errorf("a %s × %s mm sheet has no room for a %d × %d mm title block inside its frame", mm(w), mm(h), titleblockWidth, titleblockHeight)
	}
	var ents []*Entity
	add := func(layer string, g Geometry) {
		ents = append(ents, &Entity{Layer: layer, Color: 256, Linetype: "ByLayer", Geom: g})
	}
	rect := func(x0, y0, x1, y1 float64) Polyline {
		return NewPolyline([]geom.Vertex{{P: geom.Pt(x0, y0)}, {P: geom.Pt(x1, y0)}, {P: geom.Pt(x1, y1)}, {P: geom.Pt(x0, y1)}}, true)
	}
	line := func(layer string, x0, y0, x1, y1 float64) {
		add(layer, Line{A: geom.Pt(x0, y0), B: geom.Pt(x1, y1)})
	}
	// The frame, and the centring marks from the sheet's edge to 5 mm
	// inside it; the lower one stops at the frame when the title block
	// lies over it (on an A4 upright).
	add(TitleblockBorderLayer, rect(fx0, fy0, fx1, fy1))
	tx, ty := fx1-titleblockWidth, fy0 // the title block's lower-left corner
	bottom := fy0 + centringOverrun
	if w/2 >= tx {
		bottom = fy0
	}
	line(TitleblockBorderLayer, w/2, 0, w/2, bottom)
	line(TitleblockBorderLayer, w/2, h, w/2, fy1-centringOverrun)
	line(TitleblockBorderLayer, 0, h/2, fx0+centringOverrun, h/2)
	line(TitleblockBorderLayer, w, h/2, fx1-centringOverrun, h/2)

	// The grid reference: the sheet's sides in fields about 50 mm long
	// from the centring marks (A3: 8 × 6), ticks 5 mm into the margin
	// between them, numbered from the left along the top and the bottom,
	// lettered from the top along the sides (I and O left out), 3.5 mm
	// tall, thin (on layer 0).
	label := func(s string, x, y float64) {
		add("0", Text{Text: s, P: geom.Pt(x, y), Height: gridTextHeight, Align: Align{H: AlignCenter, V: AlignMiddle}})
	}
	xs := gridCuts(fx0, fx1, w)
	for i := range len(xs) - 1 {
		if i > 0 {
			line("0", xs[i], fy0, xs[i], fy0-centringOverrun)
			line("0", xs[i], fy1, xs[i], fy1+centringOverrun)
		}
		n, mid := strconv.Itoa(i+1), (xs[i]+xs[i+1])/2
		label(n, mid, fy0-frameMargin/2)
		label(n, mid, fy1+frameMargin/2)
	}
	ys := gridCuts(fy0, fy1, h)
	for j := range len(ys) - 1 {
		k := len(ys) - 2 - j // from the top
		if j > 0 {
			line("0", fx0, ys[j], fx0-centringOverrun, ys[j])
			line("0", fx1, ys[j], fx1+centringOverrun, ys[j])
		}
		letter, mid := string(gridLetters[k%len(gridLetters)]), (ys[j]+ys[j+1])/2
		label(letter, fx0-frameMargin/2, mid)
		label(letter, fx1+frameMargin/2, mid)
	}

	// The title block: its outline heavy, the lines between its boxes
	// thin (on layer 0, so the insert's layer).
	add(TitleblockBorderLayer, rect(tx, ty, tx+titleblockWidth, ty+titleblockHeight))
	for _, s := range [][4]float64{
		{0, 28, 180, 28}, {0, 20, 180, 20}, {90, 10, 180, 10}, // across
		{50, 20, 50, 36}, {90, 0, 90, 36}, {140, 0, 140, 10}, {160, 0, 160, 10}, // up
	} {
		line("0", tx+s[0], ty+s[1], tx+s[2], ty+s[3])
	}
	for _, f := range TitleblockFields {
		x0, y0, y1 := tx+f.box[0]+1.5, ty+f.box[1], ty+f.box[3]
		add("0", Text{Text: f.Label, P: geom.Pt(x0, y1-2.5), Height: labelHeight})
		tag := strings.ToUpper(f.Name)
		ents = append(ents, &Entity{Layer: "0", Color: 256, Linetype: "ByLayer",
			Geom: Attdef{Tag: tag, Prompt: f.Label, Text: Text{P: geom.Pt(x0, y0+(f.height-1.5)/2), Height: f.height}}})
	}
	return NewBlock(TitleblockName(l), geom.Vec{}, ents), nil
}

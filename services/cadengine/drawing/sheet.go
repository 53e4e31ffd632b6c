package drawing

import (
	"math"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Sheet is how a drawing is plotted: the paper's size in millimetres and
// the map from world coordinates to paper millimetres (x right, y up from
// the paper's lower-left corner): paper = (world − Origin) × Factor +
// Offset. The SVG, PNG and PDF exports all plot through it, so they
// agree.
type Sheet struct {
	Width, Height float64 // paper, mm
	Factor        float64 // paper mm per document unit
	Origin        geom.Vec
	Offset        geom.Vec
	Fixed         bool // a sheet or a scale was asked for (else the drawing's own size)
}

// sheetMargin is the margin, in paper millimetres, around a drawing fitted
// to a sheet or drawn at a scale without one.
const sheetMargin = 10

// PaperMM is the size of a paper, landscape, in millimetres; false for
// none.
func PaperMM(p enginev1.PaperSize) (w, h float64, ok bool) {
	name := strings.TrimPrefix(p.String(), "PAPER_SIZE_")
	switch p {
	case enginev1.PaperSize_PAPER_SIZE_LETTER:
		name = "ANSI_A"
	case enginev1.PaperSize_PAPER_SIZE_TABLOID:
		name = "ANSI_B"
	}
	s, ok := PaperNamed(name)
	return s.Width, s.Height, ok
}

// UnitMM is the length of a document unit in millimetres.
func UnitMM(u enginev1.Units) float64 {
	switch u {
	case enginev1.Units_UNITS_CM:
		return 10
	case enginev1.Units_UNITS_M:
		return 1000
	case enginev1.Units_UNITS_IN:
		return 25.4
	case enginev1.Units_UNITS_FT:
		return 304.8
	}
	return 1
}

// NewSheet lays out a drawing of extents ext in units u:
//   - on a paper, landscape unless the drawing is taller than wide, centred,
//     at 1:scale (paper mm to document mm) when scale > 0, else fitted
//     inside a 10 mm margin;
//   - without a paper, at 1:scale with a 10 mm margin;
//   - with neither, at the drawing's own size (one document unit per its
//     length in mm) with a margin of 2% of its larger side, as the SVG
//     export has always drawn it (Fixed false).
func NewSheet(ext geom.Box, u enginev1.Units, paper enginev1.PaperSize, scale float64) Sheet {
	if !ext.NonEmpty {
		ext = geom.Box{Min: geom.Pt(0, 0), Max: geom.Pt(100, 100), NonEmpty: true}
	}
	dw, dh := ext.Max.X-ext.Min.X, ext.Max.Y-ext.Min.Y
	mm := UnitMM(u)
	pw, ph, hasPaper := PaperMM(paper)
	if hasPaper && dh > dw {
		pw, ph = ph, pw
	}
	s := Sheet{Origin: ext.Min, Fixed: hasPaper || scale > 0}
	switch {
	case hasPaper:
		s.Width, s.Height = pw, ph
		if scale > 0 {
			s.Factor = mm / scale
		} else {
			s.Factor = math.Min((pw-2*sheetMargin)/math.Max(dw, 1e-12), (ph-2*sheetMargin)/math.Max(dh, 1e-12))
		}
		s.Offset = geom.Pt((pw-dw*s.Factor)/2, (ph-dh*s.Factor)/2)
	case scale > 0:
		s.Factor = mm / scale
		s.Width, s.Height = dw*s.Factor+2*sheetMargin, dh*s.Factor+2*sheetMargin
		s.Offset = geom.Pt(sheetMargin, sheetMargin)
	default:
		margin := math.Max(math.Max(dw, dh)*0.02, 1e-6*math.Max(1, ext.Max.Mag()))
		if dw == 0 && dh == 0 {
			margin = 1
		}
		s.Factor = mm
		s.Width, s.Height = (dw+2*margin)*mm, (dh+2*margin)*mm
		s.Offset = geom.Pt(margin*mm, margin*mm)
	}
	return s
}

// Paper maps a world point to paper millimetres.
func (s Sheet) Paper(p geom.Vec) geom.Vec {
	return p.Sub(s.Origin).Mul(s.Factor).Add(s.Offset)
}

// World maps a paper point (mm) back to the world.
func (s Sheet) World(p geom.Vec) geom.Vec {
	return p.Sub(s.Offset).Mul(1 / s.Factor).Add(s.Origin)
}

// ViewportSheet is how a viewport plots model space on its layout's
// paper: paper = (world − View) × scale + the frame's centre, the paper
// being the layout's (Width and Height are the frame's). Its scale is
// the viewport's, paper millimetres per model unit (see
// [Viewport.Scale]).
func ViewportSheet(v Viewport) Sheet {
	return Sheet{Width: v.W, Height: v.H, Factor: v.Scale(), Origin: v.View, Offset: v.C, Fixed: true}
}

// Xform is the sheet's map from world to paper as a transform, which
// carries whole entities onto the paper (see [Geometry.Transformed]).
func (s Sheet) Xform() geom.Xform {
	return geom.Translate(s.Origin.Mul(-1)).Then(geom.ScaleAbout(geom.Vec{}, s.Factor)).Then(geom.Translate(s.Offset))
}

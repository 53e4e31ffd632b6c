package drawing

import "strings"

// Template is a named set of layers as a drafting standard lays them out:
// each layer's colour, linetype and lineweight (in hundredths of a
// millimetre). The sources of each are in docs/decisions.md ("Standards").
type Template struct {
	Name        string
	Description string
	Layers      []Layer // On, not frozen, not locked
}

// Templates are the layer templates, by name.
var Templates = []Template{
	{
		Name:        "architectural",
		Description: "US National CAD Standard / AIA CAD Layer Guidelines: discipline A, major and minor groups",
		Layers: templateLayers([]templateLayer{
			{"A-WALL", 7, "Continuous", 50},      // walls, cut
			{"A-WALL-PATT", 8, "Continuous", 13}, // wall hatching
			{"A-DOOR", 2, "Continuous", 35},
			{"A-GLAZ", 4, "Continuous", 25}, // windows, glazing
			{"A-COLS", 7, "Continuous", 50}, // columns
			{"A-STRS", 3, "Continuous", 25}, // stairs
			{"A-FLOR", 3, "Continuous", 25}, // floor fixtures and edges
			{"A-CLNG", 5, "HIDDEN", 18},     // ceiling above the cut
			{"A-ROOF", 6, "DASHED", 25},     // roof outline above
			{"A-FURN", 8, "Continuous", 18},
			{"A-EQPM", 8, "Continuous", 18},
			{"A-GRID", 1, "CENTER", 18}, // column grid
			{"A-ANNO-DIMS", 1, "Continuous", 18},
			{"A-ANNO-TEXT", 7, "Continuous", 25},
			{"A-ANNO-SYMB", 7, "Continuous", 25}, // section marks, north arrow
		}),
	},
	{
		Name:        "electrical",
		Description: "US National CAD Standard: discipline E (power, lighting, communications, fire alarm, grounding)",
		Layers: templateLayers([]templateLayer{
			{"E-POWR", 1, "Continuous", 35}, // receptacles, panels
			{"E-POWR-WIRE", 1, "Continuous", 25},
			{"E-POWR-UNDR", 1, "HIDDEN", 25}, // wiring under floor or in slab
			{"E-LITE", 2, "Continuous", 35},  // luminaires, switches
			{"E-LITE-WIRE", 2, "Continuous", 25},
			{"E-LITE-EMER", 6, "Continuous", 35}, // emergency lighting
			{"E-COMM", 4, "Continuous", 25},      // telephone, data
			{"E-FIRE", 30, "Continuous", 25},     // fire alarm
			{"E-GRND", 3, "PHANTOM", 25},         // grounding
			{"E-ANNO-DIMS", 8, "Continuous", 18},
			{"E-ANNO-TEXT", 7, "Continuous", 25},
		}),
	},
	{
		Name:        "iso",
		Description: "ISO 128 line types and widths (line group 0.5: wide 0.5 mm, narrow 0.25 mm), ISO 3098 lettering",
		Layers: templateLayers([]templateLayer{
			{"OUTLINE", 7, "Continuous", 50},    // 01.2 continuous wide: visible edges
			{"HIDDEN", 2, "HIDDEN", 35},         // 02.1 dashed: hidden edges
			{"CENTER", 1, "CENTER", 25},         // 04.1 long-dashed dotted narrow: centre lines
			{"PHANTOM", 6, "PHANTOM", 25},       // 05.1 long-dashed double-dotted narrow: adjacent parts, extreme positions
			{"CUTTING", 1, "CENTER", 50},        // 04.2 long-dashed dotted wide: cutting planes
			{"DIMENSIONS", 3, "Continuous", 25}, // 01.1 continuous narrow
			{"HATCH", 8, "Continuous", 25},      // 01.1 continuous narrow: hatching
			{"TEXT", 7, "Continuous", 35},       // ISO 3098: 3.5 mm lettering, line 0.35 mm
			{"CONSTRUCTION", 9, "Continuous", 13},
		}),
	},
	{
		Name:        "mechanical",
		Description: "ASME Y14.2 line conventions (thick 0.6 mm, thin 0.3 mm)",
		Layers: templateLayers([]templateLayer{
			{"M-VISIBLE", 7, "Continuous", 60},
			{"M-HIDDEN", 2, "HIDDEN", 30},
			{"M-CENTER", 1, "CENTER", 30},
			{"M-PHANTOM", 6, "PHANTOM", 30},
			{"M-SECTION", 1, "PHANTOM", 60},  // cutting-plane lines
			{"M-HATCH", 8, "Continuous", 30}, // section lining
			{"M-DIM", 3, "Continuous", 30},   // dimension, extension and leader lines
			{"M-TEXT", 7, "Continuous", 30},
			{"M-BREAK", 7, "Continuous", 30}, // long break lines
			{"M-CONST", 9, "Continuous", 13},
		}),
	},
	{
		Name:        "piping",
		Description: "US National CAD Standard: discipline P (plumbing and piping), pipes wide and the rest narrow",
		Layers: templateLayers([]templateLayer{
			{"P-PIPE", 7, "Continuous", 50}, // piping, visible
			{"P-PIPE-HIDN", 2, "HIDDEN", 35},
			{"P-PIPE-CNTR", 1, "CENTER", 18}, // pipe centre lines (single-line piping)
			{"P-DOMW", 5, "Continuous", 35},  // domestic water
			{"P-SANR", 30, "Continuous", 35}, // sanitary drainage
			{"P-STRM", 4, "Continuous", 35},  // storm drainage
			{"P-VALV", 3, "Continuous", 35},  // valves and fittings
			{"P-EQPM", 6, "Continuous", 35},  // pumps, tanks
			{"P-FIXT", 8, "Continuous", 25},  // fixtures
			{"P-INSL", 8, "DASHED2", 18},     // insulation
			{"P-FUTR", 8, "PHANTOM", 25},     // future work
			{"P-ANNO-DIMS", 8, "Continuous", 18},
			{"P-ANNO-TEXT", 7, "Continuous", 25},
		}),
	},
}

type templateLayer struct {
	name       string
	color      int32
	linetype   string
	lineweight int32
}

func templateLayers(ls []templateLayer) []Layer {
	out := make([]Layer, len(ls))
	for i, l := range ls {
		out[i] = Layer{Name: l.name, Color: l.color, Linetype: l.linetype, Lineweight: l.lineweight, On: true}
	}
	return out
}

// TemplateNamed is the template named name, ignoring case.
func TemplateNamed(name string) (Template, bool) {
	for _, t := range Templates {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return Template{}, false
}

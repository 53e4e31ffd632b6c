package dxf

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// rasterScript writes images and wipeouts with ezdxf — an image turned
// 30° with its whole raster shown, one clipped to a triangle of its
// pixels, a wipeout of a quadrilateral — with wipeout frames on, and
// prints each entity's boundary as ezdxf places it (boundary_path_wcs),
// then each one's extents (ezdxf.bbox).
const rasterScript = `
import sys, json, ezdxf, ezdxf.bbox
doc = ezdxf.new("R2018")
msp = doc.modelspace()
d = doc.add_image_def(filename="C:\\pics\\site plan.png", size_in_pixel=(640, 360))
msp.add_image(d, insert=(10, 5), size_in_units=(6.4, 3.6), rotation=30)
im = msp.add_image(d, insert=(0, 20), size_in_units=(12.8, 7.2))
im.set_boundary_path([(0, 0), (640, 0), (320, 360)])
msp.add_wipeout([(0, 0), (10, 0), (12, 6), (2, 8)])
doc.set_wipeout_variables(frame=1)
path = sys.argv[1] + "/rasters.dxf"
doc.saveas(path)
print(path)
print(json.dumps([[[v.x, v.y] for v in e.boundary_path_wcs()] for e in msp]))
boxes = [ezdxf.bbox.extents([e]) for e in msp]
print(json.dumps([[b.extmin.x, b.extmin.y, b.extmax.x, b.extmax.y] for b in boxes]))
`

// boundaryScript prints the boundary ezdxf places of each image and
// wipeout of a file's model space.
const boundaryScript = `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
print(json.dumps([[[v.x, v.y] for v in e.boundary_path_wcs()] for e in doc.modelspace()]))
`

// TestRastersAsEzdxf reads images and wipeouts ezdxf wrote: each is
// native, with the boundary ezdxf places (a rectangle of the whole
// raster, turned; a polygon of pixels) and ezdxf's extents, the image
// its file's name, the wipeout the file's frame setting. The engine's
// 2018 DXF of them opens in ezdxf with a clean audit, with the same
// boundaries, and reads back as the same entities; its R12 DXF, which
// has neither type, has their outlines as polylines.
func TestRastersAsEzdxf(t *testing.T) {
	out := ezdxftest.Run(t, rasterScript, t.TempDir())
	if out == "" {
		return
	}
	path, data, _ := strings.Cut(strings.TrimSpace(out), "\n")
	data, boxData, _ := strings.Cut(data, "\n")
	want := boundaries(t, data)
	var boxes [][4]float64
	if err := json.Unmarshal([]byte(boxData), &boxes); err != nil {
		t.Fatalf("ezdxf said %q: %v", boxData, err)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, f, err := importFile(string(content))
	if err != nil {
		t.Fatal(err)
	}
	rep := f.Report()
	if rep.Entities["IMAGE"].GetImported() != 2 || rep.Entities["WIPEOUT"].GetImported() != 1 {
		t.Fatalf("report %v, want 2 images and a wipeout native", rep.Entities)
	}
	ents := d.Entities()
	sameBoundaries(t, "the file ezdxf wrote", ents, want)
	for i, e := range ents {
		b, w := e.Geom.Bounds(), boxes[i]
		if b.Min.Dist(geom.Pt(w[0], w[1])) > 1e-9 || b.Max.Dist(geom.Pt(w[2], w[3])) > 1e-9 {
			t.Errorf("entity %d's extents = %v, ezdxf.bbox's %v", i, b, w)
		}
	}
	for _, e := range ents[:2] {
		if g := e.Geom.(drawing.Image); g.File != `C:\pics\site plan.png` {
			t.Errorf("image file = %q, want ezdxf's IMAGEDEF's", g.File)
		}
	}
	if g := ents[2].Geom.(drawing.Wipeout); !g.Frame {
		t.Errorf("wipeout frame = false, want the file's WIPEOUTVARIABLES' 1")
	}

	export := Write2018(d)
	if got := ezdxftest.Audit(t, export); got != nil && (got["IMAGE"] != 2 || got["WIPEOUT"] != 1) {
		t.Errorf("ezdxf reads %v in the 2018 export, want 2 images and a wipeout", got)
	}
	sameBoundaries(t, "ezdxf's reading of the export", ents, boundaries(t, ezdxftest.Run(t, boundaryScript, ezdxftest.File(t, "export.dxf", export))))
	back, err := importText(export)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range back.Entities() {
		if e.Fingerprint() != ents[i].Fingerprint() {
			t.Errorf("entity %d after a round trip = %+v, want %+v", i, e.Geom, ents[i].Geom)
		}
	}
	if got := ezdxftest.Audit(t, Write(d)); got != nil && got["POLYLINE"] != 3 {
		t.Errorf("ezdxf reads %v in the R12 export, want the 3 outlines as polylines", got)
	}
}

// boundaries reads boundaries as the scripts print them.
func boundaries(t *testing.T, data string) [][][2]float64 {
	t.Helper()
	var out [][][2]float64
	if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &out); err != nil {
		t.Fatalf("ezdxf said %q: %v", data, err)
	}
	return out
}

// sameBoundaries holds each entity's boundary to ezdxf's (which repeats
// its first point at the end).
func sameBoundaries(t *testing.T, what string, ents []*drawing.Entity, want [][][2]float64) {
	t.Helper()
	if len(want) != len(ents) {
		t.Fatalf("%s: %d boundaries, want one for each of %d entities", what, len(want), len(ents))
	}
	for i, e := range ents {
		var got []geom.Vec
		switch g := e.Geom.(type) {
		case drawing.Image:
			got = g.Boundary()
		case drawing.Wipeout:
			got = g.Boundary()
		default:
			t.Fatalf("%s: entity %d is a %s, want an image or a wipeout", what, i, g.Kind().WireName())
		}
		w := want[i][:len(want[i])-1]
		ok := len(got) == len(w)
		for j := 0; ok && j < len(w); j++ {
			ok = got[j].Dist(geom.Pt(w[j][0], w[j][1])) <= 1e-9
		}
		if !ok {
			t.Errorf("%s: entity %d's boundary = %v, ezdxf's %v", what, i, got, w)
		}
	}
}

// TestRasterOutOfPlan: a wipeout whose pixels leave the plan (its u
// vector has a z) is preserved, with the reason, and bounded by its
// boundary's plan as a native one would be.
func TestRasterOutOfPlan(t *testing.T) {
	content := "0\nSECTION\n2\nENTITIES\n0\nWIPEOUT\n8\n0\n100\nAcDbWipeout\n10\n0\n20\n0\n30\n0\n11\n10\n21\n0\n31\n1\n12\n0\n22\n8\n32\n0\n13\n1\n23\n1\n" +
		"91\n4\n14\n-0.5\n24\n0.5\n14\n0.5\n24\n0.5\n14\n0\n24\n-0.5\n14\n-0.5\n24\n0.5\n0\nENDSEC\n0\nEOF\n"
	d, f, err := importFile(content)
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Report().Entities["WIPEOUT"]; c.GetPreserved() != 1 {
		t.Fatalf("report %v, want the wipeout preserved", f.Report())
	}
	e := d.Entities()[0]
	if _, ok := e.Geom.(drawing.Foreign); !ok {
		t.Fatalf("entity = %T, want a preserved one", e.Geom)
	}
	if b := e.Geom.Bounds(); b.Min != geom.Pt(0, 0) || b.Max != geom.Pt(10, 8) {
		t.Errorf("bounds = %v, want the triangle's plan (0, 0)–(10, 8)", b)
	}
}

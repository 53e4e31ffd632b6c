package dxf

import "github.com/cadbridge/cadbridge/services/cadengine/drawing"

// WIPEOUT, read into a native drawing.Wipeout (its boundary placed as an
// image's is) and written back as one, with WIPEOUTVARIABLES (in the root
// dictionary as ACAD_WIPEOUT_VARS) saying whether frames show. That
// setting is the file's, in its OBJECTS section after the entities:
// every wipeout takes it (see File.resolveObjects). R12 has no WIPEOUT,
// and nothing that fills with the page's colour: its writer draws the
// boundary as a closed polyline.

// wipeout reads a WIPEOUT (see raster).
func (r dxfRecord) wipeout() (drawing.Geometry, string, error) {
	g, why, err := r.raster()
	if err != nil || why != "" {
		return nil, why, err
	}
	return drawing.Wipeout{Raster: g}, "", nil
}

// wipeout writes a WIPEOUT (it has no IMAGEDEF or reactor: 0 for both),
// or, in R12, its boundary.
func (w *dxfWriter) wipeout(e *drawing.Entity, g drawing.Wipeout) {
	if !w.v2018 {
		w.polyline(e, vertices(g.Boundary()), nil, true)
		return
	}
	w.wipeouts = true
	w.wipeoutFrame = w.wipeoutFrame || g.Frame
	w.common("WIPEOUT", e.Handle, e)
	w.sub("AcDbWipeout")
	w.raster(g.Raster, 0, 0)
}

// wipeoutVariables writes the WIPEOUTVARIABLES object (handle h): frames
// shown when a wipeout written says so.
func (w *dxfWriter) wipeoutVariables(h uint64) {
	w.pair(0, "WIPEOUTVARIABLES")
	w.pairHandle(5, h)
	w.pairHandle(330, hRootDict)
	w.pair(100, "AcDbWipeoutVariables")
	frame := 0
	if w.wipeoutFrame {
		frame = 1
	}
	w.int(70, frame)
}

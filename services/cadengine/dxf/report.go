package dxf

import (
	"fmt"
	"sort"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// The import report (DESIGN §10): what became of every entity of the
// file's model space and paper space — native, preserved or dropped —
// what was dropped from blocks and why, and what the reader repaired or
// passed over, by line. Nothing leaves the file without a word here.

// report is the import report as it is gathered.
type report struct {
	counts  map[string]*enginev1.ImportCounts
	dropped []*enginev1.DroppedEntities // in the order first met
	drops   map[[2]string]*enginev1.DroppedEntities
	// preserved counts the entities of a type the engine models that were
	// preserved instead, by type and reason, for one warning each.
	preserved map[[2]string]*preservedWhy
	warnings  []*enginev1.ImportWarning
}

// preservedWhy is the first line and the number of entities of a native
// type preserved for one reason.
type preservedWhy struct {
	line, n int
}

func newReport() *report {
	return &report{counts: map[string]*enginev1.ImportCounts{}, drops: map[[2]string]*enginev1.DroppedEntities{}, preserved: map[[2]string]*preservedWhy{}}
}

func (r *report) count(kind string) *enginev1.ImportCounts {
	c := r.counts[kind]
	if c == nil {
		c = &enginev1.ImportCounts{}
		r.counts[kind] = c
	}
	return c
}

// imported counts an entity of the drawing that became a native one.
func (r *report) imported(kind string) { r.count(kind).Imported++ }

// preserve counts an entity of the drawing preserved as foreign; why,
// when the engine models its type, says why this one is not native.
func (r *report) preserve(kind, why string, line int) {
	r.count(kind).Preserved++
	if why == "" {
		return
	}
	k := [2]string{kind, why}
	if p := r.preserved[k]; p != nil {
		p.n++
	} else {
		r.preserved[k] = &preservedWhy{line: line, n: 1}
	}
}

// drop counts an entity that is not kept, with the reason; top says it
// is one of the drawing's (model or paper space), which the counts by
// type hold, and not of a block's.
func (r *report) drop(kind, reason string, top bool) {
	if top {
		r.count(kind).Dropped++
	}
	k := [2]string{kind, reason}
	d := r.drops[k]
	if d == nil {
		d = &enginev1.DroppedEntities{Type: kind, Reason: reason}
		r.drops[k] = d
		r.dropped = append(r.dropped, d)
	}
	d.Count++
}

// warn records something the reader repaired or passed over.
func (r *report) warn(line int, format string, args ...any) {
	r.warnings = append(r.warnings, &enginev1.ImportWarning{Line: int64(line), Message: fmt.Sprintf(format, args...)})
}

// proto is the report as the wire has it, with the file's units, version,
// writer and code page, warnings in line order.
func (r *report) proto(f *File) *enginev1.ImportReport {
	out := &enginev1.ImportReport{Entities: r.counts, Dropped: r.dropped, Version: f.version, Writer: f.writer, Codepage: f.codepage}
	if f.Units != enginev1.Units_UNITS_UNSPECIFIED {
		out.Units = f.Units.Enum()
	}
	out.Warnings = append(out.Warnings, r.warnings...)
	keys := make([][2]string, 0, len(r.preserved))
	for k := range r.preserved {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r.preserved[keys[i]].line < r.preserved[keys[j]].line })
	for _, k := range keys {
		p := r.preserved[k]
		msg := fmt.Sprintf("%s preserved as a foreign entity (written back as read, drawn as its outline): %s", k[0], k[1])
		if p.n > 1 {
			msg = fmt.Sprintf("%d %s entities, from this one on, preserved as foreign entities (written back as read, drawn as their outlines): %s", p.n, k[0], k[1])
		}
		out.Warnings = append(out.Warnings, &enginev1.ImportWarning{Line: int64(p.line), Message: msg})
	}
	sort.SliceStable(out.Warnings, func(i, j int) bool { return out.Warnings[i].Line < out.Warnings[j].Line })
	return out
}

// Report is what became of the file's entities (once Build has run).
func (f *File) Report() *enginev1.ImportReport { return f.rep.proto(f) }

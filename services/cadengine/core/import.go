package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// ---- DXF import ----
//
// Importing makes a new document from a DXF file (read by readDXF, see
// dxf_read.go for what is read and what is skipped): its units, its layer
// table, its current layer and its entities, each with a fresh handle
// from 100 on in file order. The document is new, so nothing about it is
// refused: entities land on locked and frozen layers as the file has
// them. It is committed in one store transaction and published only once
// that succeeded; its revision is 0, like a created document's.
//
// The round trip. The engine's own DXF export (R12) read back gives the
// same document — layers with their colour, linetype and state, the
// current layer, the units, and entities of equal fingerprints under the
// same handles, whenever the exported document's handles had no gaps —
// except for what R12 cannot say:
//   - an ellipse is exported as a polyline of 128 straight pieces per turn
//     and comes back as that polyline;
//   - layer lineweights are not exported and come back as the default;
//   - in text, characters beyond the Basic Multilingual Plane are
//     exported, and so come back, as "?", and control characters as
//     spaces (see dxfText).
//
// A second round trip changes nothing.

// maxImportBytes is the largest DXF file the engine reads (the gateway caps
// its messages at 1 MiB; internal callers over gRPC may send more).
const maxImportBytes = 64 << 20

// importFile is a document built from a DXF file, not yet committed.
type importFile struct {
	d                 *document
	imported, skipped int64
}

// importDXF reads content and builds the new document. Its errors are
// *DXFError for the file and errors wrapping ErrInvalid for the request.
func (e *Engine) importDXF(name string, format enginev1.ExportFormat, content string) (*importFile, error) {
	switch format {
	case enginev1.ExportFormat_EXPORT_FORMAT_UNSPECIFIED, enginev1.ExportFormat_EXPORT_FORMAT_DXF:
	default:
		return nil, fmt.Errorf("%w: only dxf can be imported", ErrInvalid)
	}
	if len(content) > maxImportBytes {
		return nil, fmt.Errorf("%w: the file is %d bytes, more than the %d (64 MiB) the engine imports", ErrInvalid, len(content), maxImportBytes)
	}
	f, err := readDXF(content)
	if err != nil {
		return nil, err
	}
	d, err := e.newDocument(name, f.units)
	if err != nil {
		return nil, err
	}
	if err := f.build(d.model); err != nil {
		return nil, err
	}
	return &importFile{d: d, imported: int64(len(f.entities)), skipped: int64(f.skipped)}, nil
}

// build puts the file's layers and entities into the new document d.
func (f *dxfFile) build(d *model) error {
	// Layers by folded name: DXF layer names are case-insensitive.
	folded := map[string]*layer{}
	for _, l := range d.sortedLayers() {
		folded[foldName(l.name)] = l
	}
	zero := false // the file's entry for layer 0 was seen
	for _, fl := range f.layers {
		if len(fl.name) > 255 || checkLayerName(fl.name) != nil {
			continue // an xref-dependent or otherwise foreign name
		}
		key := foldName(fl.name)
		old := folded[key]
		if old != nil && (old.name != "0" || zero) {
			continue // a second entry for the same name
		}
		l := &layer{name: fl.name, color: fl.color, linetype: fl.linetype, lineweight: fl.lineweight, on: fl.on, frozen: fl.frozen, locked: fl.locked}
		zero = zero || old != nil
		d.setLayer(l.name, l) // layer 0 keeps its place
		folded[key] = l
	}
	byName := map[string]*layer{} // the layer of each name entities use
	for _, fe := range f.entities {
		l := byName[fe.layer]
		if l == nil {
			key := foldName(fe.layer)
			if l = folded[key]; l == nil {
				if len(fe.layer) > 255 {
					return dxfErrorf(fe.line, "the layer name of this entity is longer than 255 bytes")
				}
				if err := checkLayerName(fe.layer); err != nil {
					return dxfErrorf(fe.line, "layer %q: %v", clip(fe.layer), err)
				}
				l = &layer{name: fe.layer, color: 7, linetype: "Continuous", lineweight: -3, on: true}
				d.setLayer(l.name, l)
				folded[key] = l
			}
			byName[fe.layer] = l
		}
		d.add(&entity{layer: l.name, color: fe.color, linetype: fe.linetype, geom: fe.geom})
	}
	d.setCurrent(f.currentLayer(d))
	return nil
}

// foldName is a key under which names equal ignoring case (as
// strings.EqualFold has it) are equal: each character replaced by the
// smallest of its case-folding orbit.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// currentLayer is $CLAYER when the document has it and it is not frozen,
// else layer 0, else the first layer that is not frozen. When every layer
// is frozen, layer 0 is thawed: the current layer is never frozen.
func (f *dxfFile) currentLayer(d *model) string {
	if l := d.layerFold(f.clayer); l != nil && !l.frozen {
		return l.name
	}
	for _, l := range d.sortedLayers() {
		if !l.frozen {
			return l.name
		}
	}
	l := *d.layer("0")
	l.frozen = false
	d.setLayer("0", &l)
	return "0"
}

// ImportDocument creates a document from a DXF file (format dxf, or
// unset) of at most 64 MiB, commits it and returns its info. A file the
// engine cannot read is a *DXFError naming the line; it and the other
// request errors (another format, a file too large, a name too long) wrap
// ErrInvalid. See readDXF for what is read and import.go for the round
// trip of the engine's own export.
func (e *Engine) ImportDocument(ctx context.Context, req *enginev1.ImportDocumentRequest) (*enginev1.DocumentInfo, error) {
	done, err := e.enter()
	if err != nil {
		return nil, err
	}
	defer done()
	imp, err := e.importDXF(req.GetName(), req.GetFormat(), req.GetContent())
	if err != nil {
		return nil, fmt.Errorf("import document: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.store.Commit(context.WithoutCancel(ctx), fullCommit(imp.d.model)); err != nil {
		return nil, fmt.Errorf("import document: %w", err)
	}
	e.publish(imp.d)
	return imp.d.info(), nil
}

// documentImport is ImportDocument as a tool: a file the engine cannot
// read is invalid_args at /content with the line in the message. Like
// document_create, the running operation commits the document with its
// journal record, in one transaction, and then publishes it.
func documentImport(c *call, a *enginev1.DocumentImportArgs) (*enginev1.DocumentImportResult, error) {
	imp, err := c.e.importDXF(a.GetName(), a.GetFormat(), a.GetContent())
	if err != nil {
		var de *DXFError
		switch {
		case errors.As(err, &de):
			return nil, invalidArgs("/content", reasonInvalid, "%v", de)
		case a.GetFormat() != enginev1.ExportFormat_EXPORT_FORMAT_UNSPECIFIED && a.GetFormat() != enginev1.ExportFormat_EXPORT_FORMAT_DXF:
			return nil, invalidArgs("/format", reasonInvalid, "only dxf can be imported")
		case len(a.GetContent()) > maxImportBytes:
			return nil, invalidArgs("/content", reasonOutOfRange, "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
		}
		return nil, invalidArgs("/name", reasonInvalid, "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	c.created = imp.d
	return &enginev1.DocumentImportResult{Document: imp.d.info(), Imported: imp.imported, Skipped: imp.skipped}, nil
}

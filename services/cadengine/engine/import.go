package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/dxf"
)

// Importing makes a new document from a DXF file (see [dxf.Read] for what
// is read and what is skipped). The document is new, so nothing about it
// is refused: entities land on locked and frozen layers as the file has
// them. It is committed in one store transaction and published only once
// that succeeded; its revision is 0, like a created document's.

// maxImportBytes is the largest DXF file the engine reads (the gateway caps
// its messages at 1 MiB; internal callers over gRPC may send more).
const maxImportBytes = 64 << 20

// importFile is a document built from a DXF file, not yet committed.
type importFile struct {
	d             *document
	kept, dropped int64
	unmodelled    []*enginev1.UnmodelledEntities
	report        *enginev1.ImportReport
}

// importDXF reads the file's text (see dxf.ReadText) and builds the new
// document. Its errors are *dxf.Error for the file and errors wrapping
// ErrInvalid for the request.
func (e *Engine) importDXF(name string, format enginev1.ExportFormat, content string) (*importFile, error) {
	switch format {
	case enginev1.ExportFormat_EXPORT_FORMAT_UNSPECIFIED, enginev1.ExportFormat_EXPORT_FORMAT_DXF:
	default:
		return nil, fmt.Errorf("%w: only dxf can be imported", ErrInvalid)
	}
	if len(content) > maxImportBytes {
		return nil, fmt.Errorf("%w: the file is %d bytes, more than the %d (64 MiB) the engine imports", ErrInvalid, len(content), maxImportBytes)
	}
	f, err := dxf.ReadText(content)
	if err != nil {
		return nil, invalid(err)
	}
	d, err := e.newDocument(name, f.Units)
	if err != nil {
		return nil, err
	}
	if err := f.Build(d.Document); err != nil {
		return nil, invalid(err)
	}
	checkConstraints(f, d.Document)
	kept, dropped := f.Counts()
	return &importFile{d: d, kept: kept, dropped: dropped, unmodelled: f.Unmodelled(), report: f.Report()}, nil
}

// ImportDocument creates a document from a DXF file (format dxf, or
// unset) of at most 64 MiB, commits it and returns its info. A file the
// engine cannot read is a *dxf.Error naming the line; it and the other
// request errors (another format, a file too large, a name too long) wrap
// ErrInvalid. See dxf.Read for what is read and the dxf package for the round
// trip of the engine's own export. The response lists what the file held
// that the engine does not model.
func (e *Engine) ImportDocument(ctx context.Context, req *enginev1.ImportDocumentRequest) (*enginev1.ImportDocumentResponse, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	imp, err := e.importDXF(req.GetName(), req.GetFormat(), req.GetContent())
	if err != nil {
		return nil, fmt.Errorf("import document: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.adopt(ctx, imp.d); err != nil {
		return nil, fmt.Errorf("import document: %w", err)
	}
	c := fullCommit(imp.d.Document)
	c.Lease = imp.d.fence()
	if err := e.store.Commit(context.WithoutCancel(ctx), c); err != nil {
		return nil, fmt.Errorf("import document: %w", err)
	}
	e.publish(imp.d)
	return &enginev1.ImportDocumentResponse{Document: imp.d.Info(), Imported: imp.kept, Skipped: imp.dropped, Unmodelled: imp.unmodelled, Report: imp.report}, nil
}

// documentImport is ImportDocument as a tool: a file the engine cannot
// read is invalid_args at /content with the line in the message. Like
// document_create, the running operation commits the document with its
// journal record, in one transaction, and then publishes it.
func documentImport(c *call, a *enginev1.DocumentImportArgs) (*enginev1.DocumentImportResult, error) {
	imp, err := c.e.importDXF(a.GetName(), a.GetFormat(), a.GetContent())
	if err != nil {
		var de *dxf.Error
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
	return &enginev1.DocumentImportResult{Document: imp.d.Info(), Imported: imp.kept, Skipped: imp.dropped, Unmodelled: imp.unmodelled, Report: imp.report}, nil
}

// checkConstraints drops, with a warning, each constraint the file
// brought that the engine cannot solve over the entities it names (a ref
// to an entity another program changed into one constraints do not hold,
// a point it does not have, a count of refs its kind does not take).
func checkConstraints(f *dxf.File, d *drawing.Document) {
	t := d.Constraints()
	for i := 0; i < t.Len(); i++ {
		c := t.List[i]
		if _, err := newSketch(d, []drawing.Constraint{c}); err != nil {
			f.DropConstraint(d, c.ID, err.Error())
			t = d.Constraints()
			i--
		}
	}
}

// Package engine is the headless CAD engine: documents and their write
// lanes, the tool registry and the tool functions, the cad.batch runner,
// operations and the journal, written through to a [store.Store]. The
// drawing itself (entities, layers, fingerprints, content hash, undo log)
// is package drawing, its geometry package geom, its files packages dxf
// and svg. The gRPC server in services/cadengine serves the engine.
//
// # Documents
//
// A document has an id ("doc-" and 16 hex digits), a name, units, layers
// (layer "0" always exists), entities and a revision that grows by one for
// every successful call or batch step of a tool that is not read-only —
// whether or not the call changed anything — and never for a failed or
// read-only one (the checkpoint tools are bookkeeping and draw none).
// Entities have upper-case hex handles from a per-document counter that
// starts at 100 (lower handles are left for the fixed objects of a DXF
// file) and never goes back, not even when a change is undone.
//
// [Engine.ImportDocument] and the document_import tool make a new document
// from a DXF file ([dxf.Read]), and read the engine's own DXF export back
// as the document it came from, but for what DXF R12 cannot say.
//
// # Tools and batches
//
// [Engine.ExecuteBatch] runs cad.batch: steps with $references between
// them (see reference), validated as a whole before anything runs, with
// dry runs, revision and fingerprint guards, on_error stop, continue or
// rollback over the drawing's undo log ([drawing.Tx], see run),
// checkpoints (transactionBegin) and steps that wait on the caller's
// client (see Client). [Engine.CallTool] runs one tool as a batch of one
// step. A tool failure is a result with a typed error (see toolError for
// the kinds); only protocol problems (no such document, a closed engine, a
// store failure) are Go errors. Geometry uses [geom.Tolerance].
//
// # Operations and the journal
//
// Every call and batch is an operation with an id, scoped to its
// principal; a retry with the same id replays the recorded result (see
// opTable). Document changes and the operation's journal record commit in
// one store transaction, once per batch plus once before each wait on the
// client (see run.commit), so a returned result is on disk and a restart
// knows which steps of an interrupted operation committed.
//
// # Concurrency
//
// Engine methods are safe for concurrent use. Each document admits one
// writer at a time (its write lane) and any number of readers, which wait
// only while a write applies and commits. A writer that waits on its
// client commits first and lets go of the document while it waits.
package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Options configure an Engine.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Version is reported by system_status; empty means "dev".
	Version string
	// MaxBatchSteps is the most steps a batch may have (more are refused:
	// invalid_args at path "/steps", reason out_of_range); 0 means 1000.
	// system_capabilities reports it.
	MaxBatchSteps int32
	// OnCommit, if set, is called after every durable commit of a
	// document by a tool call or batch (not document creation), with the
	// revision it stored and the operation it belongs to — the server fans
	// document.changed out from it. It is called without any engine lock
	// held, from the committing call's goroutine.
	OnCommit func(documentID string, revision int64, operationID string)
	// Tracer and Meter receive the core's spans and metrics; nil records
	// nothing.
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	// Sharing, when set, makes the engine one of several sharing its
	// store: it serves documents under leases (see docFor). Nil means one
	// engine on its own store, without leases.
	Sharing *Sharing
	// ExpansionLimit is the most primitives one call may expand (drawing,
	// exploding or selecting through nested and gridded inserts and hatch
	// patterns) before it answers too_large; 0 means
	// drawing.DefaultExpansionLimit (10 million).
	ExpansionLimit int64
}

// Engine holds the documents and runs tools on them.
type Engine struct {
	store    store.Store
	now      func() time.Time
	version  string
	maxStep  int32
	expand   int64 // Options.ExpansionLimit
	epoch    string
	tools    map[string]*tool
	catalog  func() *toolIndex // the tools indexed for tool_search, on its first call
	onCommit func(documentID string, revision int64, operationID string)
	ops      *opTable // operations and their records
	obs      *observer
	shared   *sharing // nil without Options.Sharing

	mu     sync.RWMutex // guards docs and closed
	docs   map[string]*document
	closed bool
	calls  sync.WaitGroup // calls in flight, which Close waits for
}

// New makes an engine over store and loads every stored document and the
// journal of the last 24 hours; operations the journal shows running were
// interrupted by the engine's stop and are recorded as such (see
// opTable). The store stays the caller's: Close does not close it.
func New(s store.Store, opts Options) (*Engine, error) {
	if s == nil {
		return nil, fmt.Errorf("engine: nil store")
	}
	e := &Engine{
		store:    s,
		now:      opts.Now,
		version:  opts.Version,
		maxStep:  opts.MaxBatchSteps,
		expand:   opts.ExpansionLimit,
		epoch:    "ep-" + randomHex(8),
		onCommit: opts.OnCommit,
		ops:      newOpTable(),
		docs:     map[string]*document{},
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.version == "" {
		e.version = "dev"
	}
	if e.maxStep == 0 {
		e.maxStep = 1000
	}
	obs, err := newObserver(opts.Tracer, opts.Meter)
	if err != nil {
		return nil, fmt.Errorf("engine telemetry: %w", err)
	}
	e.obs = obs
	tools, err := compileTools()
	if err != nil {
		return nil, err
	}
	e.tools = tools
	e.catalog = sync.OnceValue(func() *toolIndex { return newToolIndex(enginev1.Tools) })
	err = s.Load(context.Background(), func(rec *store.DocumentRecord, ents []store.EntityRecord) error {
		d, err := loadDocument(rec, ents)
		if err != nil {
			return err
		}
		e.docs[d.ID] = d
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("engine: load documents: %w", err)
	}
	if opts.Sharing != nil {
		// Operations are read from the shared journal when a retry or
		// operations.get asks (recall): at start, another engine's
		// running operation is not interrupted.
		if opts.Sharing.Store == nil || store.Store(opts.Sharing.Store) != s {
			return nil, fmt.Errorf("engine: Sharing.Store must be the engine's store")
		}
		e.shared = newSharing(opts.Sharing)
		return e, nil
	}
	if err := e.loadJournal(context.Background()); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return e, nil
}

// Close stops the engine: it waits for calls in flight (their commits
// included) and makes every later call fail with ErrClosed. A call that
// waits on its client counts as in flight: cancel its context (which
// withdraws the server request) before closing. It does not close the
// store.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.calls.Wait()
	if e.shared != nil {
		e.shared.close()
	}
	return nil
}

// enter registers a call; the caller must call e.calls.Done when it is
// done.
func (e *Engine) enter() error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return ErrClosed
	}
	e.calls.Add(1)
	return nil
}

func (e *Engine) doc(id string) (*document, error) {
	e.mu.RLock()
	d := e.docs[id]
	e.mu.RUnlock()
	if d == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return d, nil
}

// ---- documents ----

// CreateDocument creates an empty document with layer "0" (colour 7,
// Continuous) as its current layer.
func (e *Engine) CreateDocument(ctx context.Context, req *enginev1.CreateDocumentRequest) (*enginev1.DocumentInfo, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	return e.createDocument(ctx, req.GetName(), req.GetUnits())
}

func (e *Engine) createDocument(ctx context.Context, name string, units enginev1.Units) (*enginev1.DocumentInfo, error) {
	d, err := e.newDocument(name, units)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.adopt(ctx, d); err != nil {
		return nil, err
	}
	c := commitOf(d.Document, nil)
	c.Lease = d.fence()
	if err := e.store.Commit(context.WithoutCancel(ctx), c); err != nil {
		return nil, fmt.Errorf("create document: %w", err)
	}
	e.publish(d)
	return d.Info(), nil
}

// newDocument makes a document that nobody else sees until it is
// committed and published.
func (e *Engine) newDocument(name string, units enginev1.Units) (*document, error) {
	if len([]rune(name)) > 200 {
		return nil, fmt.Errorf("%w: name is longer than 200 characters", ErrInvalid)
	}
	if name == "" {
		name = "Untitled"
	}
	if units == enginev1.Units_UNITS_UNSPECIFIED {
		units = enginev1.Units_UNITS_MM
	}
	if _, ok := enginev1.Units_name[int32(units)]; !ok {
		return nil, fmt.Errorf("%w: unknown units %d", ErrInvalid, units)
	}
	return newDocument(drawing.NewDocument("doc-"+randomHex(8), name, units, e.now().UTC())), nil
}

// publish makes a committed document visible.
func (e *Engine) publish(d *document) {
	e.mu.Lock()
	e.docs[d.ID] = d
	e.mu.Unlock()
	if e.shared != nil && d.lease.lease.Epoch != 0 {
		e.shared.hold(d)
	}
}

// GetDocument describes a document.
func (e *Engine) GetDocument(ctx context.Context, documentID string) (*enginev1.DocumentInfo, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	d, err := e.docFor(ctx, documentID)
	if err != nil {
		return nil, err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.Info(), nil
}

// ListDocuments lists documents, oldest first, a page at a time.
func (e *Engine) ListDocuments(ctx context.Context, req *enginev1.ListDocumentsRequest) (*enginev1.ListDocumentsResponse, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	size := int(req.GetPageSize())
	switch {
	case req.PageSize == nil:
		size = 50
	case size < 1 || size > 1000:
		return nil, fmt.Errorf("%w: page_size %d is outside 1-1000", ErrInvalid, size)
	}
	type key struct {
		at int64
		id string
	}
	less := func(a, b key) bool { return a.at < b.at || a.at == b.at && a.id < b.id }
	var after *key
	if tok := req.GetPageToken(); tok != "" {
		v, ok := decodeToken("d", tok)
		at, id, ok2 := strings.Cut(v, ":")
		n, err := strconv.ParseInt(at, 10, 64)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("%w: bad page_token", ErrInvalid)
		}
		after = &key{n, id}
	}
	if e.shared != nil {
		from := store.DocumentKey{}
		if after != nil {
			from = store.DocumentKey{CreatedAt: time.Unix(0, after.at).UTC(), ID: after.id}
		}
		return e.listStored(ctx, from, size)
	}
	e.mu.RLock()
	all := make([]*document, 0, len(e.docs))
	for _, d := range e.docs {
		all = append(all, d)
	}
	e.mu.RUnlock()
	keyOf := func(d *document) key { return key{d.CreatedAt.UnixNano(), d.ID} }
	sort.Slice(all, func(i, j int) bool { return less(keyOf(all[i]), keyOf(all[j])) })
	resp := &enginev1.ListDocumentsResponse{}
	var last key
	for _, d := range all {
		k := keyOf(d)
		if after != nil && !less(*after, k) {
			continue
		}
		if len(resp.Documents) == size {
			resp.NextPageToken = encodeToken("d", strconv.FormatInt(last.at, 10)+":"+last.id)
			break
		}
		d.mu.RLock()
		resp.Documents = append(resp.Documents, d.Info())
		d.mu.RUnlock()
		last = k
	}
	return resp, nil
}

// listStored is document.list on a shared store: a page of every
// document in the store, whichever engine created it, in the same order
// and with the same page tokens as on a store of one engine. A document
// this engine has at the stored revision is described from memory; any
// other is read from the store.
func (e *Engine) listStored(ctx context.Context, after store.DocumentKey, size int) (*enginev1.ListDocumentsResponse, error) {
	recs, err := e.shared.st.ListDocuments(ctx, after, size+1)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	resp := &enginev1.ListDocumentsResponse{}
	for i := range recs {
		if i == size {
			last := recs[size-1]
			resp.NextPageToken = encodeToken("d", strconv.FormatInt(last.CreatedAt.UnixNano(), 10)+":"+last.ID)
			break
		}
		info, err := e.storedInfo(ctx, &recs[i])
		if err != nil {
			return nil, err
		}
		if info != nil {
			resp.Documents = append(resp.Documents, info)
		}
	}
	return resp, nil
}

// storedInfo describes the document of row rec: from memory when this
// engine has it at rec's revision, else from the row, or read from the
// store when the row predates its layers' entity counts; nil when it is
// gone meanwhile.
func (e *Engine) storedInfo(ctx context.Context, rec *store.DocumentRecord) (*enginev1.DocumentInfo, error) {
	e.mu.RLock()
	d := e.docs[rec.ID]
	e.mu.RUnlock()
	if d != nil {
		d.mu.RLock()
		info, current := d.Info(), d.Revision == rec.Revision
		d.mu.RUnlock()
		if current {
			return info, nil
		}
	}
	if info, ok := infoOf(rec); ok {
		return info, nil
	}
	full, ents, err := e.shared.st.LoadDocument(ctx, rec.ID)
	if errors.Is(err, store.ErrNoDocument) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	stored, err := loadDocument(full, ents)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return stored.Info(), nil
}

// ExportDocument renders a document as DXF (2018 by default, R12 on
// request), SVG, PNG or PDF (see export).
func (e *Engine) ExportDocument(ctx context.Context, req *enginev1.ExportDocumentRequest) (*enginev1.ExportDocumentResponse, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()
	d, err := e.docFor(ctx, req.GetDocumentId())
	if err != nil {
		return nil, err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	x, err := export(drawing.NewBudget(ctx, e.expand), d.Document, req.GetFormat(), req.GetOptions(), "")
	if err != nil {
		var tl *drawing.TooLargeError
		if errors.As(err, &tl) {
			return nil, tooLargeError(tl)
		}
		return nil, err
	}
	return &enginev1.ExportDocumentResponse{Format: req.GetFormat(), MediaType: x.media, Content: x.content, Data: x.data}, nil
}

// ---- ids and tokens ----

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// encodeToken makes an opaque page token.
func encodeToken(kind, v string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("cb1:" + kind + ":" + v))
}

func decodeToken(kind, tok string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(string(b), "cb1:"+kind+":")
}

// recentOperations are the principal's recent operation ids, newest first.
func (e *Engine) recentOperations(principal string) []string {
	ops, _ := e.ops.recentOf(principal, maxRecent)
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.key.id
	}
	return out
}

// DocumentCount is how many documents the engine holds.
func (e *Engine) DocumentCount() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.docs)
}

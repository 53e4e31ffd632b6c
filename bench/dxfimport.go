package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
	"github.com/cadbridge/cadbridge/services/cadengine/store/sqlite"
)

// The scripts of dxf-import's ezdxf side: the same child with and without
// reading the file. The reading child prints the time of readfile alone.
const (
	ezdxfStartScript = "import ezdxf, sys, time\nt = time.perf_counter()\nprint(time.perf_counter() - t)\n"
	ezdxfReadScript  = "import ezdxf, sys, time\nt = time.perf_counter()\nezdxf.readfile(sys.argv[1])\nprint(time.perf_counter() - t)\n"
)

// coreRuns is how many times the engine core alone imports and exports the
// file for the rows' notes.
const coreRuns = 3

// dxfImport measures document.import of a large DXF file against ezdxf
// reading it: a file of DXFLines LINEs that ezdxf wrote, imported over
// HTTP POST /rpc into an engine on SQLite (a fresh engine and gateway for
// each import) and committed, against ezdxf.readfile of the same file in a
// new child Python process, as the child times it. The notes hold the
// child's time from its start to its exit, less that of a child that only
// starts, as well.
func dxfImport(ctx context.Context, e *env, row *Row) error {
	n, rounds := e.sizes.DXFLines, e.sizes.DXFRounds
	if n < 1 || rounds < 1 {
		return fmt.Errorf("sizes: %d DXF lines, %d rounds; want at least 1 of each", n, rounds)
	}
	row.Title = fmt.Sprintf("a %s-LINE DXF file written by ezdxf: document.import over HTTP POST /rpc (engine on SQLite, committed) vs ezdxf.readfile in a child Python process", count(n))
	py, err := e.python(ctx, row)
	if py == nil {
		return err
	}
	f, err := e.linesFile(ctx, py, n)
	if err != nil {
		return err
	}
	row.Size = fmt.Sprintf("%s, a %s file, %d ops per side", e.sizeNote(n, e.full.DXFLines, "lines"), bytesSize(len(f.content)), rounds)
	body := rpcRequest(gatewayv1.MethodDocumentImport, obj{"format": "dxf", "name": "lines", "content": f.content})

	var st *fileStack
	closeStack := func() {
		if st != nil {
			st.Close()
			st = nil
		}
	}
	defer closeStack()
	subject := &contender{
		name: "document.import over POST /rpc, SQLite", unit: "file",
		prep: func(context.Context, int) error {
			closeStack()
			var err error
			st, err = startFileStack(e)
			runtime.GC() // the last stack's document, now garbage
			return err
		},
		op: func(ctx context.Context, _ int) error {
			raw, err := st.call(ctx, body)
			if err != nil {
				return fmt.Errorf("document.import: %w", err)
			}
			return checkEntityCount(raw, n)
		},
	}
	// reads are readfile as the children time it; starts the wall time of
	// a child that only starts, run before each read, untimed.
	var reads, starts []time.Duration
	baseline := &contender{
		name: "ezdxf.readfile, timed in a new child process", unit: "file",
		prep: func(ctx context.Context, _ int) error {
			d, _, err := py.run(ctx, ezdxfStartScript)
			starts = append(starts, d)
			return err
		},
		op: func(ctx context.Context, _ int) error {
			_, out, err := py.run(ctx, ezdxfReadScript, f.path)
			if err == nil {
				var d time.Duration
				d, err = seconds(out)
				reads = append(reads, d)
			}
			return err
		},
	}
	e.ready()
	const warmup = 1
	b, s, err := compare(ctx, rounds, warmup, baseline, subject)
	if err != nil {
		return err
	}
	child := (&sample{lat: reads[warmup:]}).side(baseline)
	child.AllocsPerOp, child.ReadsPerOp, child.WritesPerOp = b.AllocsPerOp, b.ReadsPerOp, b.WritesPerOp
	row.Baseline, row.Subject = &child, &s
	row.Checks = []Check{
		check("speed-up", "speed-up, p50 of ezdxf.readfile ÷ p50 of document.import (higher is better)", ratio(float64(child.P50), float64(s.P50)), "x", Goal{">=", 10}),
	}
	core, err := coreDXF(ctx, e, f.content, true)
	if err != nil {
		return err
	}
	start := median(starts[warmup:])
	lessStart := "n/a: the start's noise is larger than the read"
	if b.P50 > start {
		lessStart = fmt.Sprintf("%s, a speed-up of %s", fmtDur(b.P50-start), fmtValue(ratio(float64(b.P50-start), float64(s.P50)), "x"))
	}
	row.Notes = []string{
		fmt.Sprintf("ezdxf %s (%s), a new child process for each read: `python3 -c \"import ezdxf,sys; ezdxf.readfile(sys.argv[1])\" FILE`; the baseline is readfile as the child times it (time.perf_counter), neither the interpreter's start nor its exit counted. From its start to its exit the child took p50 %s; the same child without the read (the interpreter's start and `import ezdxf`), run untimed before each, p50 %s; the difference, which also holds the exiting interpreter collecting the document, is %s. Counting the start, the speed-up would be %s.",
			py.version, py.path, fmtDur(b.P50), fmtDur(start), lessStart, fmtValue(ratio(float64(b.P50), float64(s.P50)), "x")),
		fmt.Sprintf("cadbridge: the client POSTs a JSON-RPC request made once (the DXF text as a JSON string, %s) to the gateway's /rpc, whose read limit is raised to 64 MiB (`cadbridge --read-limit`); the gateway relays it over gRPC to the engine, which parses the file, builds the document and commits it to SQLite (WAL, synchronous=FULL; under %s, %s) before it answers. Each import runs on a fresh engine, gateway and store (setup untimed, garbage collected). Client, gateway and engine share one process; the answer's entity_count is checked.",
			bytesSize(len(body)), cmp.Or(e.cfg.Dir, os.TempDir()), fsType(cmp.Or(e.cfg.Dir, os.TempDir()))),
		fmt.Sprintf("For scale, the engine core alone (Engine.ImportDocument in process: no HTTP, JSON or gRPC) takes %s on the memory store and %s on SQLite (p50 of %d): parsing and building the document about the first, the SQLite commit about the difference, and the rest of the subject's %s is the gateway, the encodings and the hops.",
			fmtDur(core.importMemory), fmtDur(core.importSQLite), coreRuns, fmtDur(s.P50)),
		fmt.Sprintf("The file: %s LINEs on 10 layers, R2018, written once per run by ezdxf (`doc.modelspace().add_line`; it took %s).", count(n), fmtDur(f.took)),
	}
	return nil
}

// checkEntityCount checks that a document.import result (DocumentInfo)
// counts n entities.
func checkEntityCount(raw json.RawMessage, n int) error {
	var info struct {
		EntityCount json.Number `json:"entity_count"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return fmt.Errorf("document.import: %w", err)
	}
	if got := info.EntityCount.String(); got != fmt.Sprint(n) {
		return fmt.Errorf("document.import made %s entities, want %d", got, n)
	}
	return nil
}

// dxfExport measures document.export of the dxf-import row's document as
// DXF against ezdxf saving it: the document imported once into an engine
// on SQLite, exported over HTTP POST /rpc, against doc.saveas() in a child
// Python process that loaded the file once and times each save itself.
func dxfExport(ctx context.Context, e *env, row *Row) error {
	n, rounds := e.sizes.DXFLines, e.sizes.DXFRounds
	if n < 1 || rounds < 1 {
		return fmt.Errorf("sizes: %d DXF lines, %d rounds; want at least 1 of each", n, rounds)
	}
	row.Title = fmt.Sprintf("the %s-LINE document as DXF (R2018): document.export over HTTP POST /rpc (engine on SQLite) vs ezdxf's doc.saveas() in a child Python process", count(n))
	py, err := e.python(ctx, row)
	if py == nil {
		return err
	}
	f, err := e.linesFile(ctx, py, n)
	if err != nil {
		return err
	}
	row.Size = fmt.Sprintf("%s, %d ops per side", e.sizeNote(n, e.full.DXFLines, "lines"), rounds)
	st, err := startFileStack(e)
	if err != nil {
		return err
	}
	defer st.Close()
	raw, err := st.call(ctx, rpcRequest(gatewayv1.MethodDocumentImport, obj{"format": "dxf", "name": "lines", "content": f.content}))
	if err != nil {
		return fmt.Errorf("document.import: %w", err)
	}
	if err := checkEntityCount(raw, n); err != nil {
		return err
	}
	doc, _ := resultOf(raw)["document_id"].(string)
	body := rpcRequest(gatewayv1.MethodDocumentExport, obj{"document_id": doc, "format": "dxf", "options": obj{"dxf_version": "r2018"}})

	dir, err := e.tempDir("cadbench-saveas-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	saved := filepath.Join(dir, "saved.dxf")
	sv, err := py.startSaver(ctx, f.path, saved)
	if err != nil {
		return err
	}
	defer sv.close()

	var saves []time.Duration // as the child times them
	baseline := &contender{
		name: "ezdxf doc.saveas(), timed in the child", unit: "file",
		op: func(context.Context, int) error {
			d, err := sv.save()
			saves = append(saves, d)
			return err
		},
	}
	var last []byte // the subject's latest answer, checked untimed
	subject := &contender{
		name: "document.export over POST /rpc", unit: "file", gc: true,
		op: func(ctx context.Context, _ int) error {
			data, err := postJSON(ctx, st.HTTP, "http://"+st.Gateway+"/rpc", nil, body)
			if err != nil {
				return fmt.Errorf("document.export: %w", err)
			}
			last = data
			if !bytes.HasPrefix(data, exportPrefix) {
				return fmt.Errorf("document.export: %.300s", data)
			}
			return nil
		},
	}
	e.ready()
	const warmup = 1
	b, s, err := compare(ctx, rounds, warmup, baseline, subject)
	if err != nil {
		return err
	}
	content, err := exportedDXF(last, n)
	if err != nil {
		return err
	}
	child := (&sample{lat: saves[warmup:]}).side(baseline)
	child.AllocsPerOp, child.ReadsPerOp, child.WritesPerOp = b.AllocsPerOp, b.ReadsPerOp, b.WritesPerOp
	row.Baseline, row.Subject = &child, &s
	row.Checks = []Check{
		check("speed-up", "speed-up, p50 of ezdxf doc.saveas() ÷ p50 of document.export (higher is better)", ratio(float64(child.P50), float64(s.P50)), "x", Goal{">=", 10}),
	}
	var savedSize int64
	if fi, err := os.Stat(saved); err == nil {
		savedSize = fi.Size()
	}
	core, err := coreDXF(ctx, e, f.content, false)
	if err != nil {
		return err
	}
	row.Notes = []string{
		fmt.Sprintf("ezdxf %s (%s): one child process loads the file once (untimed) and then saves the document on each request; the baseline is doc.saveas() alone as the child times it (time.perf_counter), writing a file of %s (R2018) in %s (%s). The parent saw p50 %s a save, the pipe round trip included.",
			py.version, py.path, bytesSize(int(savedSize)), filepath.Dir(dir), fsType(dir), fmtDur(b.P50)),
		fmt.Sprintf("cadbridge: the file was imported once (untimed) into an engine on SQLite; each op POSTs document.export (format dxf, dxf_version r2018) to the gateway's /rpc and reads the whole answer, %s of JSON holding the DXF text (%s) as a string. Export reads the document in memory and writes nothing to the store. Checked after: the last answer's DXF holds %s LINEs.",
			bytesSize(len(last)), bytesSize(len(content)), count(n)),
		fmt.Sprintf("For scale, the engine core alone (Engine.ExportDocument in process: no HTTP, JSON or gRPC) takes %s (p50 of %d); the rest of the subject's %s is the gateway's JSON encoding, the gRPC and HTTP hops and the client's read.",
			fmtDur(core.export), coreRuns, fmtDur(s.P50)),
	}
	return nil
}

// exportPrefix starts a document.export answer with a result (an error
// answer has no result).
var exportPrefix = []byte(`{"jsonrpc":"2.0","id":1,"result":`)

// exportedDXF is the DXF text of a document.export answer, which must hold
// n LINEs.
func exportedDXF(answer []byte, n int) (string, error) {
	var resp struct {
		Result struct {
			Format  string `json:"format"`
			Content string `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return "", fmt.Errorf("document.export: %w", err)
	}
	content := strings.ReplaceAll(resp.Result.Content, "\r\n", "\n")
	if got := strings.Count(content, "\nLINE\n"); resp.Result.Format != "dxf" || got != n {
		return "", fmt.Errorf("document.export gave %q with %d LINEs, want dxf with %d", resp.Result.Format, got, n)
	}
	return resp.Result.Content, nil
}

// coreFigures are the engine core's own times for a DXF file, in process.
type coreFigures struct {
	importMemory, importSQLite, export time.Duration
}

// coreDXF times the engine core alone on content, coreRuns times each:
// Engine.ImportDocument on the memory store and, if withSQLite, on
// SQLite (WAL, synchronous=FULL), and Engine.ExportDocument (DXF R2018)
// of the document made.
func coreDXF(ctx context.Context, e *env, content string, withSQLite bool) (coreFigures, error) {
	var fig coreFigures
	stores := []func() (store.Store, error){func() (store.Store, error) { return memory.New(), nil }}
	if withSQLite {
		dir, err := e.tempDir("cadbench-core-dxf-")
		if err != nil {
			return fig, err
		}
		defer os.RemoveAll(dir)
		stores = append(stores, func() (store.Store, error) { return sqlite.Open(filepath.Join(dir, "cadengine.db")) })
	}
	for i, open := range stores {
		st, err := open()
		if err != nil {
			return fig, err
		}
		eng, err := engine.New(st, engine.Options{})
		if err != nil {
			st.Close()
			return fig, err
		}
		var doc string
		d, err := p50Of(ctx, coreRuns, func(ctx context.Context) error {
			resp, err := eng.ImportDocument(ctx, &enginev1.ImportDocumentRequest{Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF, Content: content})
			doc = resp.GetDocument().GetDocumentId()
			return err
		})
		if err == nil && i == 0 {
			fig.importMemory = d
			fig.export, err = p50Of(ctx, coreRuns, func(ctx context.Context) error {
				_, err := eng.ExportDocument(ctx, &enginev1.ExportDocumentRequest{DocumentId: doc, Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF,
					Options: &enginev1.ExportOptions{DxfVersion: enginev1.DxfVersion_DXF_VERSION_R2018.Enum()}})
				return err
			})
		} else if err == nil {
			fig.importSQLite = d
		}
		eng.Close()
		st.Close()
		if err != nil {
			return fig, fmt.Errorf("engine core, %s store: %w", st.Kind(), err)
		}
		runtime.GC()
	}
	return fig, nil
}

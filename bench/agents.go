package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// The rows of this file measure what an agent leans on besides drawing
// (issue #38): finding a tool by what it does, and looking at the drawing.

// searchQueriesFile is the query set of TestToolSearchQueries, from the
// module's root.
const searchQueriesFile = "services/cadengine/engine/testdata/tool_search_queries.txt"

// searchQueries reads the queries of the query set ("tool<TAB>query" a
// line, # comments), every one, whether or not its tool is in the catalog.
func searchQueries() ([]string, string, error) {
	path, err := moduleFile(searchQueriesFile)
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var queries []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, q, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, "", fmt.Errorf("%s: line %q is not \"tool<TAB>query\"", path, line)
		}
		queries = append(queries, q)
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if len(queries) == 0 {
		return nil, "", fmt.Errorf("%s: no queries", path)
	}
	return queries, path, nil
}

// moduleFile is rel under the root of the cadbridge module, found above
// the working directory or, failing that, above this source file.
func moduleFile(rel string) (string, error) {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, moduleRoot(wd))
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		roots = append(roots, moduleRoot(filepath.Dir(file)))
	}
	for _, root := range roots {
		if root == "" {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no %s in the cadbridge module (looked above the working directory and this source file)", rel)
}

// toolSearch measures tool_search through Engine.CallTool, its real path
// (the gateway and MCP's catalog calls end there), one query of the query
// set an op, cycling; against the floor of a case-folded substring scan
// of every tool's name, keywords and description for the query.
func toolSearch(ctx context.Context, e *env, row *Row) error {
	queries, path, err := searchQueries()
	if err != nil {
		return err
	}
	row.Title = "tool_search in process (Engine.CallTool, no document) over the query set of TestToolSearchQueries vs the floor: a substring scan of the catalog"
	row.Size = fmt.Sprintf("%d queries cycled, %d calls per side", len(queries), e.sizes.SearchRounds*e.sizes.SearchOps)
	eng, err := engine.New(memory.New(), engine.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	caller := engine.Caller{Principal: principal}
	args := make([][]byte, len(queries))
	lower := make([]string, len(queries))
	for i, q := range queries {
		args[i] = jsonOf(obj{"query": q})
		lower[i] = strings.ToLower(q)
	}
	// The floor's catalog: each tool's name, keywords and description,
	// lower-cased once.
	texts := make([]string, len(enginev1.Tools))
	for i, t := range enginev1.Tools {
		texts[i] = strings.ToLower(t.Name + "\n" + strings.Join(t.Keywords, "\n") + "\n" + t.Description)
	}
	var next [2]int
	floor := &contender{
		name: "substring scan of names, keywords, descriptions", unit: "query", perBlock: e.sizes.SearchOps,
		op: func(context.Context, int) error {
			q := lower[next[0]%len(lower)]
			next[0]++
			hits := 0
			for _, t := range texts {
				if strings.Contains(t, q) {
					hits++
				}
			}
			_ = hits
			return nil
		},
	}
	var returned int
	subject := &contender{
		name: "Engine.CallTool tool_search", unit: "query", perBlock: e.sizes.SearchOps,
		op: func(ctx context.Context, _ int) error {
			a := args[next[1]%len(args)]
			next[1]++
			resp, err := eng.CallTool(ctx, caller, &enginev1.CallToolRequest{Tool: enginev1.ToolToolSearch, ArgsJson: a})
			if err := okCall(resp, err); err != nil {
				return err
			}
			returned += len(resp.GetResultJson())
			return nil
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.SearchRounds, 20, floor, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-us", "p50 latency of tool_search", micros(s.P50), "µs", Goal{"<=", 200}),
	}
	row.Notes = []string{
		fmt.Sprintf("The queries are every line of %s (%d: command names and aliases, plain requests, German, French and Spanish, misspellings), one a call, in the file's order, cycling; the default limit (5 tools). A result averages %d bytes of JSON.",
			searchQueriesFile, len(queries), returned/max(s.N, 1)),
		fmt.Sprintf("The catalog has %d tools. The floor finds only literal substrings; tool_search also matches words by prefix, edit distance and trigrams and ranks them. %.1f× the floor at p50 (%s against %s).",
			len(enginev1.Tools), ratio(float64(s.P50), float64(b.P50)), fmtDur(s.P50), fmtDur(b.P50)),
		"Each call is an operation with a fresh id and a result kept for operations.get, as for any tool call; read from " + path + ".",
	}
	return nil
}

// viewRender measures view_render at 768 px of the corpus's largest
// drawing (see corpusRanking), imported once, against document_export as PNG (its
// default size) of the same document, both through Engine.CallTool.
func viewRender(ctx context.Context, e *env, row *Row) error {
	row.Title = "view_render at 768 px vs document_export {format: png} (its default size) of the largest drawing of the DXF corpus, in process (Engine.CallTool, memory store)"
	dir, ok := e.corpusDir()
	if !ok {
		// Skipped even in CI: corpus-import fails there without the corpus.
		row.Skipped = fmt.Sprintf("no DXF corpus at %s (the corpus sits beside the repository, in ../shared/dxfcorpus)", dir)
		return nil
	}
	eng, err := engine.New(memory.New(), engine.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	name, by, size, imported, doc, passed, err := importLargest(ctx, eng, dir)
	if err != nil {
		return err
	}
	row.Size = fmt.Sprintf("%s (%s, %d entities imported), %d renders per side", name, bytesSize(size), imported, e.sizes.RenderRounds*e.sizes.RenderOps)
	caller := engine.Caller{Principal: principal}
	call := func(ctx context.Context, tool string, args []byte) (*enginev1.CallToolResponse, error) {
		resp, err := eng.CallTool(ctx, caller, &enginev1.CallToolRequest{Tool: tool, DocumentId: &doc, ArgsJson: args})
		return resp, okCall(resp, err)
	}
	renderArgs, exportArgs := jsonOf(obj{"width": 768}), jsonOf(obj{"format": "png"})
	var rendered, exported []byte
	baseline := &contender{
		name: "Engine.CallTool document_export png", unit: "picture", perBlock: e.sizes.RenderOps, gc: true,
		op: func(ctx context.Context, _ int) error {
			resp, err := call(ctx, enginev1.ToolDocumentExport, exportArgs)
			if err == nil {
				exported = resp.GetResultJson()
			}
			return err
		},
	}
	subject := &contender{
		name: "Engine.CallTool view_render 768 px", unit: "picture", perBlock: e.sizes.RenderOps, gc: true,
		op: func(ctx context.Context, _ int) error {
			resp, err := call(ctx, enginev1.ToolViewRender, renderArgs)
			if err == nil {
				rendered = resp.GetResultJson()
			}
			return err
		},
	}
	e.ready()
	b, s, err := compare(ctx, e.sizes.RenderRounds, 1, baseline, subject)
	if err != nil {
		return err
	}
	row.Baseline, row.Subject = &b, &s
	row.Checks = []Check{
		check("p50-ratio", "p50, view_render ÷ PNG export (lower is better)", ratio(float64(s.P50), float64(b.P50)), "x", Goal{"<=", 1}),
	}
	row.Notes = []string{
		fmt.Sprintf("The drawing is the largest file of %s by %s, %s (%s)%s; imported once (untimed) with Engine.ImportDocument, %d entities became the document's, %d of them drawn.",
			dir, by, name, bytesSize(size), passedNote(passed), imported, drawn(rendered)),
		fmt.Sprintf("view_render {width: 768} made %s; document_export {format: png} (no sheet, no scale: 1600 px on the longer side) made %s. Both draw the whole of model space.",
			pictureNote(rendered, &enginev1.ViewRenderResult{}), pictureNote(exported, &enginev1.DocumentExportResult{})),
		"Garbage is collected before each block, untimed, so that neither side pays for the other's.",
	}
	return nil
}

// corpusRanking orders the DXF files of dir largest first: by the count
// of model-space entities that the corpus's oracle.json (ezdxf's
// reading, beside dir) gives, or, when there is no oracle, by size on
// disk; by says which.
func corpusRanking(dir string) (names []string, by string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	var oracle map[string]struct {
		Modelspace map[string]int `json:"modelspace"`
	}
	if data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "oracle.json")); err == nil {
		if json.Unmarshal(data, &oracle) != nil {
			oracle = nil
		}
	}
	by = "model-space entities (ezdxf's count, oracle.json)"
	if oracle == nil {
		by = "size on disk (no oracle.json beside the files)"
	}
	type file struct {
		name string
		rank int64
	}
	var files []file
	for _, ent := range entries {
		if !ent.Type().IsRegular() || !strings.EqualFold(filepath.Ext(ent.Name()), ".dxf") {
			continue
		}
		f := file{name: ent.Name()}
		if oracle != nil {
			for _, n := range oracle[f.name].Modelspace {
				f.rank += int64(n)
			}
		} else if fi, err := ent.Info(); err == nil {
			f.rank = fi.Size()
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b file) int {
		if c := cmp.Compare(b.rank, a.rank); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for _, f := range files {
		names = append(names, f.name)
	}
	return names, by, nil
}

// importLargest imports the largest DXF file of dir (see corpusRanking)
// that the engine takes into a document of eng; passed are the larger
// files it refused.
func importLargest(ctx context.Context, eng *engine.Engine, dir string) (name, by string, size int, imported int64, doc string, passed []string, err error) {
	names, by, err := corpusRanking(dir)
	if err != nil {
		return "", "", 0, 0, "", nil, err
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", "", 0, 0, "", nil, err
		}
		resp, err := eng.ImportDocument(ctx, &enginev1.ImportDocumentRequest{
			Name: new(strings.TrimSuffix(name, filepath.Ext(name))), Format: enginev1.ExportFormat_EXPORT_FORMAT_DXF, Content: dxftest.Text(data),
		})
		if err != nil || resp.GetImported() == 0 {
			passed = append(passed, name)
			continue
		}
		return name, by, len(data), resp.GetImported(), resp.GetDocument().GetDocumentId(), passed, nil
	}
	return "", "", 0, 0, "", passed, fmt.Errorf("no DXF file of %s imports", dir)
}

// drawn is how many entities a view_render result says it drew.
func drawn(resultJSON []byte) int64 {
	var r enginev1.ViewRenderResult
	if contract.Unmarshal(resultJSON, &r) != nil {
		return 0
	}
	return r.GetEntities()
}

// passedNote names the larger files the engine refused, if any.
func passedNote(passed []string) string {
	if len(passed) == 0 {
		return ""
	}
	return fmt.Sprintf(" (larger files it refused or found empty: %s)", strings.Join(passed, ", "))
}

// pictureNote describes the PNG of a tool result whose message m has a
// data field: its pixels and its bytes.
func pictureNote[M interface {
	proto.Message
	GetData() []byte
}](resultJSON []byte, m M) string {
	if err := contract.Unmarshal(resultJSON, m); err != nil {
		return fmt.Sprintf("a result that does not decode (%v)", err)
	}
	data := m.GetData()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("%s that is not a PNG (%v)", bytesSize(len(data)), err)
	}
	return fmt.Sprintf("a %d × %d PNG of %s", cfg.Width, cfg.Height, bytesSize(len(data)))
}

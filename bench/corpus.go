package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	gatewayv1 "github.com/cadbridge/cadbridge/gen/cad/gateway/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
)

// corpusScript loads every file named in argv with ezdxf as the corpus's
// oracle.py does (ezdxf.readfile, and ezdxf.recover.readfile when that
// raises), keeping every document, as the engine keeps every document it
// imports; it prints the time of the loading (time.perf_counter) and what
// it could not load, as JSON.
const corpusScript = `
import json, os, resource, sys, time
import ezdxf
from ezdxf import recover
docs, recovered, failed = [], 0, []
t = time.perf_counter()
for path in sys.argv[1:]:
    try:
        docs.append(ezdxf.readfile(path))
    except Exception:
        try:
            docs.append(recover.readfile(path)[0])
            recovered += 1
        except Exception:
            failed.append(os.path.basename(path))
s = time.perf_counter() - t
print(json.dumps({"seconds": s, "recovered": recovered, "failed": failed,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
`

// corpusLoad is what corpusScript prints.
type corpusLoad struct {
	Seconds   float64  `json:"seconds"`
	Recovered int      `json:"recovered"`
	Failed    []string `json:"failed"`
	MaxRSSKiB int64    `json:"maxrss_kib"`
}

// corpusFile is a file of the corpus and its document.import request.
type corpusFile struct {
	name, path string
	size       int
	utf8       bool
	body       []byte
}

// corpusImport measures importing the shared corpus of real-world DXF
// files (../shared/dxfcorpus/files) one after another through
// document.import over HTTP POST /rpc, into a fresh engine on SQLite for
// each pass, against ezdxf loading the same files in one child Python
// process, timed inside it; and the peak resident set of the process while
// it imports. It has no goal: its figures are for reading.
func corpusImport(ctx context.Context, e *env, row *Row) error {
	row.Title = "the DXF corpus (real-world files): each imported with document.import over HTTP POST /rpc (engine on SQLite, committed) vs ezdxf loading them in one child Python process"
	dir, ok := e.corpusDir()
	if !ok {
		err := fmt.Errorf("no DXF corpus at %s", dir)
		if os.Getenv("CI") == "true" {
			return err
		}
		row.Skipped = err.Error() + " (the corpus sits beside the repository, in ../shared/dxfcorpus)"
		return nil
	}
	py, err := e.python(ctx, row)
	if py == nil {
		return err
	}
	files, all, err := corpusFiles(dir, e.sizes.CorpusFiles)
	if err != nil {
		return err
	}
	var total, notUTF8 int
	paths := make([]string, len(files))
	for i, f := range files {
		total += f.size
		paths[i] = f.path
		if !f.utf8 {
			notUTF8++
		}
	}
	rounds := e.sizes.CorpusRounds
	if rounds < 1 {
		return fmt.Errorf("sizes: %d corpus rounds; want at least 1", rounds)
	}
	row.Size = fmt.Sprintf("%d of %d files, %s, %d passes per side", len(files), all, bytesSize(total), rounds)
	if len(files) == all {
		row.Size = fmt.Sprintf("all %d files, %s, %d passes per side", all, bytesSize(total), rounds)
	}

	var (
		st      *fileStack
		before  []int64           // the process's resident set as each pass began
		peaks   []int64           // its peak during each pass
		refused map[string]string // file → message, of the latest pass
		rss     = true            // whether the kernel tells
	)
	closeStack := func() {
		if st != nil {
			st.Close()
			st = nil
		}
	}
	defer closeStack()
	subject := &contender{
		name: "document.import of each file over POST /rpc, SQLite", unit: "pass",
		prep: func(context.Context, int) error {
			closeStack()
			var err error
			if st, err = startFileStack(e); err != nil {
				return err
			}
			runtime.GC()
			debug.FreeOSMemory() // what the last pass left, given back
			if rss = rss && resetPeakRSS(); rss {
				now, _, _ := residentSet()
				before = append(before, now)
			}
			return nil
		},
		op: func(ctx context.Context, _ int) error {
			refused = map[string]string{}
			for _, f := range files {
				_, err := st.call(ctx, f.body)
				var rerr *rpcError
				switch {
				case errors.As(err, &rerr) && rerr.Code == int(gatewayv1.ErrorCode_ERROR_CODE_INVALID_PARAMS):
					refused[f.name] = rerr.Message
				case err != nil:
					return fmt.Errorf("document.import %s: %w", f.name, err)
				}
			}
			if rss {
				_, peak, _ := residentSet()
				peaks = append(peaks, peak)
			}
			return nil
		},
	}
	var loads []corpusLoad
	baseline := &contender{
		name: "ezdxf loading every file, one child process, timed in it", unit: "pass",
		op: func(ctx context.Context, _ int) error {
			_, out, err := py.run(ctx, corpusScript, paths...)
			if err != nil {
				return err
			}
			var l corpusLoad
			if err := json.Unmarshal([]byte(lastLine(out)), &l); err != nil {
				return fmt.Errorf("ezdxf corpus child: %w", err)
			}
			loads = append(loads, l)
			return nil
		},
	}
	e.ready()
	const warmup = 1
	b, s, err := compare(ctx, rounds, warmup, baseline, subject)
	if err != nil {
		return err
	}
	loads = loads[warmup:]
	if rss {
		before, peaks = before[warmup:], peaks[warmup:]
	}
	lat := make([]time.Duration, len(loads))
	var childRSS []int64
	for i, l := range loads {
		lat[i] = time.Duration(l.Seconds * float64(time.Second))
		childRSS = append(childRSS, l.MaxRSSKiB<<10)
	}
	child := (&sample{lat: lat}).side(baseline)
	child.AllocsPerOp, child.ReadsPerOp, child.WritesPerOp = b.AllocsPerOp, b.ReadsPerOp, b.WritesPerOp
	row.Baseline, row.Subject = &child, &s
	row.Checks = []Check{
		info("speed-up", "speed-up, p50 of ezdxf loading the files ÷ p50 of importing them (higher is better)", ratio(float64(child.P50), float64(s.P50)), "x"),
	}
	last := loads[len(loads)-1]
	row.Notes = []string{
		fmt.Sprintf("No goal is set for this row: its figures are for reading. The files are %s: %s", dir, corpusChoice(len(files), all)),
		fmt.Sprintf("cadbridge: each pass imports the files one after another, each a JSON-RPC request made once and POSTed to the gateway's /rpc (read limit 64 MiB), into a fresh engine on SQLite (setup untimed); every file becomes a document, committed, and the engine keeps every document in memory. %s A refused file counts all the same: its import is attempted and timed.", refusedNote(refused, len(files))),
		fmt.Sprintf("ezdxf %s (%s): one child process per pass loads every file as the corpus's oracle.py does (ezdxf.readfile, then ezdxf.recover.readfile if that raises), keeping every document as the engine does; the time is the loading as the child measures it (time.perf_counter: the interpreter's start and `import ezdxf` not counted). In the last pass %d files needed recovery and %d did not load%s.",
			py.version, py.path, last.Recovered, len(last.Failed), listNames(": ", last.Failed)),
	}
	if notUTF8 > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d of the files are not UTF-8 (older code pages): they travel read as Latin-1, a character a byte, and the engine decodes them by their $DWGCODEPAGE; ezdxf reads the bytes.", notUTF8))
	}
	if rss && len(peaks) > 0 && len(before) > 0 {
		peak, start := slices.Max(peaks), slices.Max(before)
		row.Checks = append(row.Checks, info("peak-rss-mib", "peak resident set while importing, MiB (engine, gateway and client in one process)", float64(peak)/(1<<20), "MiB"))
		row.Notes = append(row.Notes, fmt.Sprintf("Memory: the process held %s as a pass began (a fresh engine and gateway, after a collection that gave freed memory back to the system) and peaked at %s (VmHWM, reset as each pass began; the most of %d passes): %s more. The ezdxf child peaked at %s (ru_maxrss, the interpreter included).",
			mib(start), mib(peak), len(peaks), mib(peak-start), mib(slices.Max(childRSS))))
	} else {
		row.Notes = append(row.Notes, "The kernel does not tell the process's peak resident set here (Linux's /proc/self/clear_refs and VmHWM): no memory figure.")
	}
	return nil
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// corpusChoice says which of the corpus's files a pass takes.
func corpusChoice(n, all int) string {
	if n == all {
		return fmt.Sprintf("all %d, in name order.", all)
	}
	return fmt.Sprintf("%d of the %d, spread evenly over the name order (the full run takes all).", n, all)
}

// refusedNote says how many files the engine refused, and which.
func refusedNote(refused map[string]string, n int) string {
	if len(refused) == 0 {
		return fmt.Sprintf("None of the %d files was refused.", n)
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(refused)) {
		msg := strings.TrimPrefix(refused[name], "invalid params: ")
		if r := []rune(msg); len(r) > 100 {
			msg = string(r[:100]) + "…"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", name, msg))
	}
	return fmt.Sprintf("%d of the %d files were refused (4000 invalid params): %s.", len(refused), n, strings.Join(parts, "; "))
}

// listNames is prefix and the names, or "" for none.
func listNames(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return prefix + strings.Join(names, ", ")
}

// corpusFiles reads n of the files in dir (all when n is 0 or more than
// there are), spread evenly over their name order, and makes their
// requests; all is how many there are.
func corpusFiles(dir string, n int) (files []corpusFile, all int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	for _, ent := range entries {
		if ent.Type().IsRegular() && strings.EqualFold(filepath.Ext(ent.Name()), ".dxf") {
			names = append(names, ent.Name())
		}
	}
	slices.Sort(names)
	all = len(names)
	if all == 0 {
		return nil, 0, fmt.Errorf("no .dxf files in %s", dir)
	}
	if n <= 0 || n > all {
		n = all
	}
	for i := range n {
		name := names[i*all/n]
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, corpusFile{
			name: name, path: path, size: len(data), utf8: utf8.Valid(data),
			body: rpcRequest(gatewayv1.MethodDocumentImport, obj{"format": "dxf", "name": strings.TrimSuffix(name, filepath.Ext(name)), "content": dxftest.Text(data)}),
		})
	}
	return files, all, nil
}

// corpusDir is the shared corpus of DXF files: Config.Corpus, or
// ../shared/dxfcorpus/files from the root of the cadbridge module, found
// above the working directory (go run and go test run inside the module)
// or, failing that, above this source file. ok is false, with the place
// looked at first, when there is none.
func (e *env) corpusDir() (dir string, ok bool) {
	if e.cfg.Corpus != "" {
		fi, err := os.Stat(e.cfg.Corpus)
		return e.cfg.Corpus, err == nil && fi.IsDir()
	}
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, moduleRoot(wd))
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		roots = append(roots, moduleRoot(filepath.Dir(file)))
	}
	first := ""
	for _, root := range roots {
		if root == "" {
			continue
		}
		dir := filepath.Join(filepath.Dir(root), "shared", "dxfcorpus", "files")
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir, true
		}
		if first == "" {
			first = dir
		}
	}
	if first == "" {
		return "../shared/dxfcorpus/files (no cadbridge module above the working directory)", false
	}
	return first, false
}

// moduleRoot is the directory, dir or above it, whose go.mod declares the
// cadbridge module, or "".
func moduleRoot(dir string) string {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for line := range strings.Lines(string(data)) {
				if strings.TrimSpace(line) == "module github.com/cadbridge/cadbridge" {
					return dir
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/internal/proctest"
)

// importReport is the import report as document.import answers it.
type importReport struct {
	DocumentID string `json:"document_id"`
	Report     struct {
		Entities map[string]struct {
			Imported  int64 `json:"imported"`
			Preserved int64 `json:"preserved"`
			Dropped   int64 `json:"dropped"`
		} `json:"entities"`
		Dropped []struct {
			Type   string `json:"type"`
			Count  int64  `json:"count"`
			Reason string `json:"reason"`
		} `json:"dropped"`
	} `json:"report"`
}

// readsWhatEzdxfRefuses are the corpus files ezdxf cannot read that the
// engine reads on purpose (see the dxf package's corpus test).
var readsWhatEzdxfRefuses = map[string]bool{"jscad__sample-files__dxf__jscad__circle10.dxf": true}

// auditScript opens each DXF file named on the command line with ezdxf,
// audits it and prints, per file, one JSON line: its audit errors and the
// model space's entities by type.
const auditScript = `
import sys, json, collections, ezdxf
for path in sys.argv[1:]:
    out = {"path": path}
    try:
        doc = ezdxf.readfile(path)
        out["errors"] = [e.message for e in doc.audit().errors]
        out["types"] = collections.Counter(e.dxftype() for e in doc.modelspace())
    except Exception as e:
        out["load"] = str(e)
    print(json.dumps(out))
`

// TestCorpusImport imports every file of the corpus of real drawings
// through the built gateway and engine (POST document.import, the text of
// a file in a legacy code page read as Latin-1), and holds each to what
// ezdxf reads in it: a file ezdxf cannot read answers 4000 naming the
// line; every other file imports with every entity of its model and paper
// space accounted for by type (native, preserved, or dropped with a
// reason); and its DXF export opens in ezdxf without audit errors.
func TestCorpusImport(t *testing.T) {
	files := dxftest.CorpusFiles(t)
	engine := proctest.StartEngine(t, "127.0.0.1:0", "memory:")
	gateway := proctest.StartGateway(t, "127.0.0.1:0", engine.Addr, "--read-limit", "16777216")
	c := &httpClient{url: "http://" + gateway.Addr + "/rpc"}
	dir := t.TempDir()
	var exported []string
	for i, cf := range files {
		resp := call(t, c, i+1, "document.import", map[string]any{"name": cf.Name, "format": "dxf", "content": dxftest.Text(cf.Data)})
		if !cf.Oracle.Loads && !readsWhatEzdxfRefuses[cf.Name] {
			if resp.Error == nil || resp.Error.Code != 4000 || !strings.Contains(resp.Error.Message, "line") {
				t.Errorf("%s: ezdxf cannot read it; document.import = %s %+v, want 4000 naming the line", cf.Name, resp.Result, resp.Error)
			}
			continue
		}
		if resp.Error != nil {
			t.Errorf("%s: document.import = %d %s; ezdxf reads it (%s)", cf.Name, resp.Error.Code, resp.Error.Message, cf.Oracle.LoadMode)
			continue
		}
		var got importReport
		if err := json.Unmarshal(resp.Result, &got); err != nil {
			t.Fatalf("%s: %v", cf.Name, err)
		}
		for typ, n := range cf.Oracle.Modelspace {
			n += cf.Oracle.Paperspace[typ]
			c := got.Report.Entities[typ]
			if c.Imported+c.Preserved+c.Dropped < int64(n) {
				t.Errorf("%s: %s: %d native, %d preserved, %d dropped; ezdxf reads %d", cf.Name, typ, c.Imported, c.Preserved, c.Dropped, n)
			}
		}
		for _, d := range got.Report.Dropped {
			if d.Reason == "" {
				t.Errorf("%s: %d %s dropped without a reason", cf.Name, d.Count, d.Type)
			}
		}
		var export struct {
			Content string `json:"content"`
		}
		mustCall(t, c, 1000+i, "document.export", map[string]any{"document_id": got.DocumentID, "format": "dxf"}, &export)
		path := filepath.Join(dir, cf.Name)
		if err := os.WriteFile(path, []byte(export.Content), 0o644); err != nil {
			t.Fatal(err)
		}
		exported = append(exported, path)
	}

	py := ezdxftest.Python(t)
	if py == "" {
		return
	}
	out, err := exec.Command(py, append([]string{"-c", auditScript}, exported...)...).Output()
	if err != nil {
		t.Fatalf("ezdxf: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Path   string
			Load   string
			Errors []string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("ezdxf said %q: %v", line, err)
		}
		if r.Load != "" || len(r.Errors) > 0 {
			t.Errorf("%s: the export does not open cleanly in ezdxf: %s %q", filepath.Base(r.Path), r.Load, r.Errors)
		}
	}
}

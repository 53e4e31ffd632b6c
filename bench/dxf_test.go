package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
	"github.com/cadbridge/cadbridge/services/cadengine/store"
	"github.com/cadbridge/cadbridge/services/cadengine/store/memory"
)

// stored is what a memory store holds of its one document.
func stored(t *testing.T, st store.Store) (store.DocumentRecord, []store.EntityRecord) {
	t.Helper()
	var (
		doc  store.DocumentRecord
		ents []store.EntityRecord
		n    int
	)
	err := st.Load(context.Background(), func(d *store.DocumentRecord, e []store.EntityRecord) error {
		doc, ents, n = *d, e, n+1
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("Load = %d documents, %v; want 1", n, err)
	}
	return doc, ents
}

// TestFloorMakesWhatBatchCreateMakes holds batch-create's floor to the
// path it is the floor of: the store must hold the same entities, byte
// for byte, and the same content hash and layer counts, after
// createFloor as after an entity_batch_create of the same lines.
func TestFloorMakesWhatBatchCreateMakes(t *testing.T) {
	const n = 1000
	ctx := context.Background()
	floor := memory.New()
	if err := createFloor(ctx, floor, n); err != nil {
		t.Fatalf("createFloor: %v", err)
	}

	st := memory.New()
	eng, err := engine.New(st, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	info, err := eng.CreateDocument(ctx, &enginev1.CreateDocumentRequest{})
	if err != nil {
		t.Fatal(err)
	}
	doc := info.GetDocumentId()
	if err := okCall(eng.CallTool(ctx, engine.Caller{Principal: principal}, &enginev1.CallToolRequest{
		DocumentId: &doc, Tool: enginev1.ToolEntityBatchCreate, ArgsJson: batchCreateArgs(n),
	})); err != nil {
		t.Fatal(err)
	}

	fd, fe := stored(t, floor)
	bd, be := stored(t, st)
	if len(fe) != n || len(be) != n {
		t.Fatalf("stored entities: floor %d, entity_batch_create %d; want %d each", len(fe), len(be), n)
	}
	for i := range fe {
		if fe[i].Handle != be[i].Handle || !bytes.Equal(fe[i].Data, be[i].Data) {
			t.Fatalf("entity %d: floor %x %q, entity_batch_create %x %q", i, fe[i].Handle, fe[i].Data, be[i].Handle, be[i].Data)
		}
	}
	if fd.ContentHash != bd.ContentHash || fd.NextHandle != bd.NextHandle || len(fd.Layers) != len(bd.Layers) ||
		*fd.Layers[0].Entities != *bd.Layers[0].Entities {
		t.Errorf("document row: floor %+v, entity_batch_create %+v", fd, bd)
	}
}

// TestDXFRowsWithoutEzdxf checks that the DXF rows say why they cannot run
// without ezdxf: skipped outside CI, failed under CI=true.
func TestDXFRowsWithoutEzdxf(t *testing.T) {
	only := []string{"dxf-import", "dxf-export", "corpus-import"}
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			sizes := TinySizes()
			rep, err := Run(context.Background(), Config{Sizes: &sizes, Only: only, Python: filepath.Join(t.TempDir(), "python3")})
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rep.Rows {
				why := row.Skipped
				if ci == "true" {
					why = row.Error
				}
				// corpus-import looks for the corpus first.
				if !strings.Contains(why, "cannot import ezdxf") && !strings.Contains(why, "no DXF corpus") {
					t.Errorf("%s: skipped %q, error %q; want the missing ezdxf as the %s", row.Name, row.Skipped, row.Error, map[string]string{"": "skip", "true": "error"}[ci])
				}
			}
		})
	}
}

// TestCorpusAbsent checks that corpus-import skips itself, saying where it
// looked, when there is no corpus, except under CI=true.
func TestCorpusAbsent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "files")
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		sizes := TinySizes()
		rep, err := Run(context.Background(), Config{Sizes: &sizes, Only: []string{"corpus-import"}, Corpus: dir})
		if err != nil {
			t.Fatal(err)
		}
		row := rep.Rows[0]
		got, other := row.Skipped, row.Error
		if ci == "true" {
			got, other = row.Error, row.Skipped
		}
		if !strings.Contains(got, "no DXF corpus at "+dir) || other != "" {
			t.Errorf("CI=%q: corpus-import skipped %q, error %q; want the missing %s as the %s", ci, row.Skipped, row.Error, dir, map[string]string{"": "skip", "true": "error"}[ci])
		}
	}
}

// TestCorpusFiles checks the choice of a quick run's files: spread over
// the name order, .dxf files only.
func TestCorpusFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.dxf", "b.DXF", "c.dxf", "d.dxf", "e.dxf", "f.dxf", "notes.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("0\nEOF\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "a.dxf b.DXF c.dxf d.dxf e.dxf f.dxf"}, {3, "a.dxf c.dxf e.dxf"}, {9, "a.dxf b.DXF c.dxf d.dxf e.dxf f.dxf"}} {
		files, all, err := corpusFiles(dir, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range files {
			names = append(names, f.name)
		}
		if got := strings.Join(names, " "); got != tc.want || all != 6 {
			t.Errorf("corpusFiles(%d) = %s of %d, want %s of 6", tc.n, got, all, tc.want)
		}
	}
}

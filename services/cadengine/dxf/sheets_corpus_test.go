package dxf

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// TestCorpusLayouts imports every corpus file ezdxf reads: each layout
// ezdxf finds entities on is in the document's layout table (ignoring
// case), every layout of the table is on a plausible paper (between 50
// mm and 5 m a side), and every entity of paper space is on a layout of
// the table. With -v it logs the layouts of each file with paper-space
// entities.
func TestCorpusLayouts(t *testing.T) {
	files := 0
	var log strings.Builder
	for _, cf := range dxftest.CorpusFiles(t) {
		if !cf.Oracle.Loads {
			continue
		}
		paper := 0
		for _, n := range cf.Oracle.Layouts {
			paper += n
		}
		if paper > 0 {
			files++
		}
		t.Run(cf.Name, func(t *testing.T) {
			f, err := ReadBytes(cf.Data)
			if err != nil {
				t.Fatal(err)
			}
			d := drawing.NewDocument("doc-c", "corpus", f.Units, time.Time{})
			if err := f.Build(d); err != nil {
				t.Fatal(err)
			}
			table := d.Layouts()
			if table == nil {
				if paper > 0 {
					t.Fatalf("no layout table; ezdxf reads layouts %v", cf.Oracle.Layouts)
				}
				return
			}
			if paper > 0 {
				fmt.Fprintf(&log, "%s:", cf.Name)
			}
			for _, l := range table.List {
				if paper > 0 {
					fmt.Fprintf(&log, " %q %s %.1fx%.1f;", l.Name, l.Paper, l.Width, l.Height)
				}
				if min(l.Width, l.Height) < 50 || max(l.Width, l.Height) > 5000 {
					t.Errorf("layout %q on %g × %g mm: not a plausible paper", l.Name, l.Width, l.Height)
				}
			}
			if paper > 0 {
				log.WriteString("\n")
			}
			for name, n := range cf.Oracle.Layouts {
				if n > 0 && table.Index(name) < 0 {
					t.Errorf("ezdxf's layout %q is not in the table %+v", name, table.List)
				}
			}
			for _, e := range d.Entities() {
				if e.Layout != "" && table.Index(e.Layout) < 0 {
					t.Errorf("entity on layout %q, which the table lacks", e.Layout)
					break
				}
			}
		})
	}
	if n := len(dxftest.CorpusFiles(t)); n > 0 && files < 28 {
		t.Errorf("%d corpus files with paper-space entities, want the corpus's 28", files)
	}
	if testing.Verbose() {
		t.Logf("%d files with paper space:\n%s", files, log.String())
	}
}

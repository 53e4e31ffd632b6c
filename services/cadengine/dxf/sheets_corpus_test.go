package dxf

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// knownPapers are the papers of a few corpus layouts, as their files'
// plot settings say: a letter sheet turned a quarter (73 = 1) to lie
// landscape, an A4 portrait sheet, a 36 × 24 in sheet no standard names.
var knownPapers = map[string]map[string]drawing.Layout{
	"LibreDWG__libredwg__test__test-data__example_2000.dxf":     {"Layout1": {Paper: "ANSI_A", Width: 279.4, Height: 215.9}},
	"mozman__ezdxf__integration_tests__data__recover02.dxf":     {"ISO A4 Size": {Paper: "A4", Width: 210, Height: 297}},
	"jscad__sample-files__dxf__autocad2017__2Dellipses.dxf":     {"Generic 24in x 36in Title Block": {Width: 914.4, Height: 609.6}},
	"LibreDWG__libredwg__test__test-data__2000__PolyLine2D.dxf": {"A0": {Paper: "A0", Width: 1189, Height: 841}, "A4": {Paper: "A4", Width: 210, Height: 297}},
}

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
			for name, want := range knownPapers[cf.Name] {
				if i := table.Index(name); i < 0 || table.List[i].Paper != want.Paper || math.Abs(table.List[i].Width-want.Width) > 1e-3 || math.Abs(table.List[i].Height-want.Height) > 1e-3 {
					t.Errorf("layout %q = %+v, want %s %g × %g", name, table.List, want.Paper, want.Width, want.Height)
				}
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

package dxf

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/dxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// readsWhatEzdxfRefuses are the corpus files ezdxf cannot read that the
// engine reads on purpose, and why.
var readsWhatEzdxfRefuses = map[string]string{
	// Its LWPOLYLINE has no AcDbPolyline subclass marker, which ezdxf
	// requires; its codes say a closed polyline all the same.
	"jscad__sample-files__dxf__jscad__circle10.dxf": "an LWPOLYLINE without its subclass marker",
}

// TestCorpus reads every file of the corpus of real drawings as the
// engine imports them and holds each to what ezdxf reads in it: a file
// ezdxf cannot read at all is a *Error naming the line (but for
// readsWhatEzdxfRefuses); every other file is read, and every entity of
// its model and paper space is accounted for, by type: native, preserved,
// or dropped with a reason (DESIGN §10). With -v it logs the totals by
// type.
func TestCorpus(t *testing.T) {
	totals := map[string]*enginev1.ImportCounts{}
	oracleTotals := map[string]int{}
	for _, cf := range dxftest.CorpusFiles(t) {
		t.Run(cf.Name, func(t *testing.T) {
			f, err := ReadBytes(cf.Data)
			if why := readsWhatEzdxfRefuses[cf.Name]; why != "" {
				if cf.Oracle.Loads || err != nil {
					t.Fatalf("ReadBytes = %v; ezdxf loads it: %v; want the engine to read what ezdxf refuses (%s)", err, cf.Oracle.Loads, why)
				}
				return
			}
			if !cf.Oracle.Loads {
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("ReadBytes = %v, want a *Error: ezdxf cannot read the file either", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadBytes: %v (ezdxf reads it, %s)", err, cf.Oracle.LoadMode)
			}
			d := drawing.NewDocument("doc-c", "corpus", f.Units, time.Time{})
			if err := f.Build(d); err != nil {
				t.Fatalf("Build: %v", err)
			}
			rep := f.Report()
			want := map[string]int{}
			for k, n := range cf.Oracle.Modelspace {
				want[k] += n
			}
			for k, n := range cf.Oracle.Paperspace {
				want[k] += n
			}
			for k, n := range want {
				oracleTotals[k] += n
				c := rep.Entities[k]
				if got := c.GetImported() + c.GetPreserved() + c.GetDropped(); got < int64(n) {
					t.Errorf("%s: %d native, %d preserved, %d dropped; ezdxf reads %d in model and paper space", k, c.GetImported(), c.GetPreserved(), c.GetDropped(), n)
				}
			}
			for k, c := range rep.Entities {
				if totals[k] == nil {
					totals[k] = &enginev1.ImportCounts{}
				}
				totals[k].Imported += c.Imported
				totals[k].Preserved += c.Preserved
				totals[k].Dropped += c.Dropped
			}
			for _, dr := range rep.Dropped {
				if dr.Reason == "" {
					t.Errorf("%d %s dropped without a reason", dr.Count, dr.Type)
				}
			}
		})
	}
	if testing.Verbose() {
		t.Log("\n" + countsTable(totals, oracleTotals))
	}
}

// countsTable is a Markdown table of the counts by type, beside ezdxf's.
func countsTable(totals map[string]*enginev1.ImportCounts, oracle map[string]int) string {
	keys := make([]string, 0, len(totals))
	for k := range totals {
		keys = append(keys, k)
	}
	for k := range oracle {
		if totals[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("| type | ezdxf | native | preserved | dropped |\n|---|---|---|---|---|\n")
	var sum [4]int64
	for _, k := range keys {
		c := totals[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", k, oracle[k], c.GetImported(), c.GetPreserved(), c.GetDropped())
		sum[0] += int64(oracle[k])
		sum[1] += c.GetImported()
		sum[2] += c.GetPreserved()
		sum[3] += c.GetDropped()
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d |\n", sum[0], sum[1], sum[2], sum[3])
	return b.String()
}

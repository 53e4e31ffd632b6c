package dxf

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// mtexts are the document's MTEXTs, in order.
func mtexts(d *drawing.Document) []drawing.MText {
	gs, _ := geomOf[drawing.MText](d)
	return gs
}

// An R2013 MTEXT of static columns (as AutoCAD writes it): the column
// info in ACAD's extended data, the second column an MTEXT of its own
// (handle 71) and each column's frame an LWPOLYLINE (6E, 6F). The engine
// reads one MTEXT of two columns whose text is both columns' (the break
// kept), and leaves the second MTEXT and the frames out.
func TestReadMTextColumnsXdata(t *testing.T) {
	const file = "0|SECTION|2|ENTITIES|" +
		"0|MTEXT|5|2D|100|AcDbEntity|8|0|100|AcDbMText|10|0|20|0|30|0|40|1|41|20|46|10|71|1|72|1|1|one\\N|73|1|44|1|90|17|63|9|45|1.5|" +
		"1001|ACAD|1000|ACAD_MTEXT_TEXT_BORDERS_BEGIN|1070|80|1070|17|1005|6E|1005|6F|1000|ACAD_MTEXT_TEXT_BORDERS_END|" +
		"1000|ACAD_MTEXT_COLUMN_INFO_BEGIN|1070|75|1070|1|1070|79|1070|0|1070|76|1070|2|1070|78|1070|0|1070|48|1040|20|1070|49|1040|2|1000|ACAD_MTEXT_COLUMN_INFO_END|" +
		"1000|ACAD_MTEXT_COLUMNS_BEGIN|1070|47|1070|2|1005|71|1000|ACAD_MTEXT_COLUMNS_END|" +
		"1000|ACAD_MTEXT_DEFINED_HEIGHT_BEGIN|1070|46|1040|10|1000|ACAD_MTEXT_DEFINED_HEIGHT_END|" +
		"0|LWPOLYLINE|5|6E|100|AcDbEntity|8|0|100|AcDbPolyline|90|4|70|1|10|-0.5|20|0.5|10|-0.5|20|-10.5|10|20.5|20|-10.5|10|20.5|20|0.5|" +
		"0|LWPOLYLINE|5|6F|100|AcDbEntity|8|0|100|AcDbPolyline|90|4|70|1|10|21.5|20|0.5|10|21.5|20|-10.5|10|42.5|20|-10.5|10|42.5|20|0.5|" +
		"0|MTEXT|5|71|100|AcDbEntity|8|0|100|AcDbMText|10|22|20|0|30|0|40|1|41|42|46|10|71|1|72|1|1|two|73|1|44|1|90|1|63|9|45|1.5|" +
		"0|ENDSEC|0|EOF|"
	d, f, err := importFile(strings.ReplaceAll(file, "|", "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Entities()); n != 1 {
		t.Fatalf("read %d entities, want 1 (the MTEXT)", n)
	}
	got := mtexts(d)[0]
	want := &drawing.Columns{Count: 2, Width: 20, Gutter: 2, Height: 10}
	if got.Text != "one"+drawing.ColumnBreak+"two" || !reflect.DeepEqual(got.Columns, want) {
		t.Errorf("MTEXT = %q, columns %+v, want %q, %+v", got.Text, got.Columns, "one\\ftwo", want)
	}
	dropped := map[string]int64{}
	for k, c := range f.Report().Entities {
		dropped[k] = c.Dropped
	}
	if dropped["MTEXT"] != 1 || dropped["LWPOLYLINE"] != 2 {
		t.Errorf("dropped %v, want 1 MTEXT and 2 LWPOLYLINEs", dropped)
	}
}

// An R2018 MTEXT's embedded object is its columns; the R2018 export
// writes them back: the engine and ezdxf read the same columns, and
// ezdxf the same text (the column break as \N).
func TestMTextColumnsRoundTrip(t *testing.T) {
	const file = "0|SECTION|2|ENTITIES|" +
		"0|MTEXT|5|549|100|AcDbEntity|8|0|100|AcDbMText|10|5|20|6|30|0|40|100|41|2834.6|46|0|71|1|72|5|1|Exploded\\PThe Wipeout\\N|73|1|44|1|" +
		"101|Embedded Object|70|1|10|1|20|0|30|0|11|5|21|6|31|0|40|2834.6|41|0|42|2834.6|43|462.7|71|2|72|2|44|1416.8|45|1|73|0|74|0|46|0|46|0|" +
		"0|ENDSEC|0|EOF|"
	d, err := importText(strings.ReplaceAll(file, "|", "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &drawing.Columns{Dynamic: true, Count: 2, Width: 1416.8, Gutter: 1, Heights: []float64{0, 0}}
	got := mtexts(d)
	if len(got) != 1 || got[0].Text != "Exploded\nThe Wipeout"+drawing.ColumnBreak || !reflect.DeepEqual(got[0].Columns, want) {
		t.Fatalf("read %+v, want one MTEXT of columns %+v", got, want)
	}

	out := drawing.NewDocument("doc-0000000000000003", "columns", enginev1.Units_UNITS_MM, time.Time{})
	static := drawing.MText{Text: "a b c" + drawing.ColumnBreak + "d", P: geom.Pt(0, 0), Height: 1, Width: 64, Attach: 1, Spacing: 1,
		Columns: &drawing.Columns{Count: 3, Width: 20, Gutter: 2, Height: 100}}
	auto := drawing.MText{Text: "e f", P: geom.Pt(100, 0), Height: 1, Width: 20, Attach: 1, Spacing: 1,
		Columns: &drawing.Columns{Dynamic: true, AutoHeight: true, Width: 20, Gutter: 2, Height: 5}}
	for _, g := range []drawing.Geometry{got[0], static, auto} {
		out.Add(&drawing.Entity{Layer: "0", Color: 256, Linetype: "ByLayer", Geom: g})
	}
	content := Write2018(out)
	back, err := importText(content)
	if err != nil {
		t.Fatal(err)
	}
	again := mtexts(back)
	for i, g := range mtexts(out) {
		// Dynamic columns of automatic height write no count (72 0).
		if i == 2 {
			g.Columns.Count = 0
		}
		if i >= len(again) || again[i].Text != g.Text || !reflect.DeepEqual(again[i].Columns, g.Columns) {
			t.Errorf("MTEXT %d read back as %+v, want %+v", i, again, g)
		}
	}
	ezdxftest.Audit(t, content)
	script := `
import sys, json, ezdxf
doc = ezdxf.readfile(sys.argv[1])
out = []
for e in doc.modelspace().query("MTEXT"):
    c = e.columns
    out.append({"text": e.text, "type": int(c.column_type), "count": c.count, "width": c.width, "gutter": c.gutter_width,
                "height": c.defined_height, "auto": c.auto_height, "heights": c.heights})
print(json.dumps(out))
`
	res := ezdxftest.Run(t, script, ezdxftest.File(t, "columns.dxf", content))
	if res == "" {
		return // no ezdxf outside CI
	}
	type cols struct {
		Text          string
		Type, Count   int
		Width, Gutter float64
		Height        float64
		Auto          bool
		Heights       []float64
	}
	var read []cols
	if err := json.Unmarshal([]byte(res), &read); err != nil {
		t.Fatalf("ezdxf printed %s: %v", res, err)
	}
	wantEzdxf := []cols{
		{Text: `Exploded\PThe Wipeout\N`, Type: 2, Count: 2, Width: 1416.8, Gutter: 1, Heights: []float64{0, 0}},
		{Text: `a b c\Nd`, Type: 1, Count: 3, Width: 20, Gutter: 2, Height: 100, Heights: []float64{}},
		// ezdxf counts columns of automatic height from the total width.
		{Text: "e f", Type: 2, Count: 1, Width: 20, Gutter: 2, Height: 5, Auto: true, Heights: []float64{}},
	}
	if !reflect.DeepEqual(read, wantEzdxf) {
		t.Errorf("ezdxf reads %+v,\nwant %+v", read, wantEzdxf)
	}
}

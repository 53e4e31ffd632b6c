package engine_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// importInto imports a DXF file into a new document of f's engine and
// returns a fixture on it and the import's result.
func (f *fixture) importDXF(content string) (*fixture, obj) {
	f.t.Helper()
	imp := callTool(f.t, f.e, "", enginev1.ToolDocumentImport, obj{"format": "dxf", "content": content})
	if !imp.Ok {
		f.t.Fatalf("import: %v", imp.Error)
	}
	res := resultObj(imp.ResultJson)
	return &fixture{t: f.t, e: f.e, doc: res["document"].(obj)["document_id"].(string)}, res
}

// exportDXF is f's document as a 2018 DXF file.
func (f *fixture) exportDXF() string {
	f.t.Helper()
	return f.ok(enginev1.ToolDocumentExport, obj{"format": "dxf"})["content"].(string)
}

// constraintShapes are f's constraints as "id kind refs value" lines,
// the refs' handles replaced by what names maps them to.
func (f *fixture) constraintShapes(names map[string]string) []string {
	f.t.Helper()
	var out []string
	for _, c := range f.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any) {
		m := c.(obj)
		var refs []string
		for _, r := range m["refs"].([]any) {
			r := r.(obj)
			s := names[r["handle"].(string)]
			if s == "" {
				s = "?" + r["handle"].(string)
			}
			if p, ok := r["point"].(string); ok {
				s += ":" + p
			}
			refs = append(refs, s)
		}
		out = append(out, js([]any{m["constraint_id"], m["kind"], refs, m["value"]}))
	}
	return out
}

// importWarnings are the import report's warning messages.
func importWarnings(res obj) []string {
	var out []string
	rep, _ := res["report"].(obj)
	ws, _ := rep["warnings"].([]any)
	for _, w := range ws {
		out = append(out, w.(obj)["message"].(string))
	}
	return out
}

// TestConstraintsTravelInDXF exports a constrained rectangle, imports the
// file into a new document and finds the same constraints on the
// imported lines, the sketch solved with no freedom left, and a driving
// value that still resizes it.
func TestConstraintsTravelInDXF(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	before := f.ok(enginev1.ToolSketchSolve, obj{"dry_run": true})
	names := map[string]string{s[0]: "bottom", s[1]: "right", s[2]: "top", s[3]: "left"}
	want := f.constraintShapes(names)
	content := f.exportDXF()
	if n := strings.Count(content, "CADBRIDGE_CONSTRAINTS"); n != 2 {
		t.Errorf("the export names CADBRIDGE_CONSTRAINTS %d times, want 2 (the dictionary entry and the record's marker)", n)
	}
	if counts := ezdxftest.Audit(t, content); counts != nil && counts["LINE"] != 4 {
		t.Errorf("ezdxf reads %v, want the 4 lines", counts)
	}

	g, res := f.importDXF(content)
	if ws := importWarnings(res); len(ws) != 0 {
		t.Errorf("import warnings %q, want none", ws)
	}
	// The imported lines, by where they are: the sides of the exact
	// rectangle.
	imported := map[string]string{}
	for _, x := range g.ok(enginev1.ToolEntityList, obj{})["entities"].([]any) {
		m := x.(obj)
		a, b := pt(m["start"]), pt(m["end"])
		for h, name := range names {
			if ea, eb := f.ends(h); closePt(a, ea) && closePt(b, eb) {
				imported[m["handle"].(string)] = name
			}
		}
	}
	if len(imported) != 4 {
		t.Fatalf("the imported lines are %v, want the four sides", imported)
	}
	if got := g.constraintShapes(imported); js(got) != js(want) {
		t.Errorf("imported constraints\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	after := g.ok(enginev1.ToolSketchSolve, obj{"dry_run": true})
	if after["status"] != "solved" || after["dof"] != before["dof"] || after["moved"] != nil {
		t.Errorf("sketch_solve on the import = %s, want %s (solved, nothing moves)", js(after), js(before))
	}
	g.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": 10, "value": 150})
	var sides [4]string
	for h, name := range imported {
		sides[map[string]int{"bottom": 0, "right": 1, "top": 2, "left": 3}[name]] = h
	}
	g.corners(sides, 150, 80)

	// Exported again, the file names the imported handles.
	again := g.exportDXF()
	if !strings.Contains(again, "CADBRIDGE_CONSTRAINTS") {
		t.Errorf("the imported document's export lost its constraints")
	}
}

// TestConstraintsInDXFSurviveEzdxf reads the export with ezdxf, saves it
// as ezdxf writes files, and imports that: the constraints come back.
func TestConstraintsInDXFSurviveEzdxf(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	const resave = `
import sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
doc.saveas(sys.argv[2])
print(open(sys.argv[2]).read())
`
	in := ezdxftest.File(t, "in.dxf", f.exportDXF())
	out := ezdxftest.Run(t, resave, in, in+".out.dxf")
	if out == "" {
		return // no ezdxf outside CI
	}
	g, res := f.importDXF(out)
	if ws := importWarnings(res); len(ws) != 0 {
		t.Errorf("import warnings %q, want none", ws)
	}
	list := g.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any)
	if len(list) != 11 {
		t.Fatalf("%d constraints after ezdxf saved the file, want 11", len(list))
	}
	if res := g.ok(enginev1.ToolSketchSolve, obj{"dry_run": true}); res["status"] != "solved" || res["moved"] != nil {
		t.Errorf("sketch_solve = %s, want solved, nothing moved", js(res))
	}
	_ = s
}

// TestConstraintsInDXFMissingEntity imports a file whose constraints
// name an entity another program deleted, and one of a kind the engine
// does not know: both are dropped with a warning, the others kept.
func TestConstraintsInDXFMissingEntity(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	content := f.exportDXF()
	// Delete the top line (s[2]) from the file as another program would,
	// and rename the kind of constraint 6 (the bottom's horizontal).
	top := regexp.MustCompile(`(?s)\n  0\nLINE\n  5\n` + s[2] + `\n.*?\n  0\n`)
	cut := top.ReplaceAllString(content, "\n  0\n")
	if cut == content {
		t.Fatalf("the export has no LINE %s", s[2])
	}
	cut = strings.Replace(cut, " 92\n     6\n  1\nhorizontal\n", " 92\n     6\n  1\nlevel\n", 1)
	g, res := f.importDXF(cut)
	ws := importWarnings(res)
	if len(ws) != 4 {
		t.Errorf("import warnings %q, want 4 (the three constraints of the top line and the unknown kind)", ws)
	}
	for _, want := range []string{"constraint 3 (coincident) names the entity " + s[2], "constraint 4 (coincident) names the entity " + s[2], "constraint 7 (horizontal) names the entity " + s[2], `constraint 6 is of kind "level"`} {
		if !slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning says %q: %q", want, ws)
		}
	}
	var ids []float64
	for _, c := range g.ok(enginev1.ToolConstraintList, obj{})["constraints"].([]any) {
		ids = append(ids, c.(obj)["constraint_id"].(float64))
	}
	if js(ids) != js([]float64{1, 2, 5, 8, 9, 10, 11}) {
		t.Errorf("constraints kept %v, want 1, 2, 5, 8, 9, 10, 11", ids)
	}
	if res := g.ok(enginev1.ToolSketchSolve, obj{"dry_run": true}); res["status"] != "under_constrained" {
		t.Errorf("sketch_solve = %s, want under_constrained", js(res))
	}
}

// TestConstraintsNotInR12 checks an R12 export carries the geometry only.
func TestConstraintsNotInR12(t *testing.T) {
	f := newFixture(t)
	f.sloppyRectangle(true)
	content := f.ok(enginev1.ToolDocumentExport, obj{"format": "dxf", "options": obj{"dxf_version": "r12"}})["content"].(string)
	if strings.Contains(content, "CADBRIDGE") {
		t.Errorf("the R12 export carries cadbridge's constraints; R12 is geometry only")
	}
	g, _ := f.importDXF(content)
	if list := g.ok(enginev1.ToolConstraintList, obj{})["constraints"]; list != nil {
		t.Errorf("constraints from an R12 file: %v", list)
	}
}

// TestDrivingDimensionTravelsInDXF: a rectangle whose width a driving
// dimension sets comes back from its DXF file with the dimension still
// driving — bound to the same corners, refused deletion while it drives,
// following constraint_set_value.
func TestDrivingDimensionTravelsInDXF(t *testing.T) {
	f := newFixture(t)
	s := f.sloppyRectangle(true)
	f.ok(enginev1.ToolConstraintDelete, obj{"constraint_id": 10})
	f.ok(enginev1.ToolDimensionCreateLinear, obj{"p1": anchor(s[0], "end", 0, 0), "p2": anchor(s[0], "end", 120, 0), "angle": 0, "driving": true, "value": 130})
	content := f.exportDXF()
	if counts := ezdxftest.Audit(t, content); counts != nil && (counts["LINE"] != 4 || counts["DIMENSION"] != 1) {
		t.Errorf("ezdxf reads %v, want 4 lines and a dimension", counts)
	}
	g, res := f.importDXF(content)
	if ws := importWarnings(res); len(ws) != 0 {
		t.Errorf("import warnings %q, want none", ws)
	}
	var dim string
	var sides [4]string
	for _, x := range g.ok(enginev1.ToolEntityList, obj{})["entities"].([]any) {
		m := x.(obj)
		if m["type"] == "dimension" {
			dim = m["handle"].(string)
			continue
		}
		a, b := pt(m["start"]), pt(m["end"])
		for i, h := range s {
			if ea, eb := f.ends(h); closePt(a, ea) && closePt(b, eb) {
				sides[i] = m["handle"].(string)
			}
		}
	}
	if dim == "" || !closeTo(g.measured(dim), 130) {
		t.Fatalf("the imported dimension %q does not measure 130: %s", dim, js(g.get(dim)))
	}
	binds := g.get(dim)["dimension"].(obj)["bindings"].([]any)
	if len(binds) != 2 || binds[0].(obj)["handle"] != sides[0] || binds[1].(obj)["handle"] != sides[0] {
		t.Errorf("the imported dimension's bindings = %s, want both on the bottom %s", js(binds), sides[0])
	}
	g.fail(enginev1.ToolEntityDelete, obj{"handle": dim}, enginev1.ErrorKind_ERROR_KIND_REFUSED)
	list := g.ok(enginev1.ToolConstraintList, obj{"handle": dim})["constraints"].([]any)
	if len(list) != 1 || list[0].(obj)["kind"] != "distance_x" || list[0].(obj)["dimension"] != dim {
		t.Fatalf("the imported dimension's constraints = %s, want one distance_x it shows", js(list))
	}
	id := list[0].(obj)["constraint_id"]
	g.ok(enginev1.ToolConstraintSetValue, obj{"constraint_id": id, "value": 90})
	g.corners(sides, 90, 80)
	if got := g.measured(dim); !closeTo(got, 90) {
		t.Errorf("the imported driving dimension measures %v after its value became 90, want 90", got)
	}
}

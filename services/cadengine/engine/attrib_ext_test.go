package engine_test

import (
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/internal/ezdxftest"
)

// bolts is a DXF file of a block BOLT (a circle, an attribute PARTNO of
// default M8, an invisible one MASS) and an insert of it whose values
// are M10 and 12 g; and a LEADER of three vertices with an arrowhead.
var bolts = dxfFile("", "0\nTABLE\n2\nDIMSTYLE\n0\nDIMSTYLE\n2\nISO-25\n40\n2\n41\n3\n0\nENDTAB\n",
	"0\nINSERT\n8\nparts\n66\n1\n2\nBOLT\n10\n100\n20\n50\n"+
		"0\nATTRIB\n8\nparts\n10\n103\n20\n50\n40\n2\n1\nM10\n2\nPARTNO\n70\n0\n"+
		"0\nATTRIB\n8\nparts\n10\n103\n20\n47\n40\n2\n1\n12 g\n2\nMASS\n70\n1\n"+
		"0\nSEQEND\n"+
		"0\nLEADER\n8\n0\n3\nISO-25\n71\n1\n72\n0\n76\n3\n10\n0\n20\n0\n10\n10\n20\n10\n10\n20\n20\n10\n")

// boltBlock is the BLOCKS section's BOLT.
const boltBlock = "0\nSECTION\n2\nBLOCKS\n0\nBLOCK\n8\n0\n2\nBOLT\n70\n2\n10\n0\n20\n0\n" +
	"0\nCIRCLE\n8\n0\n10\n0\n20\n0\n40\n2\n" +
	"0\nATTDEF\n8\n0\n10\n3\n20\n0\n40\n2\n1\nM8\n3\nPart number\n2\nPARTNO\n70\n0\n" +
	"0\nATTDEF\n8\n0\n10\n3\n20\n-3\n40\n2\n1\n0 g\n3\nMass\n2\nMASS\n70\n1\n" +
	"0\nENDBLK\n8\n0\n0\nENDSEC\n"

// TestAttributes: an insert's attribute values are kept with it, shown
// (but the invisible), moved with it and written back; exploding keeps
// the visible ones as text; the block's definitions are native.
func TestAttributes(t *testing.T) {
	e := newEngine(t, nil)
	content := strings.Replace(bolts, "0\nSECTION\n2\nENTITIES\n", boltBlock+"0\nSECTION\n2\nENTITIES\n", 1)
	f := importDXF(t, e, "bolts", content)
	ents := f.entities()
	if len(ents) != 2 || ents[0]["type"] != "insert" || ents[1]["type"] != "leader" {
		t.Fatalf("entities = %s, want an insert and a leader", js(ents))
	}
	in := ents[0]
	if got := js(in["attributes"]); got != `[{"height":2,"insertion":{"x":103,"y":50},"invisible":false,"rotation":0,"tag":"PARTNO","text":"M10"},{"height":2,"insertion":{"x":103,"y":47},"invisible":true,"rotation":0,"tag":"MASS","text":"12 g"}]` {
		t.Errorf("attributes = %s", got)
	}
	svg := exportOf(t, f, "svg")
	if !strings.Contains(svg, ">M10<") || strings.Contains(svg, ">M8<") || strings.Contains(svg, "PARTNO") || strings.Contains(svg, "12 g") {
		t.Errorf("the SVG should show M10 and neither the default M8, the tag PARTNO nor the invisible mass")
	}
	// The leader: its arrowhead is DIMASZ 3 × DIMSCALE 2.
	if l := ents[1]; l["arrowhead"] != true || l["arrow_size"] != 6.0 || len(l["points"].([]any)) != 3 {
		t.Errorf("leader = %s, want 3 points and an arrowhead 6 long", js(l))
	}

	f.ok("entity_move", obj{"handle": in["handle"], "dx": 10, "dy": 0})
	if got := pt(f.get(in["handle"].(string))["attributes"].([]any)[0].(obj)["insertion"]); got != [2]float64{113, 50} {
		t.Errorf("after the move, PARTNO is at %v, want (113, 50)", got)
	}
	dxf := exportOf(t, f, "dxf")
	if got := ezdxftest.Audit(t, dxf); got != nil && (got["INSERT"] != 1 || got["LEADER"] != 1) {
		t.Errorf("ezdxf reads %v, want the insert and the leader", got)
	}
	back := importDXF(t, e, "back", dxf)
	if got, want := back.info().ContentHash, f.info().ContentHash; got != want {
		t.Errorf("content hash after a round trip = %s, want %s", got, want)
	}

	made := f.ok("block_explode", obj{"handle": in["handle"]})["handles"].([]any)
	var texts []string
	for _, h := range made {
		if g := f.get(h.(string)); g["type"] == "text" {
			texts = append(texts, g["text"].(string))
		}
	}
	if strings.Join(texts, ",") != "M10" {
		t.Errorf("exploding made texts %q, want the visible value M10", texts)
	}
}

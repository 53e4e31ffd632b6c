package engine

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
	"github.com/cadbridge/cadbridge/services/cadengine/geom"
)

// Purge and audit: the housekeeping of a drawing (document_purge,
// document_audit). Both write through the call's undo log like any
// tool, so a purge or a repair is a revision of its own and
// document_undo takes it back.

// purgeKinds are what document_purge removes, in its wire spelling.
var purgeKinds = []string{"layers", "blocks", "linetypes", "styles"}

// documentPurge removes the layers, blocks, linetypes and styles nothing
// uses. Layers: without entities, not layer 0 or the current layer, not
// locked, and on which no block has entities. Blocks: no insert uses
// them, in the drawing or in another block (a block that only a purged
// block used goes too). Linetypes: those the drawing's own table defines
// (an imported file's) that no layer, entity or block entity names; the
// standard ones are built in. Styles: the engine's text and dimension
// styles are built in, so there are none to remove.
func documentPurge(c *call, a *enginev1.DocumentPurgeArgs) (*enginev1.DocumentPurgeResult, error) {
	want := map[string]bool{}
	for i, w := range a.What {
		if !slices.Contains(purgeKinds, w) { // the contract's pattern checks it first
			return nil, invalidArgs("/what/"+strconv.Itoa(i), reasonInvalid, "%q is not something to purge (%s)", w, strings.Join(purgeKinds, ", "))
		}
		want[w] = true
	}
	all := len(want) == 0
	res := &enginev1.DocumentPurgeResult{}
	if all || want["blocks"] {
		// A block that only purged blocks used is unused next time round.
		for again := true; again; {
			again = false
			for _, b := range c.d.Blocks() {
				if c.d.BlockUses(b.Name) > 0 {
					continue
				}
				if err := c.tx.RemoveBlock(b.Name); err != nil {
					return nil, err
				}
				res.Blocks = append(res.Blocks, b.Name)
				again = true
			}
		}
		sort.Strings(res.Blocks)
	}
	if all || want["layers"] {
		for _, l := range c.d.SortedLayers() {
			if l.Name == "0" || l.Name == c.d.CurrentLayer() || l.Locked ||
				c.d.LayerEntityCount(l.Name) > 0 || c.d.BlockOnLayer(l.Name) != "" {
				continue
			}
			c.tx.RemoveLayer(l.Name)
			res.Layers = append(res.Layers, l.Name)
		}
	}
	if t := c.d.Linetypes(); t != nil && (all || want["linetypes"]) {
		if unused := unusedLinetypes(c.d.Document, t); len(unused) > 0 {
			c.tx.SetLinetypes(t.Without(unused))
			res.Linetypes = unused
		}
	}
	res.Count = int32(len(res.Layers) + len(res.Blocks) + len(res.Linetypes) + len(res.Styles))
	return res, nil
}

// Audit findings, in their wire spelling.
const (
	findingZeroLength = "zero_length"
	findingDegenerate = "degenerate"
	findingDuplicate  = "duplicate"
	findingDangling   = "dangling_binding"
	findingEmptyBlock = "empty_block"
)

// documentAudit checks every entity and block, and with fix repairs what
// it can: zero-length and degenerate entities and exact duplicates (the
// later handle of equal fingerprints) are deleted, dimensions bound to
// entities that are gone are unbound (their points stay where they are),
// unused empty blocks are removed. Entities on locked layers and empty
// blocks that inserts use are reported, not repaired.
func documentAudit(c *call, a *enginev1.DocumentAuditArgs) (*enginev1.DocumentAuditResult, error) {
	fix := a.GetFix()
	res := &enginev1.DocumentAuditResult{}
	var ents []*drawing.Entity
	c.d.Each(0, func(e *drawing.Entity) bool {
		ents = append(ents, e)
		return true
	})
	size := extentOf(ents)
	seen := map[string]uint64{} // fingerprint → first handle
	for _, e := range ents {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		kind, why := faultOf(e, size)
		if kind == "" {
			fp := e.Fingerprint()
			if first, ok := seen[fp]; ok {
				kind, why = findingDuplicate, "the same as "+drawing.FormatHandle(first)+" (type, geometry, layer, style)"
			} else {
				seen[fp] = e.Handle
			}
		}
		var dangling []uint64
		if b, ok := e.Geom.(drawing.Bound); ok && kind == "" {
			for _, r := range b.Refs() {
				if c.d.Entity(r) == nil {
					dangling = append(dangling, r)
				}
			}
			if len(dangling) > 0 {
				kind, why = findingDangling, "bound to "+strings.Join(formatHandles(dangling), ", ")+", which the drawing no longer has"
			}
		}
		if kind == "" {
			continue
		}
		f := &enginev1.AuditFinding{Kind: kind, Handle: drawing.FormatHandle(e.Handle), Message: why}
		res.Findings = append(res.Findings, f)
		if !fix {
			continue
		}
		if l := c.d.Layer(e.Layer); l != nil && l.Locked {
			f.Message += " (not repaired: layer " + e.Layer + " is locked)"
			continue
		}
		var err error
		if kind == findingDangling {
			err = c.tx.Replace(e, e.With(e.Geom)) // Replace rebinds, dropping binds to what is gone
		} else {
			err = c.tx.Remove(e)
		}
		if err != nil {
			return nil, err
		}
		f.Fixed = true
		res.Handles = append(res.Handles, f.Handle)
	}
	for _, b := range c.d.Blocks() {
		if len(b.Entities) > 0 {
			continue
		}
		f := &enginev1.AuditFinding{Kind: findingEmptyBlock, Block: b.Name, Message: "block " + b.Name + " has no entities"}
		res.Findings = append(res.Findings, f)
		if !fix {
			continue
		}
		if n := c.d.BlockUses(b.Name); n > 0 {
			f.Message += " (not repaired: " + strconv.Itoa(n) + " insert(s) use it)"
			continue
		}
		if err := c.tx.RemoveBlock(b.Name); err != nil {
			return nil, err
		}
		f.Fixed = true
	}
	for _, f := range res.Findings {
		if f.Fixed {
			res.Fixed++
		}
	}
	return res, nil
}

// extentOf is the size of the drawing (the larger side of its extents),
// which sets the tolerance of "zero length".
func extentOf(ents []*drawing.Entity) float64 {
	var box geom.Box
	for _, e := range ents {
		if ps := e.Geom.Prims(); len(ps) > 0 {
			box.AddBox(geom.PrimBounds(ps))
		}
	}
	if !box.NonEmpty {
		return 1
	}
	return math.Max(1, math.Max(box.Max.X-box.Min.X, box.Max.Y-box.Min.Y))
}

// faultOf says what is wrong with e's geometry, if anything: a line,
// polyline or circle of no length, an arc of no sweep, a polyline with
// fewer than two distinct points.
func faultOf(e *drawing.Entity, size float64) (kind, why string) {
	tol := geom.Tol(size, size)
	switch g := e.Geom.(type) {
	case drawing.Line:
		if g.A.Dist(g.B) <= tol {
			return findingZeroLength, "a line of zero length"
		}
	case drawing.Circle:
		if g.R <= tol {
			return findingZeroLength, "a circle of zero radius"
		}
	case drawing.Arc:
		a := g.Arc()
		if g.R <= tol {
			return findingZeroLength, "an arc of zero radius"
		}
		if a.Length() <= tol {
			return findingDegenerate, "an arc of zero sweep"
		}
	case drawing.Polyline:
		if g.Length() <= tol {
			return findingZeroLength, "a polyline of zero length"
		}
		if g.Closed && len(g.Pieces()) < 2 {
			return findingDegenerate, "a closed polyline of one piece (it encloses nothing)"
		}
	}
	return "", ""
}

// unusedLinetypes are the linetypes table t defines that no layer, entity
// or block entity of d names, in the table's order.
func unusedLinetypes(d *drawing.Document, t *drawing.Linetypes) []string {
	used := map[string]bool{}
	for _, l := range d.SortedLayers() {
		used[strings.ToUpper(l.Linetype)] = true
	}
	d.Each(0, func(e *drawing.Entity) bool {
		used[strings.ToUpper(e.Linetype)] = true
		return true
	})
	for _, b := range d.Blocks() {
		for _, e := range b.Entities {
			used[strings.ToUpper(e.Linetype)] = true
		}
	}
	var out []string
	for _, l := range t.Defined {
		if !used[strings.ToUpper(l.Name)] {
			out = append(out, l.Name)
		}
	}
	return out
}

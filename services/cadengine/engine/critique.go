package engine

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// The critique (drawing_critique, DESIGN §12): what a checker marks on a
// drawing before it is issued. Each check is a method of [critic], over
// the snapshot the call sees; [drawingCritique] runs those asked for,
// orders what they found and scores it.

// A severity of a finding, in its wire spelling; severities sorts them,
// the worst first.
const (
	severityError   = "error"
	severityWarning = "warning"
	severityInfo    = "info"
)

var severities = []string{severityError, severityWarning, severityInfo}

// The score a finding costs, by severity (see critiqueScore).
var severityCost = map[string]int{severityError: 10, severityWarning: 3, severityInfo: 1}

// The categories a critique can focus on, and the checks of each: the
// shapes drawn, what annotates them, and the sheets they are printed on.
const (
	focusGeometry   = "geometry"
	focusAnnotation = "annotation"
	focusSheet      = "sheet"
)

// The finding codes, in their wire spelling: stable, snake_case.
const (
	codeZeroLength       = "zero_length"
	codeDuplicate        = "duplicate"
	codeGap              = "gap"
	codeOpenHatch        = "open_hatch_boundary"
	codeTextOverlap      = "text_overlap"
	codeDimensionZero    = "dimension_zero"
	codeDimensionUnbound = "dimension_unbound"
	codeOutsideSheet     = "outside_sheet"
	codeViewportScale    = "viewport_scale"
	codeTitleblockEmpty  = "titleblock_empty"
)

// finding is one mistake, as a check reports it.
type finding struct {
	code, severity, message string
	handles                 []uint64 // the one to change first
	fix                     *enginev1.CritiqueFix
}

// drawingCritique runs the checks of the categories asked for over every
// space (or the one layout asked for), and returns what they found in a
// stable order: by severity (errors first), code, first handle, then
// message; the same drawing gives the same findings in the same order.
func drawingCritique(c *call, a *enginev1.DrawingCritiqueArgs) (*enginev1.DrawingCritiqueResult, error) {
	focus := map[string]bool{}
	for _, f := range a.Focus {
		focus[f] = true // the contract's pattern checks the spelling
	}
	all := len(focus) == 0
	k, err := newCritic(c, a.Layout, a.Tolerance)
	if err != nil {
		return nil, err
	}
	var checks []func() error
	if all || focus[focusGeometry] {
		checks = append(checks, k.zeroLength, k.duplicates, k.gaps, k.hatchBoundaries)
	}
	if all || focus[focusAnnotation] {
		checks = append(checks, k.dimensions, k.textOverlaps)
	}
	if all || focus[focusSheet] {
		checks = append(checks, k.outsideSheet, k.viewportScales, k.titleBlocks)
	}
	for _, check := range checks {
		if err := cmp.Or(check(), k.err); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(k.found, compareFindings)
	res := &enginev1.DrawingCritiqueResult{Findings: make([]*enginev1.CritiqueFinding, len(k.found)), Score: critiqueScore(k.found)}
	for i, f := range k.found {
		res.Findings[i] = &enginev1.CritiqueFinding{Code: f.code, Severity: f.severity, Message: f.message, Handles: formatHandles(f.handles), Fix: f.fix}
	}
	return res, nil
}

// compareFindings orders findings by severity (the worst first), code,
// handles and message.
func compareFindings(x, y finding) int {
	return cmp.Or(
		cmp.Compare(slices.Index(severities, x.severity), slices.Index(severities, y.severity)),
		cmp.Compare(x.code, y.code),
		slices.Compare(x.handles, y.handles),
		cmp.Compare(x.message, y.message),
	)
}

// critiqueScore is 100 less 10 for each error, 3 for each warning and 1
// for each info, and never below 0.
func critiqueScore(found []finding) int32 {
	s := 100
	for _, f := range found {
		s -= severityCost[f.severity]
	}
	return int32(max(0, s))
}

// fixCall is the call of tool with args.
func (k *critic) fixCall(tool string, args map[string]any) *enginev1.CritiqueFix {
	b, err := json.Marshal(args) // maps marshal with sorted keys: stable
	if err != nil {
		return nil
	}
	return &enginev1.CritiqueFix{Tool: tool, ArgsJson: b}
}

// deleteFix is entity_delete of h.
func (k *critic) deleteFix(h uint64) *enginev1.CritiqueFix {
	return k.fixCall(enginev1.ToolEntityDelete, map[string]any{"handle": drawing.FormatHandle(h)})
}

// handlesText is "a, b and c" of the handles hs; past maxOthers of
// them, the first maxOthers and how many more.
func handlesText(hs []uint64) string {
	more := 0
	if len(hs) > maxOthers {
		hs, more = hs[:maxOthers], len(hs)-maxOthers
	}
	parts := formatHandles(hs)
	switch {
	case more > 0:
		return strings.Join(parts, ", ") + " and " + strconv.Itoa(more) + " more"
	case len(parts) < 2:
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// num spells a length for a message: at most 6 significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

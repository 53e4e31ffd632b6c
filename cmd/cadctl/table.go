package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// stepSpec is a step as the batch file gives it, for labels in the table.
type stepSpec struct {
	Tool string `json:"tool"`
	Bind string `json:"bind"`
}

// printBatch writes a readable summary of a batch result: a headline,
// one row per step (status, handle or result, typed error), and the
// atomicity and revision reports.
func printBatch(w io.Writer, res *enginev1.ExecuteBatchResponse, steps []stepSpec) {
	fmt.Fprintln(w, batchHeadline(res))
	if res.Preview != nil {
		printPreview(w, res.Preview)
	}
	if len(res.Results) > 0 {
		tw, tb := newTable()
		fmt.Fprintln(tw, "  #\tSTEP\tSTATUS\tRESULT")
		for _, r := range res.Results {
			label := r.GetTool()
			if i := int(r.GetI()); i >= 0 && i < len(steps) && steps[i].Bind != "" {
				label += " → " + steps[i].Bind
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", r.GetI(), label, wireName(r.GetStatus()), stepOutcome(r))
		}
		flushTable(w, tw, tb)
	}
	if res.Error != nil {
		fmt.Fprintf(w, "refused: %s\n", formatError(res.Error))
	}
	for _, e := range res.Errors {
		where := ""
		if e.Step != nil {
			where = fmt.Sprintf("step %d: ", *e.Step)
		}
		fmt.Fprintf(w, "  %s%s\n", where, formatError(e))
	}
	if a := res.Atomicity; a != nil && res.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_VALIDATED {
		line := fmt.Sprintf("atomicity: on_error %s, guarantee %s", wireName(a.GetMode()), a.GetGuarantee())
		if a.RolledBack {
			line += ", rolled back"
			if a.Verified {
				line += " (verified: content hash as before)"
			}
		}
		if len(a.Undone) > 0 {
			line += ", undone " + strings.Join(a.Undone, " ")
		}
		fmt.Fprintln(w, line)
		if a.Note != "" {
			fmt.Fprintf(w, "  %s\n", a.Note)
		}
	}
	if r := res.Revision; r != nil && len(r.Interleaved) > 0 {
		fmt.Fprintf(w, "interleaved writes by others: %s\n", strings.Join(r.Interleaved, " "))
	}
}

// batchHeadline is the first line of the summary.
func batchHeadline(res *enginev1.ExecuteBatchResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "batch %s %s", res.GetOperationId(), wireName(res.GetStatus()))
	if res.GetReplayed() {
		b.WriteString(" (replayed)")
	}
	c := res.GetCounts()
	if res.GetStatus() != enginev1.BatchStatus_BATCH_STATUS_VALIDATED {
		fmt.Fprintf(&b, ": %d executed, %d ok, %d failed, %d skipped", c.GetExecuted(), c.GetSucceeded(), c.GetFailed(), c.GetSkipped())
	}
	// checked is set only for a guarded batch (expected_revision or
	// preconditions): the revision the guard found.
	if r := res.Revision; r != nil {
		fmt.Fprintf(&b, "; revision %d", r.After)
		if r.Checked != 0 {
			fmt.Fprintf(&b, " (guard checked revision %d)", r.Checked)
		}
	}
	return b.String()
}

func printPreview(w io.Writer, p *enginev1.Preview) {
	fmt.Fprintf(w, "dry run on %s at revision %d: nothing executed\n", p.GetDocumentId(), p.GetRevision())
	tw, tb := newTable()
	fmt.Fprintln(tw, "  #\tSTEP\tARGS\t")
	for _, s := range p.Steps {
		label := s.GetTool()
		if s.GetBind() != "" {
			label += " → " + s.GetBind()
		}
		mark := ""
		if s.GetDestructive() {
			mark = "destructive"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", s.GetI(), label, compactJSON(json.RawMessage(s.GetArgsJson()), 60), mark)
	}
	flushTable(w, tw, tb)
	if len(p.Preconditions) > 0 {
		fmt.Fprintln(w, "preconditions (entities the batch reads or changes, as they are now):")
		for _, pc := range p.Preconditions {
			fmt.Fprintf(w, "  %s  %s\n", pc.GetHandle(), pc.GetFingerprint())
		}
	}
}

// stepOutcome is the RESULT cell: the handle, the result, or the error.
func stepOutcome(r *enginev1.StepResult) string {
	switch {
	case r.Error != nil:
		return formatError(r.Error)
	case r.Handle != nil && r.ResultJson == nil:
		return "handle " + *r.Handle
	case r.ResultJson != nil:
		return compactJSON(json.RawMessage(r.ResultJson), 70)
	}
	return ""
}

// formatError renders a typed error: kind, message and the fields that say
// where or why.
func formatError(e *enginev1.ToolError) string {
	var b strings.Builder
	b.WriteString(wireName(e.GetKind()))
	if e.GetMessage() != "" {
		b.WriteString(": " + e.GetMessage())
	}
	var extra []string
	if e.GetPath() != "" {
		p := "at " + e.GetPath()
		if e.Reason != nil {
			p += " (" + wireName(*e.Reason) + ")"
		}
		extra = append(extra, p)
	}
	if e.GetCapability() != "" {
		extra = append(extra, "needs "+e.GetCapability())
	}
	if e.CurrentRevision != nil {
		extra = append(extra, fmt.Sprintf("current revision %d", *e.CurrentRevision))
	}
	if len(e.MovedHandles) > 0 {
		extra = append(extra, "moved "+strings.Join(e.MovedHandles, " "))
	}
	if e.RetryAfterMs != nil {
		extra = append(extra, fmt.Sprintf("retry after %d ms", *e.RetryAfterMs))
	}
	if len(extra) > 0 {
		b.WriteString(" [" + strings.Join(extra, "; ") + "]")
	}
	return b.String()
}

// newTable returns a tabwriter for an aligned table; flush it with
// flushTable, which also trims the padding at the ends of lines.
func newTable() (*tabwriter.Writer, *strings.Builder) {
	var b strings.Builder
	return tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0), &b
}

func flushTable(w io.Writer, tw *tabwriter.Writer, b *strings.Builder) {
	tw.Flush()
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line == "" {
			continue
		}
		io.WriteString(w, strings.TrimRight(line, " \n")+"\n")
	}
}

// compactJSON renders raw on one line, cut to at most max runes.
func compactJSON(raw json.RawMessage, max int) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	s := buf.String()
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// printDocument writes a document's info and its layers.
func printDocument(w io.Writer, d *enginev1.DocumentInfo) {
	fmt.Fprintf(w, "%s  %q  units %s  revision %d  %d %s\n", d.GetDocumentId(), d.GetName(), wireName(d.GetUnits()), d.GetRevision(), d.GetEntityCount(), plural(int(d.GetEntityCount()), "entity", "entities"))
	fmt.Fprintf(w, "content hash %s\n", d.GetContentHash())
	if len(d.Layers) == 0 {
		return
	}
	tw, tb := newTable()
	fmt.Fprintln(tw, "  LAYER\tCOLOR\tLINETYPE\tENTITIES\tSTATE")
	layers := slices.Clone(d.Layers)
	sort.SliceStable(layers, func(i, j int) bool { return layers[i].GetName() < layers[j].GetName() })
	for _, l := range layers {
		var state []string
		if l.GetName() == d.GetCurrentLayer() {
			state = append(state, "current")
		}
		if !l.GetOn() {
			state = append(state, "off")
		}
		if l.GetFrozen() {
			state = append(state, "frozen")
		}
		if l.GetLocked() {
			state = append(state, "locked")
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%s\n", l.GetName(), l.GetColor(), l.GetLinetype(), l.GetEntityCount(), strings.Join(state, ","))
	}
	flushTable(w, tw, tb)
}

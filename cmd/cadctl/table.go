package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// stepSpec is a step as the batch file gives it, for labels in the table.
type stepSpec struct {
	Tool string `json:"tool"`
	Bind string `json:"bind"`
}

// printBatch writes a readable summary of a batch result: a headline,
// one row per step (status, handle or result, typed error), and the
// atomicity and revision reports.
func printBatch(w io.Writer, res *batchResult, steps []stepSpec) {
	fmt.Fprintln(w, batchHeadline(res))
	if res.Preview != nil {
		printPreview(w, res.Preview)
	}
	if len(res.Results) > 0 {
		tw, tb := newTable()
		fmt.Fprintln(tw, "  #\tSTEP\tSTATUS\tRESULT")
		for _, r := range res.Results {
			label := r.Tool
			if r.I >= 0 && r.I < len(steps) && steps[r.I].Bind != "" {
				label += " → " + steps[r.I].Bind
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", r.I, label, r.Status, stepOutcome(r))
		}
		flushTable(w, tw, tb)
	}
	if res.Error != nil {
		fmt.Fprintf(w, "refused: %s\n", formatError(res.Error))
	}
	for i := range res.Errors {
		e := &res.Errors[i]
		where := ""
		if e.Step != nil {
			where = fmt.Sprintf("step %d: ", *e.Step)
		}
		fmt.Fprintf(w, "  %s%s\n", where, formatError(e))
	}
	if a := res.Atomicity; a != nil && res.Status != "validated" {
		line := fmt.Sprintf("atomicity: on_error %s, guarantee %s", a.Mode, a.Guarantee)
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
func batchHeadline(res *batchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "batch %s %s", res.OperationID, res.Status)
	if res.Replayed {
		b.WriteString(" (replayed)")
	}
	c := res.Counts
	if res.Status != "validated" {
		fmt.Fprintf(&b, ": %d executed, %d ok, %d failed, %d skipped", c.Executed, c.Succeeded, c.Failed, c.Skipped)
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

func printPreview(w io.Writer, p *preview) {
	fmt.Fprintf(w, "dry run on %s at revision %d: nothing executed\n", p.DocumentID, p.Revision)
	tw, tb := newTable()
	fmt.Fprintln(tw, "  #\tSTEP\tARGS\t")
	for _, s := range p.Steps {
		label := s.Tool
		if s.Bind != "" {
			label += " → " + s.Bind
		}
		mark := ""
		if s.Destructive {
			mark = "destructive"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", s.I, label, compactJSON(s.Args, 60), mark)
	}
	flushTable(w, tw, tb)
	if len(p.Preconditions) > 0 {
		fmt.Fprintln(w, "preconditions (entities the batch reads or changes, as they are now):")
		for _, pc := range p.Preconditions {
			fmt.Fprintf(w, "  %s  %s\n", pc.Handle, pc.Fingerprint)
		}
	}
}

// stepOutcome is the RESULT cell: the handle, the result, or the error.
func stepOutcome(r stepResult) string {
	switch {
	case r.Error != nil:
		return formatError(r.Error)
	case r.Handle != nil && len(r.Result) == 0:
		return "handle " + *r.Handle
	case len(r.Result) > 0:
		return compactJSON(r.Result, 70)
	}
	return ""
}

// formatError renders a typed error: kind, message and the fields that say
// where or why.
func formatError(e *toolError) string {
	var b strings.Builder
	b.WriteString(e.Kind)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	var extra []string
	if e.Path != "" {
		p := "at " + e.Path
		if e.Reason != "" {
			p += " (" + e.Reason + ")"
		}
		extra = append(extra, p)
	}
	if e.Capability != "" {
		extra = append(extra, "needs "+e.Capability)
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
func printDocument(w io.Writer, d *documentInfo) {
	fmt.Fprintf(w, "%s  %q  units %s  revision %d  %d %s\n", d.DocumentID, d.Name, d.Units, d.Revision, d.EntityCount, plural(int(d.EntityCount), "entity", "entities"))
	fmt.Fprintf(w, "content hash %s\n", d.ContentHash)
	if len(d.Layers) == 0 {
		return
	}
	tw, tb := newTable()
	fmt.Fprintln(tw, "  LAYER\tCOLOR\tLINETYPE\tENTITIES\tSTATE")
	layers := append([]layer(nil), d.Layers...)
	sort.SliceStable(layers, func(i, j int) bool { return layers[i].Name < layers[j].Name })
	for _, l := range layers {
		var state []string
		if l.Name == d.CurrentLayer {
			state = append(state, "current")
		}
		if !l.On {
			state = append(state, "off")
		}
		if l.Frozen {
			state = append(state, "frozen")
		}
		if l.Locked {
			state = append(state, "locked")
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%s\n", l.Name, l.Color, l.Linetype, l.EntityCount, strings.Join(state, ","))
	}
	flushTable(w, tw, tb)
}

package engine

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// The batch result (DESIGN §3 cad.batch, item 8): ok, status, counts,
// one result per step — a successful step reports only its handle unless
// the batch is verbose (a result without a handle is returned whole) —,
// bindings, the revision report (checked for guarded batches, after for
// every batch, interleaved: others' operations that committed while the
// batch waited on its client) and the atomicity report (mode, guarantee
// "undo_log", whether a checkpoint was held, rolled back and verified —
// the content hash after the rollback equals the one before the batch,
// compared, not assumed —, a sentence, and the step operations a rollback
// undid).

// partial is the result the operation would have if it stopped while
// step waits on the client: the steps before it as they ended, step
// itself failed cancelled, the rest skipped, status failed. A commit point
// journals it, and it is what an interrupted operation reports.
func (r *run) partial(step int) *enginev1.ExecuteBatchResponse {
	p := proto.Clone(r.resp).(*enginev1.ExecuteBatchResponse)
	s := r.steps[step]
	p.Results[step] = &enginev1.StepResult{
		I: int32(step), Tool: s.name, Status: enginev1.StepStatus_STEP_STATUS_ERROR, OperationId: s.opID,
		Error: &enginev1.ToolError{
			Kind:        enginev1.ErrorKind_ERROR_KIND_CANCELLED,
			Message:     fmt.Sprintf("interrupted: the operation stopped while step %d waited on the client; it did not run, and nothing after it committed", step),
			OperationId: new(s.opID),
		},
	}
	for _, res := range p.Results[step+1:] {
		res.Status, res.Handle, res.ResultJson, res.Error = enginev1.StepStatus_STEP_STATUS_SKIPPED, nil, nil, nil
	}
	r.finish(p, enginev1.BatchStatus_BATCH_STATUS_FAILED)
	p.Atomicity.Note = fmt.Sprintf("interrupted at step %d: the steps with changes on disk are %s; the steps after them did not run", step, formatSteps(r.live))
	return p
}

// reports are a response's counts, revision and atomicity reports, in
// one allocation.
type reports struct {
	counts    enginev1.Counts
	revision  enginev1.RevisionReport
	atomicity enginev1.Atomicity
}

// finish fills in a response's counts, revision and atomicity reports:
// for r.resp the first time in the room newResponse made beside it, else
// in a new allocation.
func (r *run) finish(p *enginev1.ExecuteBatchResponse, status enginev1.BatchStatus) {
	p.Status = status
	rep := r.reports
	if p != r.resp || rep == nil {
		rep = &reports{}
	} else {
		r.reports = nil
	}
	c := &rep.counts
	for _, res := range p.Results {
		switch res.Status {
		case enginev1.StepStatus_STEP_STATUS_OK:
			c.Executed++
			c.Succeeded++
		case enginev1.StepStatus_STEP_STATUS_ERROR:
			c.Executed++
			c.Failed++
		default:
			c.Skipped++
		}
	}
	p.Counts = c
	p.Ok = c.Failed == 0 && status != enginev1.BatchStatus_BATCH_STATUS_REFUSED
	p.Revision = &rep.revision
	p.Revision.Interleaved = slices.Clone(r.interleaved)
	if r.guarded {
		p.Revision.Checked = r.checked
	}
	if r.d != nil {
		p.Revision.After = r.d.Revision
	}
	mode := r.mode
	if mode == enginev1.OnError_ON_ERROR_UNSPECIFIED {
		mode = enginev1.OnError_ON_ERROR_STOP
	}
	p.Atomicity = &rep.atomicity
	p.Atomicity.Mode, p.Atomicity.Guarantee = mode, "undo_log"
	p.Atomicity.Transaction, p.Atomicity.RolledBack = r.transaction, r.rolledBack
	p.Atomicity.Undone = slices.Clone(r.undone)
	if r.rolledBack {
		p.Atomicity.Verified = r.d.ContentHash() == r.startHash
	}
	p.Atomicity.Note = r.note(status)
}

const everySucceeded = "every step succeeded"

// note is the atomicity report's sentence.
func (r *run) note(status enginev1.BatchStatus) string {
	if status == enginev1.BatchStatus_BATCH_STATUS_COMPLETED && !r.failed && len(r.interleaved) == 0 {
		return everySucceeded // the common case, without building it
	}
	var b strings.Builder
	switch status {
	case enginev1.BatchStatus_BATCH_STATUS_REFUSED:
		b.WriteString("refused: no step ran and nothing changed")
	case enginev1.BatchStatus_BATCH_STATUS_ROLLED_BACK:
		fmt.Fprintf(&b, "%s; the undo log reverted %d changes of %d steps", r.broke, r.undoneN, len(r.undone))
		if r.d.ContentHash() == r.startHash {
			b.WriteString("; the content hash equals the one before the batch")
		} else {
			b.WriteString("; the content hash differs from the one before the batch, because others committed while it waited")
		}
	case enginev1.BatchStatus_BATCH_STATUS_FAILED:
		fmt.Fprintf(&b, "%s; the batch stopped and kept the changes of steps %s", r.broke, formatSteps(r.live))
	default:
		if r.failed {
			b.WriteString("some steps failed (on_error continue); the others' changes are kept")
		} else {
			b.WriteString(everySucceeded)
		}
	}
	if len(r.interleaved) > 0 {
		fmt.Fprintf(&b, "; %d operations of others committed while it waited on the client", len(r.interleaved))
		if r.incomplete {
			b.WriteString(" (the list is incomplete: only the latest commits are remembered)")
		}
	}
	return b.String()
}

func formatSteps(steps []int32) string {
	if len(steps) == 0 {
		return "none"
	}
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprint(s)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

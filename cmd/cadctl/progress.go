package main

import (
	"fmt"
	"strings"
	"sync"
)

// progress shows a batch's batch.progress events: a bar redrawn in place
// on a terminal, or plain lines (about ten per batch) elsewhere.
type progress struct {
	con   *console
	steps []stepSpec

	mu       sync.Mutex // guards the fields below
	finished bool
	// shown is the last step count shown as a plain line.
	shown int
	// lastTenth is the tenth of the batch last shown as a plain line.
	lastTenth int
}

func newProgress(con *console, steps []stepSpec) *progress {
	return &progress{con: con, steps: steps, lastTenth: -1}
}

// update shows that done of total steps have finished.
func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if total <= 0 || p.finished {
		return
	}
	done = min(max(done, 0), total)
	if p.con.tty {
		label := ""
		if done < total && done < len(p.steps) {
			label = "  " + p.steps[done].Tool // the step running now
		}
		const width = 30
		filled := done * width / total
		bar := strings.Repeat("=", filled)
		if filled < width {
			bar += ">" + strings.Repeat(" ", width-filled-1)
		}
		p.con.setBar(fmt.Sprintf("[%s] %d/%d%s", bar, done, total, label))
		return
	}
	tenth := done * 10 / total
	if done == p.shown || (tenth == p.lastTenth && done != total) {
		return
	}
	p.shown, p.lastTenth = done, tenth
	p.con.printf("progress %d/%d", done, total)
}

// finish removes the bar; later updates are ignored.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished = true
	p.con.setBar("")
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
)

// console is the user's side of the terminal: prompts, notices and the
// progress bar go to out (stderr), answers come from in (stdin). On a
// terminal the progress bar is one line redrawn in place; any other
// output first clears it and then draws it again below.
type console struct {
	out io.Writer
	// tty is whether out is a terminal.
	tty bool
	// width is the terminal's width in columns; 0 means unknown.
	width int

	mu  sync.Mutex // guards writes to out, and bar
	bar string     // the progress line on screen (tty only)

	in        io.Reader
	startRead sync.Once
	lines     chan string // closed at the end of input
}

func newConsole(in io.Reader, out io.Writer, tty bool, width int) *console {
	return &console{in: in, out: out, tty: tty, width: width, lines: make(chan string)}
}

// printf writes a line (a newline is added if missing) above the bar.
func (c *console) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	io.WriteString(c.out, s)
	c.drawLocked()
}

// prompt writes s with no newline, for the answer to follow on the same
// line; the bar stays hidden until the next printf or setBar.
func (c *console) prompt(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	io.WriteString(c.out, s)
}

// setBar shows s as the progress line (on a terminal; elsewhere it is
// ignored). An empty s removes the bar.
func (c *console) setBar(s string) {
	if !c.tty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.width > 1 && len(s) >= c.width {
		s = s[:c.width-1]
	}
	c.clearLocked()
	c.bar = s
	c.drawLocked()
}

func (c *console) clearLocked() {
	if c.tty && c.bar != "" {
		io.WriteString(c.out, "\r\x1b[K")
	}
}

func (c *console) drawLocked() {
	if c.tty && c.bar != "" {
		io.WriteString(c.out, c.bar)
	}
}

// discardTyped drops lines typed before now, so that an answer typed for
// a question that was withdrawn meanwhile cannot answer the next one.
func (c *console) discardTyped() {
	for {
		select {
		case _, ok := <-c.lines:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// readLine returns the next line the user typed, without its newline.
// It returns io.EOF at the end of input. A line typed while no prompt is
// waiting is kept for the next one.
//
// The goroutine that reads in runs until the input ends: a read from a
// terminal cannot be interrupted, so it is left to end with the process.
func (c *console) readLine(ctx context.Context) (string, error) {
	c.startRead.Do(func() {
		go func() {
			defer close(c.lines)
			sc := bufio.NewScanner(c.in)
			for sc.Scan() {
				c.lines <- strings.TrimRight(sc.Text(), "\r")
			}
		}()
	})
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

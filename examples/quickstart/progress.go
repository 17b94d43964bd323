package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress shows one line per request id. On a terminal the lines are redrawn
// in place with a spinner and a countdown to the next poll; piped, each update
// is printed once as a plain line, so logs stay readable.
type progress struct {
	w     io.Writer
	tty   bool
	width int // terminal columns: an animated line must not wrap

	mu    sync.Mutex
	rows  []*row
	byID  map[string]*row
	drawn int // lines of the current block already on screen (tty only)
	frame int
	stop  chan struct{}
	done  chan struct{}
}

type row struct {
	id, status, msg, why string
	next                 time.Time // zero once terminal
	attempt              int
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newProgress(w io.Writer, tty bool, columns int) *progress {
	if columns <= 0 {
		columns = 80
	}
	return &progress{w: w, tty: tty, width: columns, byID: map[string]*row{}}
}

// begin starts a block with a row per id, in that order; on a terminal it
// animates until end.
func (p *progress) begin(ids ...string) {
	p.mu.Lock()
	p.rows, p.byID, p.drawn = nil, map[string]*row{}, 0
	for _, id := range ids {
		r := &row{id: id, status: "waiting"}
		p.rows = append(p.rows, r)
		p.byID[id] = r
	}
	p.mu.Unlock()
	if !p.tty {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.frame++
				p.redraw()
				p.mu.Unlock()
			}
		}
	}()
}

// end stops the animation and leaves the final state on screen.
func (p *progress) end() {
	if p.tty && p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.redraw()
	}
}

// update records what one poll of id returned. next is the delay before the
// next poll (0 once the request is terminal) and why says how it was chosen.
func (p *progress) update(id, status, msg string, attempt int, next time.Duration, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.byID[id]
	if r == nil {
		r = &row{id: id}
		p.byID[id] = r
		p.rows = append(p.rows, r)
	}
	r.status, r.msg, r.why, r.attempt = status, msg, why, attempt
	r.next = time.Time{}
	if next > 0 {
		r.next = time.Now().Add(next)
	}
	if p.tty {
		p.redraw()
		return
	}
	fmt.Fprintln(p.w, p.format(r, ""))
}

// format lays out one row. On a terminal the line must fit the width (a
// wrapped line breaks the redraw), so the server message is what gets cut.
func (p *progress) format(r *row, mark string) string {
	head := fmt.Sprintf("   %s%-12s %-10s", mark, r.id, r.status)
	tail := ""
	if !r.next.IsZero() {
		tail = fmt.Sprintf("next poll in %.1fs", max(time.Until(r.next), 0).Seconds())
		if r.why != "" && !p.tty { // on a terminal the width goes to the message
			tail += " (" + r.why + ")"
		}
	}
	msg := r.msg
	if p.tty {
		room := p.width - 1 - len([]rune(head)) - len([]rune(tail)) - len(` ""`)
		if tail != "" {
			room -= len("  ")
		}
		if m := []rune(msg); len(m) > room {
			msg = string(m[:max(room-1, 0)]) + "…"
		}
	}
	var b strings.Builder
	b.WriteString(head)
	if msg != "" {
		fmt.Fprintf(&b, " %q", msg)
	}
	if tail != "" {
		b.WriteString("  " + tail)
	}
	return b.String()
}

// redraw repaints the block in place; the caller holds p.mu.
func (p *progress) redraw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	for _, r := range p.rows {
		mark := spinner[p.frame%len(spinner)] + " "
		switch r.status {
		case "COMPLETED":
			mark = "✓ "
		case "FAILED":
			mark = "✗ "
		}
		line := []rune(p.format(r, mark))
		if len(line) >= p.width { // a last resort: a wrapped line would break the redraw
			line = append(line[:p.width-2], '…')
		}
		b.WriteString("\r\x1b[2K" + string(line) + "\n")
	}
	p.drawn = len(p.rows)
	io.WriteString(p.w, b.String())
}

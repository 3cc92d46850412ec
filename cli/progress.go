package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// progress draws a one-line progress report on stderr when stderr is a
// terminal, and does nothing otherwise.
type progress struct {
	w     io.Writer
	label string
	total int64 // bytes, or 0 when unknown
	start time.Time
	last  time.Time
	shown bool
}

func (e *env) progress(label string, total int64) *progress {
	if !isTerminal(e.stderr) {
		return nil
	}
	return &progress{w: e.stderr, label: label, total: total, start: time.Now()}
}

// update redraws the line at most ten times a second.
func (p *progress) update(items, bytes int64) {
	if p == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	rate := float64(items) / time.Since(p.start).Seconds()
	if p.total > 0 {
		frac := min(float64(bytes)/float64(p.total), 1)
		bar := int(frac * 30)
		fmt.Fprintf(p.w, "\r%s [%-30s] %3.0f%% %d (%.0f/s) ", p.label, repeat('=', bar), frac*100, items, rate)
		return
	}
	fmt.Fprintf(p.w, "\r%s %d (%.0f/s) ", p.label, items, rate)
}

// done clears the line.
func (p *progress) done() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r\033[K")
	}
}

func repeat(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// setTotal sets the total once it is known.
func (p *progress) setTotal(n int64) {
	if p != nil {
		p.total = n
	}
}

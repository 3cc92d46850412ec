package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/omgdb/omgdb/store"
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
// terminal, and does nothing otherwise (a nil *progress is valid).
type progress struct {
	w     io.Writer
	label string
	total int64 // bytes, or 0 when unknown
	start time.Time
	last  time.Time
	step  string // the step being reported, for steps
	shown bool
}

func (e *env) progress(label string, total int64) *progress {
	if !isTerminal(e.stderr) {
		return nil
	}
	return &progress{w: e.stderr, label: label, total: total, start: time.Now()}
}

// withProgress returns ctx carrying a store.Progress that draws the steps
// of Verify, Backup and Restore on a terminal, and the bar to finish with
// done.
func (e *env) withProgress(ctx context.Context, label string) (context.Context, *progress) {
	bar := e.progress(label, 0)
	if bar == nil {
		return ctx, nil
	}
	return store.WithProgress(ctx, bar.steps), bar
}

// update redraws the line at most ten times a second.
func (p *progress) update(items, bytes int64) {
	if !p.due() {
		return
	}
	rate := float64(items) / time.Since(p.start).Seconds()
	if p.total > 0 {
		frac := min(float64(bytes)/float64(p.total), 1)
		fmt.Fprintf(p.w, "\r%s %s %3.0f%% %d (%.0f/s) ", p.label, bar(frac), frac*100, items, rate)
		return
	}
	fmt.Fprintf(p.w, "\r%s %d (%.0f/s) ", p.label, items, rate)
}

// steps draws a store.Progress report: the step, and done of total when
// known. A new step is drawn at once, on a cleared line.
func (p *progress) steps(step string, done, total int64) {
	if p == nil {
		return
	}
	if step != p.step {
		p.step, p.last = step, time.Time{}
		fmt.Fprint(p.w, "\r\033[K")
	}
	if !p.due() {
		return
	}
	elapsed := time.Since(p.start).Truncate(time.Second)
	if total > 0 {
		frac := min(float64(done)/float64(total), 1)
		fmt.Fprintf(p.w, "\r%s: %s %s %3.0f%% %s ", p.label, step, bar(frac), frac*100, elapsed)
		return
	}
	fmt.Fprintf(p.w, "\r%s: %s… %s ", p.label, step, elapsed)
}

// due reports whether the line should be redrawn now (at most ten times a
// second), and marks it drawn.
func (p *progress) due() bool {
	if p == nil || time.Since(p.last) < 100*time.Millisecond {
		return false
	}
	p.last, p.shown = time.Now(), true
	return true
}

// done clears the line.
func (p *progress) done() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r\033[K")
	}
}

// bar draws a 30-character bar filled to frac.
func bar(frac float64) string {
	b := []byte("[                              ]")
	for i := 1; i <= int(frac*30); i++ {
		b[i] = '='
	}
	return string(b)
}

// indexBar draws, on a terminal, the progress of the index builds that
// follow in collection c; finish it with done once the transaction ends.
func (e *env) indexBar(c *store.Collection) *progress {
	bar := e.progress("indexing", c.Count())
	if bar != nil {
		c.SetBuildProgress(func(done, _ int64) { bar.update(done, done) })
	}
	return bar
}

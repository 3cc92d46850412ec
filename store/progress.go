package store

import (
	"context"
	"io"
)

// Progress receives how far a long operation has come: step names what it
// is doing ("checking pages", "documents", "copying"), done of total units
// (documents, records or bytes; total is 0 when not known). It is called
// from the operation's own goroutine, often: a caller that draws it limits
// its own rate.
type Progress func(step string, done, total int64)

type progressKey struct{}

// WithProgress returns a context that carries fn to the operations that
// report their progress: Verify, Backup and Restore (Compact and index
// builds take theirs as an option). Without it they report nothing.
func WithProgress(ctx context.Context, fn Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf returns the Progress that ctx carries, or one that does
// nothing.
func progressOf(ctx context.Context) Progress {
	if fn, ok := ctx.Value(progressKey{}).(Progress); ok && fn != nil {
		return fn
	}
	return func(string, int64, int64) {}
}

// progressWriter reports the bytes written through it, and stops the
// copy with the context's error once it is cancelled.
type progressWriter struct {
	ctx   context.Context
	w     io.Writer
	step  string
	done  int64
	total int64
	fn    Progress
}

func (p *progressWriter) Write(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.fn(p.step, p.done, p.total)
	return n, err
}

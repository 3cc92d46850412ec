package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/omgdb/omgdb/query/errs"
)

// errInterrupted is the cause of a command's context when Ctrl-C cancelled
// it (see interruptible).
var errInterrupted = errors.New("interrupted")

// interruptedError is a command that Ctrl-C stopped: its message says
// what was committed ("interrupted: 20000 document(s) committed, …"), its
// hint how to go on. exitCode maps it to 130.
type interruptedError struct{ err *errs.Error }

func (e *interruptedError) Error() string { return e.err.Error() }
func (e *interruptedError) Unwrap() error { return e.err }

// newInterrupted returns the error of a command stopped by Ctrl-C that
// left committed behind, with an optional hint.
func newInterrupted(committed, hint string) error {
	e := errs.Errorf(errs.IO, "interrupted: %s", committed)
	e.Hint = hint
	return &interruptedError{e}
}

// nothingChanged is what an interrupted command that writes in one
// transaction, or only reads, leaves behind.
const nothingChanged = "nothing was changed"

// asInterrupted returns err, or, when Ctrl-C stopped the command (its
// context was cancelled by it and err is that cancellation), an
// interruptedError saying nothing was changed. A command that commits in
// steps returns its own interruptedError, which is kept.
func asInterrupted(ctx context.Context, err error) error {
	if !errors.Is(context.Cause(ctx), errInterrupted) || errors.As(err, new(*interruptedError)) || !errors.Is(err, context.Canceled) {
		return err
	}
	return newInterrupted(nothingChanged, "")
}

// interrupted returns err, or, when Ctrl-C stopped the command, an error
// that says what it left behind: committed.
func interrupted(ctx context.Context, err error, committed string) error {
	if err != nil && errors.Is(context.Cause(ctx), errInterrupted) {
		return newInterrupted(committed, "")
	}
	return err
}

// importInterrupted describes an import that Ctrl-C stopped after it had
// committed the documents up to line (of file, or of standard input for
// "-"), and how to import the rest.
func importInterrupted(path, coll, file string, inserted, line int64) error {
	committed := fmt.Sprintf("%d document(s) committed, through line %d", inserted, line)
	if file == "-" {
		return newInterrupted(committed+" of standard input",
			fmt.Sprintf("the rest starts at line %d: feed it with tail -n +%d to omgdb import %s %s", line+1, line+1, path, coll))
	}
	return newInterrupted(committed+" of "+file,
		fmt.Sprintf("import the rest with: tail -n +%d %s | omgdb import %s %s", line+1, file, path, coll))
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// errInterrupted is the cause of a command's context when Ctrl-C cancelled
// it (see interruptible).
var errInterrupted = errors.New("interrupted")

// interruptedError says what an interrupted command had committed, and
// how to go on, for the commands that commit in steps.
type interruptedError struct {
	committed string // what is kept, e.g. "20000 document(s) committed, through line 20000"
	hint      string
}

func (e *interruptedError) Error() string { return "interrupted: " + e.committed }

// defaultCommitted is what an interrupted command that writes in one
// transaction, or only reads, leaves behind.
const defaultCommitted = "nothing was changed"

// printInterrupted reports a command that Ctrl-C stopped, and returns 130.
// err is what the command returned when it stopped.
func printInterrupted(w io.Writer, err error) int {
	var ie *interruptedError
	if !errors.As(err, &ie) {
		ie = &interruptedError{committed: defaultCommitted}
	}
	fmt.Fprintf(w, "error: %s\n", ie)
	if ie.hint != "" {
		fmt.Fprintf(w, "hint: %s\n", ie.hint)
	}
	return ExitInterrupted
}

// interrupted returns err, or, when Ctrl-C stopped the command, an error
// that says what it left behind: committed.
func interrupted(ctx context.Context, err error, committed string) error {
	if err != nil && errors.Is(context.Cause(ctx), errInterrupted) {
		return &interruptedError{committed: committed}
	}
	return err
}

// importInterrupted describes an import that Ctrl-C stopped after it had
// committed the documents up to line (of file, or of standard input for
// "-"), and how to import the rest.
func importInterrupted(path, coll, file string, inserted, line int64) error {
	e := &interruptedError{committed: fmt.Sprintf("%d document(s) committed, through line %d", inserted, line)}
	if file == "-" {
		e.committed += " of standard input"
		e.hint = fmt.Sprintf("the rest starts at line %d: feed it with tail -n +%d to omgdb import %s %s", line+1, line+1, path, coll)
	} else {
		e.committed += " of " + file
		e.hint = fmt.Sprintf("import the rest with: tail -n +%d %s | omgdb import %s %s", line+1, file, path, coll)
	}
	return e
}

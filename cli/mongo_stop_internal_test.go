package cli

import (
	"context"
	"errors"
	"testing"

	"github.com/omgdb/omgdb/query/errs"
)

// TestStoppedByCtrlC: an apply over MongoDB that Ctrl-C stopped between
// documents exits 130 with the engine's message (what was written) and
// hint; one stopped by another cause keeps its error and exit code.
func TestStoppedByCtrlC(t *testing.T) {
	stop := errs.Errorf(errs.Limit, "apply T stopped because it was cancelled after 3 of 10 document(s)").WithHint("roll it back")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	err := stoppedByCtrlC(ctx, stop)
	var ie *interruptedError
	if !errors.As(err, &ie) || exitCode(runError{err}) != ExitInterrupted || err.Error() != "interrupted: "+stop.Message || errs.HintOf(err) != "roll it back" {
		t.Errorf("Ctrl-C: %v (hint %q, exit %d)", err, errs.HintOf(err), exitCode(runError{err}))
	}
	other, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := stoppedByCtrlC(other, stop); err != error(stop) || exitCode(runError{err}) != ExitData {
		t.Errorf("not Ctrl-C: %v (exit %d)", err, exitCode(runError{err}))
	}
}

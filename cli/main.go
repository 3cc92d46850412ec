package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/shell"
)

// Exit codes, as SPEC.md section 1 fixes them.
const (
	ExitOK       = 0
	ExitUsage    = 64
	ExitData     = 65
	ExitNotFound = 66
	ExitConflict = 69
	ExitIO       = 74
	ExitBusy     = 75
	ExitDenied   = 77
	// ExitInterrupted is Ctrl-C's code (128 + SIGINT): any command,
	// shell script or --eval stopped by it.
	ExitInterrupted = 130
)

// env is what every command writes to and reads from.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	command        string // the subcommand's name, for messages
}

// Main runs the omgdb command line with args (without the program name) and
// returns the process exit code. It is the only place errors become exit
// codes, and it turns a panic into an error instead of a crash.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	ctx, stop := interruptible(context.Background(), interruptAfter)
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, command: commandName(args)}
	root := newRootCmdFor(e, args)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("OMGDB_DEBUG") != "" {
				fmt.Fprintf(stderr, "%s\n", debug.Stack())
			}
			code = printError(stderr, redactURIs(runError{fmt.Errorf("internal error: %v (please report this; set OMGDB_DEBUG=1 for a stack trace)", r)}, args))
		}
	}()
	if err := root.ExecuteContext(ctx); err != nil {
		return printError(stderr, redactURIs(unknownCommand(root, args, err), args))
	}
	return ExitOK
}

// interruptAfter is how long a command runs before Ctrl-C cancels its
// context instead of ending the process.
const interruptAfter = 50 * time.Millisecond

// interruptible returns a context that an interrupt (Ctrl-C) cancels, and
// the function that releases it. The handler is installed only once the
// command has run for after: os/signal starts two goroutines, and the
// threads they wake cost a short command a tenth of its time (a cold
// `find` on the benchmark machine: 6 threads instead of 3, 3.95 against
// 3.5 ms). An interrupt before then ends the process as if no handler
// were installed, which every command survives: a write transaction that
// has not committed leaves nothing behind.
func interruptible(parent context.Context, after time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	var mu sync.Mutex // guards released and unhook
	released := false
	var unhook func()
	t := time.AfterFunc(after, func() {
		mu.Lock()
		defer mu.Unlock()
		if released {
			return
		}
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		unhook = func() { signal.Stop(ch) }
		go func() {
			select {
			case <-ch:
				// A second Ctrl-C ends the process at once, for work
				// that does not look at its context often.
				signal.Stop(ch)
				cancel(errInterrupted)
			case <-ctx.Done():
			}
		}()
	})
	return ctx, func() {
		mu.Lock()
		released = true
		t.Stop()
		if unhook != nil {
			unhook()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// printError writes "error: …" and "hint: …" and returns the exit code.
func printError(w io.Writer, err error) int {
	var exit *shell.ExitError
	if errors.As(err, &exit) {
		return exitCode(err) // exit(n) in the shell is no error to print
	}
	fmt.Fprintf(w, "error: %s\n", err)
	hint := errs.HintOf(err)
	if rd := (redactedError{}); errors.As(err, &rd) {
		hint = rd.redact(hint) // MongoDB credentials never reach stderr
	}
	code := exitCode(err)
	if hint == "" && code == ExitUsage {
		hint = "run `omgdb help` or `omgdb <command> --help` for usage"
	}
	if hint != "" {
		fmt.Fprintf(w, "hint: %s\n", hint)
	}
	return code
}

// runError marks errors returned by a command's own work. Every other
// error comes from cobra itself (unknown command, wrong argument count, bad
// flag) and is a usage error.
type runError struct{ err error }

func (r runError) Error() string { return r.err.Error() }
func (r runError) Unwrap() error { return r.err }

// exitCode maps an error to the process's exit code, the one place where
// error kinds (errs.Kind) become exit codes: Usage and cobra's own errors
// 64, NotFound 66, Conflict 69, IO and errors without a kind 74, Busy 75,
// Denied 77, and Invalid, Limit and the rest 65; and a command Ctrl-C
// stopped 130.
func exitCode(err error) int {
	if errors.As(err, new(*interruptedError)) {
		return ExitInterrupted
	}
	var re runError
	if !errors.As(err, &re) {
		return ExitUsage
	}
	if errors.Is(err, shell.ErrInterrupted) {
		return ExitInterrupted
	}
	var exit *shell.ExitError
	if errors.As(err, &exit) {
		return exit.Code // the shell's exit(n): the script chose it
	}
	var qe *errs.Error
	if !errors.As(err, &qe) {
		return ExitIO
	}
	switch qe.Kind {
	case errs.Usage:
		return ExitUsage
	case errs.NotFound:
		return ExitNotFound
	case errs.Conflict:
		return ExitConflict
	case errs.IO:
		return ExitIO
	case errs.Busy:
		return ExitBusy
	case errs.Denied:
		return ExitDenied
	}
	return ExitData
}

func newRootCmd(e *env) *cobra.Command {
	return newRootCmdFor(e, nil)
}

// newRootCmdFor returns the command tree for args: when args name a
// subcommand, the root with that subcommand only. Building all 45
// subcommands and their flags costs about 0.3 ms of every process; one
// subcommand runs the same with or without its siblings (usage errors
// name the subcommand, help shows its own usage). Anything else (help,
// completion, flags of the root, a mistyped name) gets the whole tree.
func newRootCmdFor(e *env, args []string) *cobra.Command {
	var only *command
	if len(args) > 0 && !wholeTree {
		for i := range commands {
			if commands[i].name == args[0] {
				only = &commands[i]
				break
			}
		}
	}
	root := &cobra.Command{
		Use:           "omgdb",
		Short:         "An embedded document database in one file, for the shell and for AI agents",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetVersionTemplate("omgdb {{.Version}}\n")
	if only != nil {
		root.AddCommand(only.make(e))
		// cobra's completion command (long help texts built with Sprintf)
		// is not the one being run.
		root.CompletionOptions.DisableDefaultCmd = true
	} else {
		for _, c := range commands {
			root.AddCommand(c.make(e))
		}
	}
	markRunErrors(root)
	return root
}

// markRunErrors wraps every RunE so that its errors are told apart from
// cobra's usage errors, and makes argument-count errors name the argument.
func markRunErrors(c *cobra.Command) {
	nameArgErrors(c)
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return runError{asInterrupted(cmd.Context(), err)}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

// commands holds the subcommands; each cmd_<name>.go file appends its own
// in an init function.
var commands []command

// wholeTree makes newRootCmdFor always build every subcommand (tests).
var wholeTree bool

// command is a subcommand: its name (TestCommandNames checks it) and its
// constructor.
type command struct {
	name string
	make func(*env) *cobra.Command
}

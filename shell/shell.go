package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/errs"
)

// Options configure a Shell. A nil *Options means the defaults.
type Options struct {
	// Store is the path of the store file; "" starts a shell without one,
	// where db methods fail with a hint.
	Store string
	// Out receives results; Err receives errors and notes. Default
	// io.Discard.
	Out, Err io.Writer
	// Color prints documents in colour (set it for a terminal only).
	Color bool
	// Width is the printing width (default 80).
	Width int
	// BatchSize is how many documents a printed cursor shows before `it`
	// (default 20, as mongosh).
	BatchSize int
	// LockTimeout bounds the wait for another process's lock: zero means
	// the store's default, a negative value no wait.
	LockTimeout time.Duration
	// Engine, when set, is where the shell reads instead of a store file:
	// a MongoDB deployment (engine.go), which Store then names (its URI
	// with the credentials redacted). Writes are refused there, but for
	// those Writer serves.
	Engine engine.Reader
	// Writer, with Engine, is where the shell's inserts, updates,
	// replacements and deletions go (engine.go). Nil: they are refused.
	Writer Writer
}

// Shell is one shell session: a JavaScript runtime and the store it
// talks to. It is not safe for concurrent use, except Interrupt.
type Shell struct {
	opts      Options
	rt        *goja.Runtime
	ctx       context.Context // the running statement's: set by run and runCommand
	last      *cursor         // the cursor `it` continues
	exited    bool
	exitCode  int   // the argument of exit(n)
	firstErr  error // the first error Run printed
	cursorKey *goja.Symbol

	mu     sync.Mutex // guards cancel
	cancel context.CancelFunc
}

// New returns a shell. It builds the JavaScript runtime, so only the
// shell command pays for goja's start.
func New(opts *Options) *Shell {
	s := &Shell{ctx: context.Background()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Out == nil {
		s.opts.Out = io.Discard
	}
	if s.opts.Err == nil {
		s.opts.Err = io.Discard
	}
	if s.opts.BatchSize <= 0 {
		s.opts.BatchSize = 20
	}
	s.rt = goja.New()
	s.rt.SetFieldNameMapper(goja.UncapFieldNameMapper())
	s.cursorKey = goja.NewSymbol("omgdb.cursor")
	s.install()
	return s
}

// Exited reports whether the session ran exit or quit.
func (s *Shell) Exited() bool { return s.exited }

// Interrupt stops the running statement: its query's context is
// cancelled and its JavaScript stops. Safe to call from another goroutine.
func (s *Shell) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// begin makes the context of one statement, which Interrupt cancels.
func (s *Shell) begin(parent context.Context) func() {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	s.ctx = ctx
	stop := context.AfterFunc(ctx, func() { s.rt.Interrupt(ErrInterrupted) })
	return func() {
		stop()
		cancel()
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		s.ctx = context.Background()
		s.rt.ClearInterrupt()
	}
}

// Eval runs one statement (or a whole script) and prints its result as
// the interactive shell does. It returns the error the code threw: one of
// the store's errors (with its kind and hint) when a db method failed.
func (s *Shell) Eval(ctx context.Context, name, src string) error {
	if cmd, ok := s.command(src); ok {
		return s.runCommand(ctx, cmd)
	}
	defer s.begin(ctx)()
	v, err := s.run(name, src)
	if err != nil {
		return err
	}
	return s.printResult(v)
}

// Exec runs a script without printing its result (scripts print with
// print and printjson, as mongosh's load does).
func (s *Shell) Exec(ctx context.Context, name, src string) error {
	defer s.begin(ctx)()
	_, err := s.run(name, src)
	return err
}

// run runs src in the statement begun by begin.
func (s *Shell) run(name, src string) (v goja.Value, err error) {
	prg, err := goja.Compile(name, src, false)
	if err != nil {
		return nil, syntaxError(err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = errs.Errorf(errs.IO, "internal error: %v", r).WithHint("please report this statement; the shell goes on")
		}
	}()
	v, err = s.rt.RunProgram(prg)
	if err = jsError(err); err == errExit {
		if s.exitCode != 0 {
			return goja.Undefined(), &ExitError{Code: s.exitCode}
		}
		return goja.Undefined(), nil
	}
	return v, err
}

// ErrInterrupted is the error of a statement stopped by Ctrl-C.
var ErrInterrupted = errs.Errorf(errs.Usage, "interrupted").WithHint("the statement was stopped; a write that had not committed left nothing behind")

// syntaxError turns a compile error into an Invalid error.
func syntaxError(err error) error {
	return errs.Errorf(errs.Invalid, "syntax error: %s", strings.TrimSpace(err.Error())).
		WithHint("the shell reads JavaScript, as mongosh: check brackets and quotes; type help for examples")
}

// jsError returns the Go error behind a JavaScript exception: the store's
// own error when a db method threw it, else an Invalid error with the
// exception's text.
func jsError(err error) error {
	if err == nil {
		return nil
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok {
			return e
		}
		return ErrInterrupted
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if inner := ex.Unwrap(); inner != nil {
			return inner
		}
		return errs.Errorf(errs.Invalid, "%s", ex.Value().String()).
			WithHint("the JavaScript threw this error; fix the statement and run it again")
	}
	return err
}

// throw raises err as a JavaScript exception that jsError unwraps.
func (s *Shell) throw(err error) {
	panic(s.rt.NewGoError(err))
}

// must throws err when it is not nil.
func (s *Shell) must(err error) {
	if errors.Is(err, context.Canceled) {
		err = ErrInterrupted
	}
	if err != nil {
		s.throw(err)
	}
}

func (s *Shell) prettyOptions() *pretty.Options {
	return &pretty.Options{Color: s.opts.Color, Width: s.opts.Width}
}

func (s *Shell) printf(format string, args ...any) {
	fmt.Fprintf(s.opts.Out, format, args...)
}

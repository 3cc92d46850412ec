package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
)

// LineReader is the seam between the shell's loop and its input: a line
// editor on a terminal, a plain reader for pipes and tests.
type LineReader interface {
	// Line reads one line after showing prompt. It returns io.EOF at the
	// end of input (Ctrl-D) and ErrLineInterrupted for Ctrl-C.
	Line(prompt string) (string, error)
	// Save adds a statement to the history.
	Save(statement string)
}

// ErrLineInterrupted is what a LineReader returns when the user pressed
// Ctrl-C at the prompt.
var ErrLineInterrupted = errors.New("shell: line interrupted")

// Prompt returns the prompt: the store's name, as mongosh shows the
// database's.
func (s *Shell) Prompt() string {
	if s.opts.Store == "" {
		return "omgdb> "
	}
	return strings.TrimSuffix(filepath.Base(s.opts.Store), ".omgdb") + "> "
}

// continuation is the prompt of a statement's next line.
const continuation = "... "

// Run reads and runs statements until exit, quit, end of input, or Ctrl-C
// twice at an empty prompt. An unfinished statement continues on the next
// line. Errors are printed and the loop goes on; Run returns only the
// input's own errors.
func (s *Shell) Run(ctx context.Context, in LineReader) error {
	var buf []string
	interrupts := 0
	for !s.exited {
		prompt := s.Prompt()
		if len(buf) > 0 {
			prompt = continuation
		}
		line, err := in.Line(prompt)
		switch {
		case errors.Is(err, ErrLineInterrupted):
			if len(buf) > 0 || interrupts > 0 {
				if len(buf) == 0 {
					return nil
				}
				buf = nil
				continue
			}
			interrupts++
			fmt.Fprintln(s.opts.Err, "(To exit, press Ctrl+C again or Ctrl+D or type exit)")
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		interrupts = 0
		buf = append(buf, line)
		src := strings.Join(buf, "\n")
		if strings.TrimSpace(src) == "" {
			buf = nil
			continue
		}
		if !Complete(src) {
			continue
		}
		buf = nil
		in.Save(src)
		if err := s.Eval(ctx, "<shell>", src); err != nil {
			var exit *ExitError
			if errors.As(err, &exit) {
				return err
			}
			if s.firstErr == nil {
				s.firstErr = err
			}
			s.PrintError(err)
		}
	}
	return nil
}

// FirstError returns the first error a statement of Run printed, or nil:
// a session read from a pipe exits with its code, as a script would.
func (s *Shell) FirstError() error { return s.firstErr }

// Complete reports whether src is a whole statement (or a syntax error
// that more lines cannot fix), rather than the start of one.
func Complete(src string) bool {
	if _, err := goja.Compile("", src, false); err != nil {
		msg := err.Error()
		return !strings.Contains(msg, "Unexpected end of input") && !strings.Contains(msg, "Unterminated template")
	}
	return true
}

// PrintError prints err as the CLI does: "error: …" and "hint: …".
func (s *Shell) PrintError(err error) {
	fmt.Fprintf(s.opts.Err, "error: %s\n", err)
	if hint := errs.HintOf(err); hint != "" {
		fmt.Fprintf(s.opts.Err, "hint: %s\n", hint)
	}
}

package shell

import (
	"errors"
	"io"
	"strings"

	"github.com/chzyer/readline"
)

// Editor is the LineReader of a terminal: github.com/chzyer/readline,
// with history in a file and tab completion.
type Editor struct {
	rl *readline.Instance
}

// EditorOptions configure NewEditor.
type EditorOptions struct {
	History string // the history file; "" keeps no history
	In      io.ReadCloser
	Out     io.Writer
}

// NewEditor returns a line editor that completes with the shell's
// Completions.
func NewEditor(s *Shell, opts EditorOptions) (*Editor, error) {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 s.Prompt(),
		HistoryFile:            opts.History,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		AutoComplete:           completer{s},
		Stdin:                  opts.In,
		Stdout:                 opts.Out,
		Stderr:                 opts.Out,
	})
	if err != nil {
		return nil, err
	}
	return &Editor{rl: rl}, nil
}

// Line reads a line.
func (e *Editor) Line(prompt string) (string, error) {
	e.rl.SetPrompt(prompt)
	line, err := e.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", ErrLineInterrupted
	}
	return line, err
}

// Save adds a statement to the history file, on one line.
func (e *Editor) Save(statement string) {
	_ = e.rl.SaveHistory(strings.ReplaceAll(statement, "\n", " "))
}

// Close restores the terminal.
func (e *Editor) Close() error { return e.rl.Close() }

type completer struct{ s *Shell }

// Do answers readline's completion: the rest of each candidate word.
func (c completer) Do(line []rune, pos int) (out [][]rune, n int) {
	defer func() {
		if recover() != nil {
			out, n = nil, 0 // completion never ends the session
		}
	}()
	words, n := c.s.Completions(string(line[:pos]))
	out = make([][]rune, len(words))
	for i, w := range words {
		out[i] = []rune(w[n:])
	}
	return out, n
}

// Plain is the LineReader of a pipe: lines without editing or history.
type Plain struct {
	r    *lineScanner
	echo io.Writer
}

// NewPlain reads lines from r; prompts go to echo when it is not nil.
func NewPlain(r io.Reader, echo io.Writer) *Plain { return &Plain{r: newLineScanner(r), echo: echo} }

// Line reads a line.
func (p *Plain) Line(prompt string) (string, error) {
	if p.echo != nil {
		_, _ = io.WriteString(p.echo, prompt)
	}
	return p.r.next()
}

// Save does nothing: a pipe keeps no history.
func (p *Plain) Save(string) {}

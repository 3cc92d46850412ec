package cli

import (
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/value"
)

// The output formats of data commands (--format).
const (
	formatNDJSON = "ndjson" // canonical JSON, one document a line: the default into a pipe
	formatJSON   = "json"   // one JSON array
	formatTable  = "table"  // columns of the top-level fields
	formatCSV    = "csv"    // RFC 4180, with a header row
	formatShell  = "shell"  // mongosh's style: the default on a terminal
)

// pipeWidth is the width of a table written to a pipe or file when
// COLUMNS does not say.
const pipeWidth = 120

// formatFlags are the output flags of a command that prints documents.
type formatFlags struct {
	format string
	pretty bool
	ejson  ejsonFlag // --ejson: relaxed unless the user asks
}

// register adds --format, --pretty and --ejson (relaxed Extended JSON v2
// by default, as mongosh and mongoexport write it).
func (f *formatFlags) register(cmd *cobra.Command) {
	registerEJSON(cmd, &f.ejson, value.EJSONRelaxed)
	cmd.Flags().StringVar(&f.format, "format", "", "output format: json, ndjson, table, csv or shell (default: shell on a terminal, ndjson otherwise)")
	cmd.Flags().BoolVar(&f.pretty, "pretty", false, "indent the JSON (ndjson and json)")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(
		[]string{formatJSON, formatNDJSON, formatTable, formatCSV, formatShell}, cobra.ShellCompDirectiveNoFileComp))
}

// docOutput returns the output for documents in the format f asks for,
// or the default: mongosh's style when standard output is a terminal,
// canonical NDJSON (unchanged, byte for byte) otherwise.
func (e *env) docOutput(f *formatFlags) (*output, error) {
	out := e.output(f.pretty)
	out.ejson = f.ejson.mode
	term := isTerminal(e.stdout)
	name := f.format
	if name == "" {
		name = formatNDJSON
		if term && !f.pretty {
			name = formatShell
		}
	}
	width := e.width(term)
	switch name {
	case formatNDJSON:
	case formatJSON:
		out.docs = &jsonArray{o: out}
	case formatShell:
		if !term && os.Getenv("COLUMNS") == "" {
			width = 0 // pretty's default, mongosh's 80
		}
		out.docs = &shellDocs{o: out, opts: pretty.Options{Color: term && colour(), Width: width}}
	case formatTable:
		out.docs = &table{o: out, width: width, color: term && colour(), cols: columns{warn: e.stderr}}
	case formatCSV:
		out.docs = &csvDocs{o: out, cols: columns{warn: e.stderr}}
	default:
		return nil, usage("unknown --format %q", f.format).WithHint("use json, ndjson, table, csv or shell")
	}
	return out, nil
}

// colour reports whether a terminal may get colours: not when NO_COLOR is
// set (https://no-color.org) or the terminal is dumb.
func colour() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// width returns the width to lay documents out in: the terminal's when
// standard output is one, else COLUMNS, else pipeWidth.
func (e *env) width(term bool) int {
	if term {
		if f, ok := e.stdout.(*os.File); ok {
			if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
				return int(ws.Col)
			}
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if term {
		return 80
	}
	return pipeWidth
}

// docSink takes the documents of an output in a format other than NDJSON.
type docSink interface {
	add(v value.Value) error // one document
	end() error              // after the last one
}

// jsonArray writes the documents as one JSON array, each on a line.
type jsonArray struct {
	o *output
	n int
}

func (j *jsonArray) add(v value.Value) error {
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
	}
	j.n++
	j.o.w.WriteString(sep)
	j.o.buf = value.AppendEJSON(j.o.buf[:0], v, j.o.ejson)
	return j.o.writeJSON(j.o.buf, false)
}

func (j *jsonArray) end() error {
	if j.n == 0 {
		j.o.w.WriteString("[]\n")
		return nil
	}
	_, err := j.o.w.WriteString("\n]\n")
	return err
}

// shellDocs prints each document in mongosh's style.
type shellDocs struct {
	o    *output
	opts pretty.Options
}

func (s *shellDocs) add(v value.Value) error {
	s.o.buf = append(pretty.Append(s.o.buf[:0], v, &s.opts), '\n')
	_, err := s.o.w.Write(s.o.buf)
	return err
}

func (s *shellDocs) end() error { return nil }

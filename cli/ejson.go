package cli

import (
	"bufio"
	"bytes"
	"io"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/value"
)

// ejsonFlag is the value of --ejson: an Extended JSON output mode.
type ejsonFlag struct{ mode value.EJSONMode }

func (f *ejsonFlag) String() string { return f.mode.String() }
func (f *ejsonFlag) Type() string   { return "mode" }

func (f *ejsonFlag) Set(s string) error {
	m, err := value.ParseEJSONMode(s)
	if err != nil {
		return err
	}
	f.mode = m
	return nil
}

// registerEJSON adds --ejson to a command that prints documents, with
// mode m as its default.
func registerEJSON(cmd *cobra.Command, f *ejsonFlag, m value.EJSONMode) {
	f.mode = m
	cmd.Flags().Var(f, "ejson", "Extended JSON mode of the documents printed: relaxed, canonical, or stored (omgdb's own lossless form, as dump writes it)")
}

// ejsonLines is a writer that re-encodes each line of stored canonical
// JSON written to it in an Extended JSON mode (value.TranscodeEJSON), for
// the store's streaming writers (Export, Dump). Close writes a last line
// that has no newline and flushes.
type ejsonLines struct {
	w    *bufio.Writer
	mode value.EJSONMode
	line []byte // the unfinished line
	out  []byte
}

func (l *ejsonLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.line = append(l.line, p...)
			break
		}
		if err := l.emit(p[:i], true); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

// emit writes the unfinished line followed by rest, re-encoded.
func (l *ejsonLines) emit(rest []byte, newline bool) error {
	line := rest
	if len(l.line) > 0 {
		l.line = append(l.line, rest...)
		line = l.line
	}
	out, err := value.TranscodeEJSON(l.out[:0], line, l.mode)
	if err != nil {
		return err
	}
	if newline {
		out = append(out, '\n')
	}
	l.out, l.line = out, l.line[:0]
	_, err = l.w.Write(out)
	return err
}

// Close writes what is left of an unfinished line and flushes.
func (l *ejsonLines) Close() error {
	if len(l.line) > 0 {
		if err := l.emit(nil, false); err != nil {
			return err
		}
	}
	return l.w.Flush()
}

// ejsonWriter returns w re-encoding lines in mode m, or w itself for the
// stored form.
func ejsonWriter(w io.Writer, m value.EJSONMode) io.WriteCloser {
	if m == value.EJSONStored {
		return nopCloser{w}
	}
	return &ejsonLines{w: bufio.NewWriterSize(w, 256<<10), mode: m}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

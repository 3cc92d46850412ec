package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/query/value/jsonscan"
	"github.com/omgdb/omgdb/store"
)

// storeFlags are the flags every command that opens a store shares.
type storeFlags struct {
	lockTimeout time.Duration
}

func (f *storeFlags) register(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&f.lockTimeout, "lock-timeout", store.DefaultTimeout, "how long to wait for another process's lock on the store")
}

// openMode says how a command opens its store.
type openMode int

const (
	readOnly     openMode = iota // shared lock, never writes, never creates
	readWrite                    // exclusive lock, the store must exist
	createIfNone                 // exclusive lock, creates a missing store (saying so)
)

// open opens the store at path for a command.
func (e *env) open(path string, mode openMode, f storeFlags) (*store.DB, error) {
	if isMongo(path) {
		return nil, e.notOverMongo()
	}
	timeout := f.lockTimeout
	if timeout == 0 {
		timeout = -1 // --lock-timeout 0: do not wait
	}
	db, err := store.Open(path, &store.Options{
		ReadOnly: mode == readOnly,
		Create:   mode == createIfNone,
		Timeout:  timeout,
		Actor:    "cli",
	})
	if err != nil {
		return nil, err
	}
	if db.Created() {
		fmt.Fprintf(e.stderr, "created store %s\n", path)
	}
	return db, nil
}

// viewCollection opens the store at path read-only and runs fn on collection
// coll inside one read transaction, so everything fn reads comes from one
// snapshot.
func (e *env) viewCollection(path, coll string, f storeFlags, fn func(*store.Collection) error) error {
	db, err := e.open(path, readOnly, f)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

// readArg returns the text of a JSON argument: the argument itself, the
// contents of a file for "@file", or standard input for "-".
func (e *env) readArg(arg, what string) ([]byte, error) {
	switch {
	case arg == "-":
		b, err := io.ReadAll(io.LimitReader(e.stdin, value.MaxDocumentSize+1))
		if err != nil {
			return nil, errs.Errorf(errs.IO, "read %s from standard input: %v", what, err)
		}
		return b, nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, errs.Errorf(errs.NotFound, "read %s from %s: %v", what, arg[1:], err)
		}
		return b, nil
	}
	return []byte(arg), nil
}

// parseArg parses a JSON argument (see readArg), naming it in errors.
func (e *env) parseArg(arg, what string) (value.Value, error) {
	return e.parseArgWith(value.Parse, arg, what)
}

// parseDocArg parses a document argument that a command stores as it is
// (insert, replace): a plain integer that fits in 32 bits is an int, as
// mongosh and mongoimport store it (value.ParseInput).
func (e *env) parseDocArg(arg, what string) (value.Value, error) {
	return e.parseArgWith(value.ParseInput, arg, what)
}

func (e *env) parseArgWith(parse func([]byte) (value.Value, error), arg, what string) (value.Value, error) {
	b, err := e.readArg(arg, what)
	if err != nil {
		return value.Value{}, err
	}
	v, err := parse(b)
	if err != nil {
		qe := errs.Errorf(errs.Invalid, "%s: %v", what, err)
		qe.Hint, qe.Err = errs.HintOf(err), err
		if qe.Hint == "" {
			qe.Hint = `pass JSON in single quotes, e.g. '{"age":{"$gte":30}}'`
		}
		return value.Value{}, qe
	}
	return v, nil
}

// output writes data lines to stdout through a buffer: JSON, one
// document or result a line (indented with pretty), or, with docs set, in
// another format (format.go). Everything it prints is in its Extended
// JSON mode: relaxed unless a command's --ejson says otherwise.
type output struct {
	w      *bufio.Writer
	pretty bool
	ejson  value.EJSONMode // the form of documents and results
	buf    []byte
	docs   docSink
}

func (e *env) output(pretty bool) *output {
	return &output{w: bufio.NewWriterSize(e.stdout, 64<<10), pretty: pretty, ejson: value.EJSONRelaxed}
}

// doc writes one document as a line of JSON in the output's mode (or
// indented).
func (o *output) doc(v value.Value) error {
	if o.docs != nil {
		return o.docs.add(v)
	}
	o.buf = value.AppendEJSON(o.buf[:0], v, o.ejson)
	return o.writeJSON(o.buf, true)
}

// from writes the current document of src: the canonical JSON it is
// stored as when raw (src as a store.RawSource, or nil) hands it out
// unchanged, else the decoded document encoded again.
func (o *output) from(src agg.Source, raw store.RawSource) error {
	if raw != nil && o.docs == nil {
		if js := raw.RawJSON(); js != nil {
			return o.stored(js)
		}
		if err := src.Err(); err != nil {
			return err
		}
	}
	return o.doc(src.Doc())
}

// stored writes a stored document's canonical JSON in the output's
// Extended JSON mode.
func (o *output) stored(js []byte) error {
	if o.docs != nil {
		return o.parsed(js)
	}
	if o.ejson != value.EJSONStored {
		var err error
		if o.buf, err = value.TranscodeEJSON(o.buf[:0], js, o.ejson); err != nil {
			return err
		}
		js = o.buf
	}
	return o.writeJSON(js, true)
}

// json writes a result (a struct's JSON, whose documents and values are in
// omgdb's stored form) as one line in the output's Extended JSON mode, so
// that a plan's sample documents or an upserted _id print as find prints
// them. A result the transcoder cannot read (deeper than a document may
// be) prints in the stored form, which is lossless.
func (o *output) json(js []byte) error {
	if o.docs != nil {
		return o.parsed(js)
	}
	if o.ejson != value.EJSONStored {
		if t, err := value.TranscodeEJSON(o.buf[:0], js, o.ejson); err == nil {
			o.buf, js = t, t
		}
	}
	return o.writeJSON(js, true)
}

// parsed hands canonical JSON to the output's format as a value.
func (o *output) parsed(js []byte) error {
	v, err := value.Parse(js)
	if err != nil {
		return err
	}
	return o.docs.add(v)
}

// writeJSON writes canonical JSON bytes (indented with pretty), and a
// newline when nl. The error is the output's first write error (standard
// output closed), so that a command stops at once.
func (o *output) writeJSON(js []byte, nl bool) error {
	if o.pretty {
		var b bytes.Buffer
		indentJSON(&b, js)
		js = b.Bytes()
	}
	if _, err := o.w.Write(js); err != nil || !nl {
		return err
	}
	return o.w.WriteByte('\n')
}

// flush finishes the format (a JSON array's bracket, a table's rows) and
// writes out what is buffered.
func (o *output) flush() error {
	docs := o.docs
	o.docs = nil
	if docs != nil {
		if err := docs.end(); err != nil {
			return err
		}
	}
	err := o.w.Flush()
	if r, ok := docs.(interface{ report() }); ok && err == nil {
		r.report() // after the data, on standard error
	}
	return err
}

// close ends an output after the command's work returned err: flush
// when err is nil; else it writes out the NDJSON lines already printed,
// but does not finish another format (no closing bracket after an
// error), and returns err.
func (o *output) close(err error) error {
	if err == nil {
		return o.flush()
	}
	if o.docs == nil {
		o.w.Flush()
	}
	return err
}

// indentJSON indents compact canonical JSON without reparsing numbers.
func indentJSON(dst *bytes.Buffer, js []byte) {
	depth := 0
	newline := func() {
		dst.WriteByte('\n')
		for i := 0; i < depth; i++ {
			dst.WriteString("  ")
		}
	}
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch c {
		case '"':
			end := jsonscan.StringEnd(js, i+1)
			if end < 0 {
				end = len(js)
			}
			dst.Write(js[i:end])
			i = end - 1
		case '{', '[':
			dst.WriteByte(c)
			if i+1 < len(js) && (js[i+1] == '}' || js[i+1] == ']') {
				continue
			}
			depth++
			newline()
		case '}', ']':
			if i > 0 && (js[i-1] == '{' || js[i-1] == '[') {
				dst.WriteByte(c)
				continue
			}
			depth--
			newline()
			dst.WriteByte(c)
		case ',':
			dst.WriteByte(c)
			newline()
		case ':':
			dst.WriteString(": ")
		default:
			dst.WriteByte(c)
		}
	}
}

// usage returns a Usage error.
func usage(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Usage, format, args...)
}

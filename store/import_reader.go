package store

import (
	"errors"
	"io"

	"github.com/omgdb/omgdb/query/value"
)

// ImportDoc is one document of an import's input as ImportReader reads it:
// the parsed, prepared document (value.PrepareDocument), or the error that
// makes it a bad document, with the lines it spans.
type ImportDoc struct {
	Doc        value.Value
	Err        error
	Line, Last int64 // the first and last line of the document
	Column     int   // the column of a bad CSV or TSV field
	// Stops is true when the error stops an import whatever its options
	// (the input is not in the format given, or could not be read).
	Stops bool
	// SkipRow is true when the error leaves the row out and the import
	// goes on (--parseGrace skipRow).
	SkipRow bool
}

// ImportReader reads the documents of an import's input in the formats
// Import reads (opts.Format, JSONArray, the CSV and TSV options, Int32,
// ResumeFromLine), for an engine other than a store file to write them.
// It reads ahead on a goroutine of its own; Close stops it.
type ImportReader struct {
	in *prefetcher
}

// NewImportReader starts reading r as opts says (nil: JSON documents).
func NewImportReader(r io.Reader, opts *ImportOptions) *ImportReader {
	if opts == nil {
		opts = &ImportOptions{}
	}
	parse := value.Parse
	if opts.Int32 {
		parse = value.ParseInput
	}
	prep := func(it *prepared, text []byte) {
		doc, err := parse(text)
		if err == nil {
			doc, err = value.PrepareDocument(doc)
		}
		it.doc, it.err = doc, err
	}
	return &ImportReader{in: newPrefetcher(newSource(r, opts), prep, opts.ResumeFromLine)}
}

// Next returns the next document, or io.EOF at the end of the input.
func (r *ImportReader) Next() (ImportDoc, error) {
	it, err := r.in.next()
	if err != nil {
		return ImportDoc{}, err
	}
	d := ImportDoc{Doc: it.doc, Err: it.err, Line: it.line, Last: it.last, Column: it.col}
	d.Stops = errors.Is(it.err, errFormat) || errors.Is(it.err, errReadFailed)
	d.SkipRow = errors.Is(it.err, errSkipRow)
	return d, nil
}

// Peek returns the next document without taking it, and false at the end
// of the input.
func (r *ImportReader) Peek() (ImportDoc, bool) {
	it, ok := r.in.peek()
	return ImportDoc{Line: it.line, Last: it.last}, ok
}

// Lines returns the lines read so far: every line of the input once Next
// has returned io.EOF.
func (r *ImportReader) Lines() int64 {
	if r.in.eof {
		return max(r.in.line, r.in.total)
	}
	return r.in.line
}

// Bytes returns the bytes read up to the last document returned.
func (r *ImportReader) Bytes() int64 { return r.in.bytes }

// Close stops reading.
func (r *ImportReader) Close() { r.in.close() }

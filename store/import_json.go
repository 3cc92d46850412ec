package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// docSource is the input of an import split into documents: a stream of
// JSON documents (jsonStream) or the rows of a CSV or TSV file (csvSource).
type docSource interface {
	// next returns the next document, io.EOF at the end, or an error that
	// stops the import whatever the options (errReadFailed, errFormat).
	next() (rawDoc, error)
	// read returns the bytes read so far.
	read() int64
	// lines returns the lines read so far (all of them, at the end).
	lines() int64
}

// rawDoc is one document of the input: its JSON text (valid until the
// next call of next), the lines it spans, or the error that makes it a
// bad document (and the column of a CSV field, when known).
type rawDoc struct {
	text        []byte
	line, last  int64
	col         int
	err         error
	stopsImport bool
	// whole marks a line taken as one document without scanning it (the
	// fast path of one document per line): when it does not prepare, the
	// source reads that line again, byte by byte (rescan).
	whole bool
}

// errFormat marks an input that is not in the format the import was told
// to read (a JSON array without JSONArray, a CSV file read as JSON): the
// import stops at it even when it skips bad documents.
var errFormat = errors.New("wrong input format")

// jsonStream splits a stream of JSON documents into documents: one per
// line, several per line, pretty-printed over many lines, or concatenated,
// with or without a leading UTF-8 byte-order mark; or, with array set, the
// elements of one JSON array. It tracks only strings and nesting; the
// documents themselves are validated when they are canonicalised. A line
// that ends inside a string ends a bad document there (JSON strings hold no
// raw newline), so one bad document costs its lines, not the rest of the
// input.
type jsonStream struct {
	r     *bufio.Reader
	array bool
	line  int64 // the line of the byte being read, from 1
	bytes int64
	chunk []byte // what the reader last returned
	pos   int
	eof   bool

	depth     int  // nesting inside the current document
	inStr     bool // inside a string of it
	esc       bool // after a backslash in that string
	docStart  int  // where the current document starts in chunk (-1: in doc)
	doc       []byte
	docLine   int64
	tooBig    bool
	skipLine  bool // after junk between documents: skip to the end of the line
	arrState  int  // with array: 0 before '[', 1 inside, 2 after ']'
	bol       bool // the byte being read begins a line
	docCol0   bool // the current document starts in the first column
	needComma bool // with array: a document was read, a ',' or ']' comes next
	seen      bool // anything but white space has been read
	slow      bool // the current chunk is read byte by byte (after rescan)
}

func newJSONStream(r io.Reader, array bool) *jsonStream {
	br := bufio.NewReaderSize(r, 1<<20)
	s := &jsonStream{r: br, array: array, line: 1, docStart: -1, bol: true}
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, utf8BOM) {
		br.Discard(3)
		s.bytes = 3
	}
	return s
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func (s *jsonStream) read() int64 { return s.bytes }

func (s *jsonStream) lines() int64 {
	if s.bol {
		return s.line - 1
	}
	return s.line
}

func (s *jsonStream) next() (rawDoc, error) {
	for {
		if s.pos == len(s.chunk) {
			if err := s.fill(); err != nil {
				return rawDoc{}, err
			}
			if s.eof && s.pos == len(s.chunk) {
				return s.atEOF()
			}
		}
		if d, ok := s.wholeLine(); ok {
			return d, nil
		}
		if d, ok := s.scan(); ok {
			return d, nil
		}
	}
}

// wholeLine is the fast path of one document per line: a whole line
// between documents that starts with '{' and ends with '}' is taken as
// one document without scanning it; the canonicaliser that reads it next
// validates it, and rescan reads it again when it is not one document.
func (s *jsonStream) wholeLine() (rawDoc, bool) {
	if s.pos != 0 || s.depth != 0 || s.array || s.slow || s.skipLine {
		return rawDoc{}, false
	}
	line := s.chunk
	nl := len(line) > 0 && line[len(line)-1] == '\n'
	if !nl && !s.eof {
		return rawDoc{}, false // part of a line longer than the buffer
	}
	t := bytes.Trim(line, " \t\r\n")
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return rawDoc{}, false
	}
	d := rawDoc{text: t, line: s.line, last: s.line, whole: true}
	s.pos, s.seen = len(line), true
	if nl {
		s.line++
		s.bol = true
	} else {
		s.bol = false
	}
	return d, true
}

// rescan reads the line that the last wholeLine returned again, byte by
// byte.
func (s *jsonStream) rescan(d rawDoc) {
	s.pos, s.line, s.bol, s.slow = 0, d.line, true, true
}

// fill reads the next chunk: up to a newline, or as much as the buffer
// holds. A document in progress keeps what it had of the last one.
func (s *jsonStream) fill() error {
	if s.docStart >= 0 && s.depth > 0 {
		s.keep(s.chunk[s.docStart:])
		s.docStart = 0
	}
	if s.eof {
		return nil
	}
	chunk, err := s.r.ReadSlice('\n')
	s.chunk, s.pos, s.slow = chunk, 0, false
	s.bytes += int64(len(chunk))
	switch {
	case err == nil || err == bufio.ErrBufferFull:
		return nil
	case err == io.EOF:
		s.eof = true
		return nil
	default:
		e := errs.Errorf(errs.IO, "read input: %v", err)
		e.Err = errReadFailed
		return e
	}
}

// keep appends part of the current document to doc, up to the size limit.
func (s *jsonStream) keep(b []byte) {
	if s.tooBig {
		return
	}
	if len(s.doc)+len(b) > value.MaxDocumentSize+2 {
		s.tooBig = true
		s.doc = s.doc[:0]
		return
	}
	s.doc = append(s.doc, b...)
}

// scan reads the current chunk until it ends a document (or a bad one).
func (s *jsonStream) scan() (rawDoc, bool) {
	for s.pos < len(s.chunk) {
		if s.depth > 0 && !s.esc && !s.bol && !s.skipTo() {
			break
		}
		c := s.chunk[s.pos]
		s.pos++
		bol := s.bol
		s.bol = c == '\n'
		if s.depth > 0 {
			if bol && (c == '{' || c == '[') && s.docCol0 && !s.inStr {
				s.pos-- // read it again, between documents
				s.bol = true
				return s.unclosed(), true
			}
			if d, ok := s.inDoc(c); ok {
				return d, true
			}
			continue
		}
		if c == '\n' {
			s.line++
			s.skipLine = false
			continue
		}
		if s.skipLine || c == ' ' || c == '\t' || c == '\r' {
			continue
		}
		if d, ok := s.between(c); ok {
			return d, true
		}
	}
	return rawDoc{}, false
}

// skipTo moves pos, inside a document, to the next byte that matters to
// its structure (a quote, a backslash or a newline in a string; a quote,
// a brace, a bracket or a newline outside), and reports false when the
// chunk has none.
func (s *jsonStream) skipTo() bool {
	stops := "\"{}[]\n"
	if s.inStr {
		stops = "\"\\\n"
	}
	i := bytes.IndexAny(s.chunk[s.pos:], stops)
	if i < 0 {
		s.pos = len(s.chunk)
		return false
	}
	s.pos += i
	return true
}

// inDoc reads byte c of a document, and returns it when c ends it.
func (s *jsonStream) inDoc(c byte) (rawDoc, bool) {
	switch {
	case s.inStr && s.esc:
		s.esc = false
	case s.inStr && c == '\\':
		s.esc = true
	case s.inStr && c == '"':
		s.inStr = false
	case c == '\n' && s.inStr:
		d := s.bad(s.docLine, "invalid JSON: a line ends inside a string", "close the string on its line; a newline in a string is written \\n")
		s.line++
		return d, true
	case c == '\n':
		s.line++
	case s.inStr:
	case c == '"':
		s.inStr = true
	case c == '{' || c == '[':
		s.depth++
	case c == '}' || c == ']':
		s.depth--
		if s.depth == 0 {
			return s.end(), true
		}
	}
	return rawDoc{}, false
}

// end returns the document that the byte before pos closed.
func (s *jsonStream) end() rawDoc {
	s.needComma = s.array
	text := s.chunk[s.docStart:s.pos]
	if len(s.doc) > 0 || s.tooBig {
		s.keep(text)
		text = s.doc
	}
	s.docStart = -1
	if s.tooBig {
		return s.bad(s.docLine, fmt.Sprintf("document is over the %d-byte document limit", value.MaxDocumentSize), "")
	}
	return rawDoc{text: text, line: s.docLine, last: s.line}
}

// bad ends the current document as a bad one.
func (s *jsonStream) bad(line int64, msg, hint string) rawDoc {
	s.depth, s.inStr, s.esc, s.docStart, s.tooBig = 0, false, false, -1, false
	s.doc = s.doc[:0]
	return rawDoc{line: line, last: s.line, err: errs.Errorf(errs.Invalid, "%s", msg).WithHint("%s", hint)}
}

// between reads byte c (not white space) outside any document.
func (s *jsonStream) between(c byte) (rawDoc, bool) {
	first := !s.seen
	s.seen = true
	if s.array {
		return s.inArray(c)
	}
	if c == '{' {
		s.start()
		return rawDoc{}, false
	}
	return s.junk(c, first), true
}

// unclosed ends the current document as a bad one when a line starts
// with '{' or '[' in its first column while it is open, and it began so
// too: a document left unclosed (every JSON printer indents nested
// objects and arrays). That line is read as what comes next.
func (s *jsonStream) unclosed() rawDoc {
	s.line--
	d := s.bad(s.docLine, "invalid JSON: the document is not closed before the next line starts a document", "close its braces (a nested object or array that starts a line is indented)")
	s.line++
	return d
}

// start begins a document at the byte before pos.
func (s *jsonStream) start() {
	s.depth, s.docStart, s.docLine = 1, s.pos-1, s.line
	s.docCol0 = s.pos == 1 || s.chunk[s.pos-2] == '\n'
	s.doc = s.doc[:0]
}

// inArray reads byte c (not white space) outside any document of a JSON
// array.
func (s *jsonStream) inArray(c byte) (rawDoc, bool) {
	switch {
	case s.arrState == 0 && c == '[':
		s.arrState = 1
	case s.arrState == 1 && c == ',' && s.needComma:
		s.needComma = false
	case s.arrState == 1 && c == ']':
		s.arrState = 2
	case s.arrState == 1 && c == '{' && !s.needComma:
		s.start()
	case s.arrState == 0 && c == '{':
		return s.formatError("the input is not a JSON array: it starts with a document", "leave out --jsonArray to read a stream of documents"), true
	case s.arrState == 0:
		return s.formatError(fmt.Sprintf("the input is not a JSON array: it starts with %s", quoteByte(c)), "--jsonArray reads one array of documents: [{…},{…}]"), true
	case s.arrState == 2:
		s.skipLine = true
		return s.badByte(c, "data after the end of the JSON array", "the array ends at its closing ]; remove what follows"), true
	case c == '{':
		d := s.badByte(c, "a ',' is missing between the documents of the array", "separate the documents with commas")
		s.start() // and read the document
		return d, true
	case c == ',':
		return s.badByte(c, "an element of the array is missing", "remove the extra comma"), true
	default:
		s.skipLine = true
		return s.badByte(c, "an element of the array is not a document", "every element must be a JSON object: {…}"), true
	}
	return rawDoc{}, false
}

// junk reports byte c found where a document should start, and skips the
// rest of its line. At the very start of the input it names the format
// the input seems to be in and stops the import.
func (s *jsonStream) junk(c byte, first bool) rawDoc {
	if first && c == '[' {
		return s.formatError("the input is a JSON array, not a stream of documents", "this looks like a JSON array: use --jsonArray")
	}
	s.skipLine = true
	if first && s.looksDelimited() {
		return s.formatError(fmt.Sprintf("the input is not JSON: it starts with %s", quoteByte(c)), "this looks like CSV or TSV: use --type csv (or tsv) with --headerline when the first line names the fields")
	}
	return s.badByte(c, "expected a document", "every document is a JSON object: {…}")
}

// looksDelimited reports whether the rest of the current line has a comma
// or a tab and no brace: the header of a CSV or TSV file.
func (s *jsonStream) looksDelimited() bool {
	rest := s.chunk[s.pos-1:]
	return bytes.ContainsAny(rest, ",\t") && !bytes.ContainsAny(rest, "{}")
}

func (s *jsonStream) badByte(c byte, msg, hint string) rawDoc {
	return rawDoc{line: s.line, last: s.line, err: errs.Errorf(errs.Invalid, "%s, found %s", msg, quoteByte(c)).WithHint("%s", hint)}
}

func (s *jsonStream) formatError(msg, hint string) rawDoc {
	e := errs.Errorf(errs.Invalid, "%s", msg).WithHint("%s", hint)
	e.Err = errFormat
	return rawDoc{line: s.line, last: s.line, err: e, stopsImport: true}
}

// atEOF ends the input: a document or an array left open is a bad one.
func (s *jsonStream) atEOF() (rawDoc, error) {
	switch {
	case s.depth > 0:
		d := s.bad(s.docLine, "invalid JSON: the input ends inside the document that starts on this line", "close its braces")
		d.last = max(d.line, s.lines())
		return d, nil
	case s.array && s.arrState == 1:
		s.arrState = 2
		return rawDoc{line: s.line, last: s.line, err: errs.Errorf(errs.Invalid, "the input ends inside the JSON array").WithHint("close the array with ]")}, nil
	}
	return rawDoc{}, io.EOF
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("`%c`", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

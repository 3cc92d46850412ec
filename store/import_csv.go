package store

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// csvSource reads the rows of a CSV or TSV file as documents, as
// mongoimport does: the columns are named by the first line (HeaderLine)
// or by Fields, a dotted name makes a nested document, and each value is
// typed by its column (ColumnsHaveTypes) or, by default, read as a number
// when it is one and as a string otherwise.
type csvSource struct {
	r      *csv.Reader
	count  *countingReader
	opts   *ImportOptions
	cols   []column
	tree   *csvNode
	buf    []byte
	header bool // the header line is still to be read
	json   bool // the input starts with '{' or '[': it is JSON
}

// csvNode is the shape of the documents a row makes: a field that a
// column fills (col >= 0) or an object of fields (col < 0).
type csvNode struct {
	key  string
	col  int
	kids []*csvNode
}

// countingReader counts the bytes and lines read through it, and fails
// when one record (from start) grows past the document size limit: the
// CSV reader holds a whole record in memory.
type countingReader struct {
	r     io.Reader
	n     int64
	lines int64
	open  bool  // the last line read has no newline yet
	start int64 // n when the current record began
}

// maxRecord bounds a CSV record's bytes (the reader's read-ahead, 4 KiB,
// counts against it).
const maxRecord = value.MaxDocumentSize + 64<<10

var errRecordTooBig = errors.New("record too big")

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n-c.start > maxRecord {
		e := errs.Errorf(errs.Limit, "a record is over the %d-byte document limit", value.MaxDocumentSize).
			WithHint("a quote left open makes the rest of the file one field: check the quotes before this line")
		e.Err = errRecordTooBig
		return 0, e
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 {
		c.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
		c.open = p[n-1] != '\n'
	}
	return n, err
}

func newCSVSource(r io.Reader, opts *ImportOptions) *csvSource {
	br := bufio.NewReaderSize(r, 1<<20)
	count := &countingReader{r: br}
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, utf8BOM) {
		br.Discard(3)
		count.n = 3
	}
	head, _ := br.Peek(64)
	head = bytes.TrimLeft(head, " \t\r\n")
	json := len(head) > 0 && (head[0] == '{' || head[0] == '[')
	cr := csv.NewReader(count)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	if opts.Format == FormatTSV {
		cr.Comma, cr.LazyQuotes = '\t', true
	}
	return &csvSource{r: cr, count: count, opts: opts, header: opts.HeaderLine, json: json}
}

func (s *csvSource) read() int64 { return s.count.n }

func (s *csvSource) lines() int64 {
	if s.count.open {
		return s.count.lines + 1
	}
	return s.count.lines
}

func (s *csvSource) next() (rawDoc, error) {
	if s.json {
		s.json = false
		e := errs.Errorf(errs.Invalid, "the input is JSON, not %s", strings.ToUpper(string(s.opts.Format))).
			WithHint("this looks like JSON: leave out --type (json is the default), with --jsonArray for an array")
		e.Err = errFormat
		return rawDoc{line: 1, last: 1, err: e, stopsImport: true}, nil
	}
	if s.header {
		s.header = false
		if d, stop := s.readHeader(); stop {
			return d, nil
		}
	} else if s.tree == nil {
		if d, stop := s.setColumns(s.opts.Fields, 0); stop {
			return d, nil
		}
	}
	s.count.start = s.count.n
	rec, err := s.r.Read()
	if err == io.EOF {
		return rawDoc{}, io.EOF
	}
	if err != nil {
		return s.readError(err, rawDoc{})
	}
	line, _ := s.r.FieldPos(0)
	last, _ := s.r.FieldPos(len(rec) - 1)
	last += strings.Count(rec[len(rec)-1], "\n") // a quoted field over lines
	return s.row(rec, rawDoc{line: int64(line), last: int64(last)}), nil
}

// readError turns an error of the CSV reader into a bad row, or into an
// error that stops the import when reading failed.
func (s *csvSource) readError(err error, d rawDoc) (rawDoc, error) {
	var pe *csv.ParseError
	if errors.Is(err, errRecordTooBig) {
		e := errs.Errorf(errs.Limit, "%v", err).WithHint("%s", errs.HintOf(err))
		e.Err = errReadFailed
		return rawDoc{}, e
	}
	if !errors.As(err, &pe) {
		e := errs.Errorf(errs.IO, "read input: %v", err)
		e.Err = errReadFailed
		return rawDoc{}, e
	}
	d.line, d.last = int64(pe.StartLine), int64(pe.Line)
	if pe.Line == pe.StartLine {
		d.col = pe.Column
	}
	d.err = errs.Errorf(errs.Invalid, "%v", pe.Err).
		WithHint(`a field that holds a quote, a delimiter or a newline is quoted, and its quotes doubled: "say ""hi"""`)
	return d, nil
}

// readHeader reads the column names from the first line.
func (s *csvSource) readHeader() (rawDoc, bool) {
	rec, err := s.r.Read()
	if err == io.EOF {
		return rawDoc{}, false
	}
	if err != nil {
		d, rerr := s.readError(err, rawDoc{line: 1, last: 1})
		if rerr != nil {
			d.err = rerr
		}
		d.stopsImport = true
		return d, true
	}
	return s.setColumns(rec, 1)
}

// setColumns parses the column names (line is the header's, 0 for
// Fields) and the shape of the documents they make.
func (s *csvSource) setColumns(names []string, line int64) (rawDoc, bool) {
	cols, err := parseColumns(names, s.opts.ColumnsHaveTypes)
	if err == nil {
		s.tree, err = columnTree(cols)
	}
	if err != nil {
		where := "--fields"
		if line > 0 {
			where = "the header line"
		}
		e := errs.Errorf(errs.Usage, "%s: %v", where, err).WithHint("%s", errs.HintOf(err))
		e.Err = errFormat
		return rawDoc{line: line, last: line, err: e, stopsImport: true}, true
	}
	s.cols = cols
	return rawDoc{}, false
}

// columnTree arranges the columns by their dotted names.
func columnTree(cols []column) (*csvNode, error) {
	root := &csvNode{col: -1}
	for i, c := range cols {
		n := root
		parts := strings.Split(c.name, ".")
		for j, p := range parts {
			kid := n.kid(p)
			leaf := j == len(parts)-1
			switch {
			case kid == nil:
				kid = &csvNode{key: p, col: -1}
				n.kids = append(n.kids, kid)
			case leaf || kid.col >= 0:
				return nil, errs.Errorf(errs.Usage, "column %d `%s` clashes with column %d", i+1, c.name, firstCol(kid)+1).
					WithHint("a name is either a value or a document of dotted names, not both, and appears once")
			}
			if leaf {
				kid.col = i
			}
			n = kid
		}
	}
	return root, nil
}

func (n *csvNode) kid(key string) *csvNode {
	for _, k := range n.kids {
		if k.key == key {
			return k
		}
	}
	return nil
}

func firstCol(n *csvNode) int {
	for n.col < 0 && len(n.kids) > 0 {
		n = n.kids[0]
	}
	return n.col
}

// row makes the document of one row.
func (s *csvSource) row(rec []string, d rawDoc) rawDoc {
	if len(rec) > len(s.cols) {
		_, col := s.r.FieldPos(len(s.cols))
		d.col = col
		d.err = errs.Errorf(errs.Invalid, "%d fields, but %d columns are named", len(rec), len(s.cols)).
			WithHint("quote a field that holds the delimiter, or name every column")
		return d
	}
	buf, _, err := s.appendObject(s.buf[:0], s.tree, rec)
	s.buf = buf
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			_, d.col = s.r.FieldPos(fe.col)
		}
		d.err = err
		return d
	}
	d.text = buf
	return d
}

// appendObject appends the object of node n for one row, and reports
// whether it has any field (blank fields are left out with IgnoreBlanks,
// missing trailing fields always).
func (s *csvSource) appendObject(dst []byte, n *csvNode, rec []string) ([]byte, bool, error) {
	dst = append(dst, '{')
	any := false
	for _, k := range n.kids {
		mark := len(dst)
		if any {
			dst = append(dst, ',')
		}
		dst = value.AppendString(dst, k.key)
		dst = append(dst, ':')
		var ok bool
		var err error
		if k.col >= 0 {
			dst, ok, err = s.appendField(dst, k.col, rec)
		} else {
			dst, ok, err = s.appendObject(dst, k, rec)
		}
		if err != nil {
			return dst, false, err
		}
		if !ok {
			dst = dst[:mark]
			continue
		}
		any = true
	}
	return append(dst, '}'), any, nil
}

func (s *csvSource) appendField(dst []byte, col int, rec []string) ([]byte, bool, error) {
	if col >= len(rec) || (rec[col] == "" && s.opts.IgnoreBlanks) {
		return dst, false, nil
	}
	out, err := s.cols[col].appendValue(dst, rec[col])
	if err == nil {
		return out, true, nil
	}
	switch s.opts.ParseGrace {
	case ParseAutoCast:
		return appendAuto(dst, rec[col]), true, nil
	case ParseSkipField:
		return dst, false, nil
	case ParseSkipRow:
		err.Err = errSkipRow
	}
	return dst, false, &fieldError{col: col, err: err}
}

// errSkipRow marks a row that ParseSkipRow leaves out: it is reported
// and the import goes on.
var errSkipRow = errors.New("row skipped")

// fieldError is a value that its column's type cannot read.
type fieldError struct {
	col int
	err *errs.Error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// describeColumns is for error messages: "name" or "name.type(arg)".
func (c column) String() string {
	if c.kind == "" {
		return c.name
	}
	return fmt.Sprintf("%s.%s(%s)", c.name, c.kind, c.arg)
}

package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/value"
)

// sampleDocs is how many documents a table or CSV output reads before it
// fixes its columns: the top-level fields of these, in the order they
// first appear. Fields that only later documents have are not shown.
const sampleDocs = 100

// columns collects the first documents of an output and the top-level
// fields they have, and notes the fields that later documents add.
type columns struct {
	names  []string
	seen   map[string]bool
	sample []value.Value
	fixed  bool
	warn   io.Writer // where fields left out are reported
	late   []string  // fields of later documents that are not columns
}

// add takes a document; it reports false while the sample is being
// collected (the document is kept), true once the columns are fixed.
func (c *columns) add(v value.Value) bool {
	if c.fixed {
		for _, f := range v.Fields() {
			if !c.seen[f.Key] {
				c.seen[f.Key] = true
				c.late = append(c.late, f.Key)
			}
		}
		return true
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	for _, f := range v.Fields() {
		if !c.seen[f.Key] {
			c.seen[f.Key] = true
			c.names = append(c.names, f.Key)
		}
	}
	c.sample = append(c.sample, v)
	if len(c.sample) == sampleDocs {
		c.fixed = true
	}
	return false
}

// report says on the warning stream which fields of later documents had
// no column, so that a table or CSV never drops data unsaid.
func (c *columns) report() {
	if len(c.late) == 0 || c.warn == nil {
		return
	}
	fmt.Fprintf(c.warn, "warning: fields that only documents after the first %d have are not shown: %s\nhint: choose the columns with --project, or print JSON (--format json or ndjson)\n", sampleDocs, strings.Join(c.late, ", "))
}

// cells returns the values of v in the columns' order.
func (c *columns) cells(v value.Value) []value.Value {
	row := make([]value.Value, len(c.names))
	for i, name := range c.names {
		row[i] = v.Get(name)
	}
	return row
}

// table prints documents as columns of their top-level fields, fitted to
// a width: nested values in one line as mongosh writes them, strings bare,
// a missing field as an empty cell, and cells too long cut with "…".
type table struct {
	o       *output
	width   int
	color   bool
	cols    columns
	widths  []int
	header  bool
	dropped bool // columns were dropped to fit: rows end with "…"
}

func (t *table) add(v value.Value) error {
	if !t.cols.add(v) {
		return nil
	}
	if !t.header {
		t.start()
	}
	return t.row(t.cols.cells(v))
}

func (t *table) report() { t.cols.report() }

func (t *table) end() error {
	if !t.header {
		if len(t.cols.sample) == 0 {
			return nil
		}
		t.start()
	}
	return nil
}

// start fixes the column widths from the sample and prints the header and
// the sampled rows.
func (t *table) start() {
	t.cols.fixed, t.header = true, true
	t.widths = make([]int, len(t.cols.names))
	for i, name := range t.cols.names {
		t.widths[i] = runewidth.StringWidth(name)
	}
	for _, v := range t.cols.sample {
		for i, cell := range t.cols.cells(v) {
			t.widths[i] = max(t.widths[i], runewidth.StringWidth(tableCell(cell)))
		}
	}
	t.fit()
	t.line(t.cols.names, true)
	for _, v := range t.cols.sample {
		t.row(t.cols.cells(v))
	}
	t.cols.sample = nil
}

// minColumn is the width fit narrows a column to before it drops columns.
const minColumn = 10

// fit narrows the widest columns until the row fits the width (two
// spaces between columns), down to minColumn characters each; if that is
// not enough, it drops the last columns, and a last column "…" says so.
func (t *table) fit() {
	for t.rowWidth() > t.width {
		widest := 0
		for i, w := range t.widths {
			if w > t.widths[widest] {
				widest = i
			}
		}
		if t.widths[widest] <= minColumn {
			break
		}
		t.widths[widest]--
	}
	for len(t.widths) > 1 && t.rowWidth() > t.width {
		t.widths = t.widths[:len(t.widths)-1]
		t.cols.names = t.cols.names[:len(t.cols.names)-1]
		t.dropped = true
	}
}

func (t *table) rowWidth() int {
	n := 2 * (len(t.widths) - 1)
	if t.dropped {
		n += 3
	}
	for _, w := range t.widths {
		n += w
	}
	return n
}

func (t *table) row(cells []value.Value) error {
	text := make([]string, len(cells))
	for i, c := range cells {
		text[i] = tableCell(c)
	}
	return t.line(text, false)
}

// line prints one row, each cell cut or padded to its column's width,
// without trailing spaces. The error is the output's first write error.
func (t *table) line(cells []string, head bool) error {
	var b strings.Builder
	for i, c := range cells[:len(t.widths)] {
		c = runewidth.Truncate(c, t.widths[i], "…")
		pad := strings.Repeat(" ", t.widths[i]-runewidth.StringWidth(c)+2)
		if head && t.color {
			c = "\033[1m" + c + "\033[0m"
		}
		b.WriteString(c + pad)
	}
	if t.dropped {
		b.WriteString("…")
	}
	t.o.w.WriteString(strings.TrimRight(b.String(), " "))
	return t.o.w.WriteByte('\n')
}

// tableCell is how a value reads in a table: strings bare (control
// characters as spaces), a missing field empty, ObjectIds as their hex,
// dates in ISO 8601, integers bare, anything else as mongosh writes it, on
// one line.
func tableCell(v value.Value) string {
	switch v.Kind() {
	case value.Missing:
		return ""
	case value.ObjectID:
		return v.OID().Hex()
	case value.Date:
		return isoDate(v.Date())
	case value.Long, value.Int:
		return strconv.FormatInt(v.Long(), 10)
	case value.String:
		return strings.Map(func(r rune) rune {
			if r < ' ' || r == 0x7f {
				return ' '
			}
			return r
		}, v.Str())
	}
	return pretty.Format(v, &pretty.Options{Width: 1 << 30})
}

// csvDocs writes documents as CSV (RFC 4180) with a header row of the
// sampled columns: strings bare, dates in ISO 8601, ObjectIds as their
// hex, numbers and nested values as relaxed Extended JSON (as mongoexport
// writes them), a missing field empty.
type csvDocs struct {
	o    *output
	w    *csv.Writer
	cols columns
}

func (c *csvDocs) add(v value.Value) error {
	if !c.cols.add(v) {
		return nil
	}
	c.start()
	return c.row(v)
}

func (c *csvDocs) report() { c.cols.report() }

func (c *csvDocs) end() error {
	if c.w == nil && len(c.cols.sample) == 0 {
		return nil
	}
	c.start()
	c.w.Flush()
	return c.w.Error()
}

// start writes the header and the sampled rows, once.
func (c *csvDocs) start() {
	if c.w != nil {
		return
	}
	c.cols.fixed = true
	c.w = csv.NewWriter(c.o.w)
	c.w.UseCRLF = true // RFC 4180
	c.w.Write(c.cols.names)
	for _, v := range c.cols.sample {
		c.row(v)
	}
	c.cols.sample = nil
}

func (c *csvDocs) row(v value.Value) error {
	cells := c.cols.cells(v)
	rec := make([]string, len(cells))
	for i, cell := range cells {
		rec[i] = csvCell(cell)
	}
	return c.w.Write(rec)
}

func csvCell(v value.Value) string {
	switch v.Kind() {
	case value.Missing:
		return ""
	case value.String:
		return v.Str()
	case value.ObjectID:
		return v.OID().Hex()
	case value.Date:
		return isoDate(v.Date())
	}
	return string(value.AppendEJSON(nil, v, value.EJSONRelaxed))
}

// isoDate writes a date as ISO 8601 in UTC, to the millisecond.
func isoDate(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

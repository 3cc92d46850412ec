package pretty

import (
	"encoding/base64"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// Options set how a value is printed. A nil *Options means the defaults.
type Options struct {
	// Indent is the number of spaces a nesting level adds (default 2).
	Indent int
	// Color wraps values in ANSI colour escapes (default off).
	Color bool
	// Width is the line length under which an object or array is printed
	// on one line (default 80, as mongosh's breakLength).
	Width int
}

func (o *Options) norm() Options {
	var n Options
	if o != nil {
		n = *o
	}
	if n.Indent <= 0 {
		n.Indent = 2
	}
	if n.Width <= 0 {
		n.Width = 80
	}
	return n
}

// Format returns v printed in mongosh's style, without a final newline.
func Format(v value.Value, o *Options) string { return string(Append(nil, v, o)) }

// Write writes v printed in mongosh's style and a newline to w.
func Write(w io.Writer, v value.Value, o *Options) error {
	_, err := w.Write(append(Append(nil, v, o), '\n'))
	return err
}

// Append appends v printed in mongosh's style to dst.
func Append(dst []byte, v value.Value, o *Options) []byte {
	p := printer{opts: o.norm()}
	return p.value(dst, v, 0, 0)
}

type printer struct{ opts Options }

// value appends v, whose first character sits at column col, in a block
// indented by indent spaces.
func (p *printer) value(dst []byte, v value.Value, indent, col int) []byte {
	switch v.Kind() {
	case value.Object, value.Array:
		if v.Len() == 0 {
			return append(dst, empty(v)...)
		}
		if flat := p.flat(nil, v); col+len(flat) <= p.opts.Width {
			return p.oneLine(dst, v)
		}
		return p.block(dst, v, indent)
	}
	return p.scalar(dst, v)
}

func empty(v value.Value) string {
	if v.Kind() == value.Array {
		return "[]"
	}
	return "{}"
}

// flat appends v on one line without colour; it measures a one-line form.
func (p *printer) flat(dst []byte, v value.Value) []byte {
	q := printer{opts: p.opts}
	q.opts.Color = false
	return q.oneLine(dst, v)
}

func (p *printer) oneLine(dst []byte, v value.Value) []byte {
	switch v.Kind() {
	case value.Array:
		if v.Len() == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, "[ "...)
		for i, e := range v.Array() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = p.oneLine(dst, e)
		}
		return append(dst, " ]"...)
	case value.Object:
		if v.Len() == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, "{ "...)
		for i, f := range v.Fields() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendKey(dst, f.Key)
			dst = append(dst, ": "...)
			dst = p.oneLine(dst, f.Value)
		}
		return append(dst, " }"...)
	}
	return p.scalar(dst, v)
}

// block appends v one element a line, its closing bracket indented by
// indent spaces.
func (p *printer) block(dst []byte, v value.Value, indent int) []byte {
	inner := indent + p.opts.Indent
	open, close := byte('{'), byte('}')
	if v.Kind() == value.Array {
		open, close = '[', ']'
	}
	dst = append(dst, open, '\n')
	n := v.Len()
	for i := 0; i < n; i++ {
		dst = appendSpaces(dst, inner)
		start := len(dst)
		var e value.Value
		if v.Kind() == value.Array {
			e = v.Index(i)
		} else {
			f := v.Fields()[i]
			dst = appendKey(dst, f.Key)
			dst = append(dst, ": "...)
			e = f.Value
		}
		dst = p.value(dst, e, inner, inner+len(dst)-start)
		if i < n-1 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
	}
	dst = appendSpaces(dst, indent)
	return append(dst, close)
}

func appendSpaces(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
	}
	return dst
}

// ANSI colours as mongosh uses them.
const (
	green   = "\x1b[32m"
	yellow  = "\x1b[33m"
	magenta = "\x1b[35m"
	bold    = "\x1b[1m"
	reset   = "\x1b[0m"
)

func (p *printer) paint(dst []byte, colour string, text []byte) []byte {
	if !p.opts.Color {
		return append(dst, text...)
	}
	dst = append(dst, colour...)
	dst = append(dst, text...)
	return append(dst, reset...)
}

func (p *printer) scalar(dst []byte, v value.Value) []byte {
	switch v.Kind() {
	case value.Missing:
		return append(dst, "undefined"...)
	case value.Null:
		return p.paint(dst, bold, []byte("null"))
	case value.Bool:
		return p.paint(dst, yellow, strconv.AppendBool(nil, v.Bool()))
	case value.Long:
		return p.paint(dst, yellow, appendLong(nil, v.Long()))
	case value.Double:
		return p.paint(dst, yellow, appendDouble(nil, v.Double()))
	case value.String:
		return p.paint(dst, green, appendQuoted(nil, v.Str()))
	case value.ObjectID:
		return p.paint(dst, magenta, call(nil, "ObjectId", v.OID().Hex()))
	case value.Date:
		return p.paint(dst, magenta, appendDate(nil, v.Date()))
	case value.Binary:
		return p.paint(dst, magenta, appendBinary(nil, v))
	case value.Int, value.Decimal:
		return p.paint(dst, yellow, appendNumber(nil, v))
	case value.Timestamp, value.Regex, value.MinKey, value.MaxKey:
		return p.paint(dst, magenta, appendSpecial(nil, v))
	}
	return append(dst, v.String()...)
}

// appendLong prints an integer as mongosh prints an int32 (bare) when it
// fits in one, and as Long('…') otherwise: omgdb keeps all integers as
// int64, and most of them are small.
func appendLong(dst []byte, n int64) []byte {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return strconv.AppendInt(dst, n, 10)
	}
	return call(dst, "Long", strconv.FormatInt(n, 10))
}

// appendDouble prints a double so that it reads back as a double: with a
// '.' or an exponent (5.0, not 5), and NaN or Infinity bare.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return value.AppendDouble(dst, f)
}

func appendDate(dst []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return append(append(append(dst, "new Date("...), strconv.FormatInt(ms, 10)...), ')')
	}
	return call(dst, "ISODate", t.Format("2006-01-02T15:04:05.000Z"))
}

func appendBinary(dst []byte, v value.Value) []byte {
	dst = append(dst, "Binary.createFromBase64("...)
	dst = appendQuoted(dst, base64.StdEncoding.EncodeToString(v.Bytes()))
	dst = append(dst, ", "...)
	dst = strconv.AppendInt(dst, int64(v.Subtype()), 10)
	return append(dst, ')')
}

// call appends name('arg').
func call(dst []byte, name, arg string) []byte {
	dst = append(dst, name...)
	dst = append(dst, '(')
	dst = appendQuoted(dst, arg)
	return append(dst, ')')
}

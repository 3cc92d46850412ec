package store

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// column is one column of a CSV or TSV import: its dotted field name and,
// with ColumnsHaveTypes, the type its values are read as (mongoimport's
// name.type(arg) form); kind "" reads as auto().
type column struct {
	name, kind, arg string
}

// columnTypes are the types a column may declare, as mongoimport names
// them ("date" is "date_go": a Go time layout).
var columnTypes = []string{"auto", "binary", "boolean", "bool", "date", "date_go", "decimal", "double", "int32", "int64", "string"}

var typedColumn = regexp.MustCompile(`^(.+)\.([a-z_0-9]+)\((.*)\)$`)

// parseColumns parses column names, with their types when typed.
func parseColumns(names []string, typed bool) ([]column, error) {
	if len(names) == 0 {
		return nil, errs.Errorf(errs.Usage, "no columns are named").WithHint("name them with --headerline, --fields or --fieldFile")
	}
	cols := make([]column, len(names))
	for i, name := range names {
		c, err := parseColumn(strings.TrimSpace(name), typed)
		if err != nil {
			return nil, errs.Errorf(errs.Usage, "column %d `%s`: %v", i+1, name, err).WithHint("%s", errs.HintOf(err))
		}
		cols[i] = c
	}
	return cols, nil
}

func parseColumn(name string, typed bool) (column, error) {
	if !typed {
		if name == "" {
			return column{}, errs.Errorf(errs.Usage, "the name is empty").WithHint("every column needs a name")
		}
		return column{name: name}, nil
	}
	m := typedColumn.FindStringSubmatch(name)
	if m == nil {
		return column{}, errs.Errorf(errs.Usage, "no type").
			WithHint("with --columnsHaveTypes every column is written name.type(), e.g. age.int32() or created.date(2006-01-02)")
	}
	c := column{name: m[1], kind: m[2], arg: m[3]}
	switch c.kind {
	case "date_ms", "date_oracle":
		return c, errs.Errorf(errs.Usage, "%s() is not supported", c.kind).WithHint("write the layout as Go's: date(2006-01-02 15:04:05)")
	case "binary":
		if c.arg != "base64" && c.arg != "base32" && c.arg != "hex" {
			return c, errs.Errorf(errs.Usage, "binary(%s): unknown encoding", c.arg).WithHint("use binary(base64), binary(base32) or binary(hex)")
		}
	case "date", "date_go":
		if c.arg == "" {
			return c, errs.Errorf(errs.Usage, "%s() needs a layout", c.kind).WithHint("give Go's layout of the reference time, e.g. date(2006-01-02)")
		}
	default:
		if !isColumnType(c.kind) {
			return c, errs.Errorf(errs.Usage, "unknown type %s()%s", c.kind, errs.DidYouMean(c.kind, columnTypes)).
				WithHint("the types are %s()", strings.Join(columnTypes, "(), "))
		}
		if c.arg != "" {
			return c, errs.Errorf(errs.Usage, "%s() takes no argument", c.kind).WithHint("write %s()", c.kind)
		}
	}
	return c, nil
}

func isColumnType(kind string) bool {
	for _, t := range columnTypes {
		if t == kind {
			return true
		}
	}
	return false
}

// appendValue appends the JSON of field text s as the column's type reads
// it (Extended JSON where JSON has no form for it).
func (c column) appendValue(dst []byte, s string) ([]byte, *errs.Error) {
	switch c.kind {
	case "", "auto":
		return appendAuto(dst, s), nil
	case "string":
		return value.AppendString(dst, s), nil
	case "int32", "int64":
		bits := map[string]int{"int32": 32, "int64": 64}[c.kind]
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return dst, c.cannot(s)
		}
		return appendWrapped(dst, map[string]string{"int32": "$numberInt", "int64": "$numberLong"}[c.kind], strconv.FormatInt(n, 10)), nil
	case "double":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return dst, c.cannot(s)
		}
		return value.AppendDouble(dst, f), nil
	case "decimal":
		if !numeric.MatchString(strings.TrimSpace(s)) {
			return dst, c.cannot(s)
		}
		return appendWrapped(dst, "$numberDecimal", strings.TrimSpace(s)), nil
	case "boolean", "bool":
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return dst, c.cannot(s)
		}
		return strconv.AppendBool(dst, b), nil
	case "date", "date_go":
		t, err := time.Parse(c.arg, s)
		if err != nil {
			return dst, c.cannot(s)
		}
		dst = append(dst, `{"$date":`...)
		return append(appendWrapped(dst, "$numberLong", strconv.FormatInt(t.UnixMilli(), 10)), '}'), nil
	case "binary":
		return c.appendBinary(dst, s)
	}
	return dst, c.cannot(s)
}

// numeric is the text auto() reads as a number: decimal digits, an
// optional sign, fraction and exponent (not "NaN", "Inf" or hex).
var numeric = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// appendAuto reads s as mongoimport does by default: a number when it is
// one (int32, then int64, then double), a string otherwise.
func appendAuto(dst []byte, s string) []byte {
	if !numeric.MatchString(s) {
		return value.AppendString(dst, s)
	}
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return appendWrapped(dst, "$numberInt", strconv.FormatInt(n, 10))
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.AppendInt(dst, n, 10)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return value.AppendString(dst, s)
	}
	return value.AppendDouble(dst, f)
}

// appendWrapped appends {"<key>":"<text>"}.
func appendWrapped(dst []byte, key, text string) []byte {
	dst = append(dst, '{')
	dst = value.AppendString(dst, key)
	dst = append(dst, ':')
	dst = value.AppendString(dst, text)
	return append(dst, '}')
}

func (c column) appendBinary(dst []byte, s string) ([]byte, *errs.Error) {
	var data []byte
	var err error
	switch c.arg {
	case "base64":
		data, err = base64.StdEncoding.DecodeString(s)
	case "base32":
		data, err = base32.StdEncoding.DecodeString(s)
	default:
		data, err = hex.DecodeString(s)
	}
	if err != nil {
		return dst, c.cannot(s)
	}
	dst = append(dst, `{"$binary":{"base64":`...)
	dst = value.AppendString(dst, base64.StdEncoding.EncodeToString(data))
	return append(dst, `,"subType":"00"}}`...), nil
}

func (c column) cannot(s string) *errs.Error {
	hint := "fix the value, or declare the column with another type"
	if s == "" {
		hint = "the field is blank: --ignoreBlanks leaves blank fields out"
	}
	return errs.Errorf(errs.Invalid, "field `%s`: cannot read %q as %s(%s)", c.name, s, c.kind, c.arg).WithHint("%s", hint)
}

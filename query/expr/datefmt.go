package expr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// $dateToString, $dateFromString, and the format specifiers they share:
// %Y %m %d %H %M %S %L %j %w %u %U %V %G %z %Z %b %B %%.

func registerExprDatefmtOps() {
	registerOps(map[string]opCompiler{
		"$dateToString":   compileDateToString,
		"$dateFromString": compileDateFromString,
	})
}

// formatDateTime formats t with MongoDB's specifiers; format has been
// checked by checkDateFormat.
func formatDateTime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 >= len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		b.WriteString(formatSpec(t, format[i]))
	}
	return b.String()
}

func formatSpec(t time.Time, spec byte) string {
	isoYear, isoWeek := t.ISOWeek()
	switch spec {
	case 'Y':
		return fmt.Sprintf("%04d", t.Year())
	case 'G':
		return fmt.Sprintf("%04d", isoYear)
	case 'm':
		return fmt.Sprintf("%02d", int(t.Month()))
	case 'd':
		return fmt.Sprintf("%02d", t.Day())
	case 'H':
		return fmt.Sprintf("%02d", t.Hour())
	case 'M':
		return fmt.Sprintf("%02d", t.Minute())
	case 'S':
		return fmt.Sprintf("%02d", t.Second())
	case 'L':
		return fmt.Sprintf("%03d", t.Nanosecond()/1e6)
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'w':
		return strconv.Itoa(int(t.Weekday()) + 1)
	case 'u':
		return strconv.FormatInt(isoDayOfWeek(t), 10)
	case 'U':
		return fmt.Sprintf("%02d", weekOfYear(t))
	case 'V':
		return fmt.Sprintf("%02d", isoWeek)
	case 'z':
		return t.Format("-0700")
	case 'Z':
		_, off := t.Zone()
		return fmt.Sprintf("%+d", off/60)
	case 'b':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	}
	return "%"
}

// checkDateFormat rejects unknown specifiers and a trailing '%'.
func checkDateFormat(op, format string) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i+1 >= len(format) {
			return errs.Errorf(errs.Invalid, "%s: unmatched '%%' at end of format string", op)
		}
		i++
		if !strings.ContainsRune("YGmdHMSLjwuUVzZbB%", rune(format[i])) {
			return errs.Errorf(errs.Invalid, "%s: invalid format character '%%%c' in format string", op, format[i]).
				WithHint("use %%Y %%m %%d %%H %%M %%S %%L %%j %%w %%u %%U %%V %%G %%z %%Z %%b %%B or %%%%")
		}
	}
	return nil
}

// dateToStringNode is $dateToString.
type dateToStringNode struct {
	date, format, tz, onNull Node
}

func compileDateToString(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"date"}, []string{"format", "timezone", "onNull"})
	if err != nil {
		return nil, err
	}
	if f, ok := m["format"].(Literal); ok && f.Value.Kind() == value.String {
		if err := checkDateFormat(name, f.Value.Str()); err != nil {
			return nil, err
		}
	}
	return &dateToStringNode{m["date"], m["format"], m["timezone"], m["onNull"]}, nil
}

func (n *dateToStringNode) Eval(c *EvalCtx) (value.Value, error) {
	d, err := n.date.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if Nullish(d) {
		if n.onNull != nil {
			return n.onNull.Eval(c)
		}
		return value.NullValue(), nil
	}
	format := "%Y-%m-%dT%H:%M:%S.%LZ"
	if n.format != nil {
		f, err := n.format.Eval(c)
		if err != nil || Nullish(f) {
			return value.NullValue(), err
		}
		if f.Kind() != value.String {
			return value.Value{}, errs.Errorf(errs.Invalid, "$dateToString requires that 'format' be a string, found: %s", f.TypeName())
		}
		if err := checkDateFormat("$dateToString", f.Str()); err != nil {
			return value.Value{}, err
		}
		format = f.Str()
	}
	t, ok, err := evalDateIn(c, "$dateToString", Literal{d}, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	if t.Year() < 0 || t.Year() > 9999 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$dateToString is only defined on year 0 to 9999, found %d", t.Year())
	}
	return value.StringValue(formatDateTime(t, format)), nil
}

// dateFromStringNode is $dateFromString.
type dateFromStringNode struct {
	str, format, tz, onError, onNull Node
}

func compileDateFromString(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"dateString"}, []string{"format", "timezone", "onError", "onNull"})
	if err != nil {
		return nil, err
	}
	if f, ok := m["format"].(Literal); ok && f.Value.Kind() == value.String {
		if err := checkDateFormat(name, f.Value.Str()); err != nil {
			return nil, err
		}
	}
	return &dateFromStringNode{m["dateString"], m["format"], m["timezone"], m["onError"], m["onNull"]}, nil
}

func (n *dateFromStringNode) Eval(c *EvalCtx) (value.Value, error) {
	s, err := n.str.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if Nullish(s) {
		if n.onNull != nil {
			return n.onNull.Eval(c)
		}
		return value.NullValue(), nil
	}
	loc, ok, err := evalLocation(c, "$dateFromString", n.tz)
	if !ok {
		return value.NullValue(), err
	}
	format, err := evalOpt(n.format, c)
	if err != nil {
		return value.Value{}, err
	}
	ms, perr := n.parse(s, format, loc)
	if perr == nil {
		return value.DateValue(ms), nil
	}
	if n.onError != nil {
		return n.onError.Eval(c)
	}
	return value.Value{}, perr
}

func (n *dateFromStringNode) parse(s, format value.Value, loc *time.Location) (int64, error) {
	if s.Kind() != value.String {
		return 0, errs.Errorf(errs.Invalid, "$dateFromString requires that 'dateString' be a string, found: %s with value %s", s.TypeName(), s)
	}
	var opts *time.Location
	if n.tz != nil {
		opts = loc
	}
	if Nullish(format) {
		return parseDateString(s.Str(), opts)
	}
	if format.Kind() != value.String {
		return 0, errs.Errorf(errs.Invalid, "$dateFromString requires that 'format' be a string, found: %s", format.TypeName())
	}
	if err := checkDateFormat("$dateFromString", format.Str()); err != nil {
		return 0, err
	}
	return parseWithFormat(s.Str(), format.Str(), opts)
}

// dateLayouts are the forms parseDateString accepts, ISO 8601 first.
var dateLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05.999999999",
	"2006/01/02",
	"January 2, 2006 15:04:05",
	"January 2, 2006",
	"Jan 2, 2006",
	"2 January 2006",
	"2 Jan 2006",
}

// parseDateString parses a date without a format. A string without a zone
// is read in loc (UTC when nil); a string with one and a non-nil loc is an
// error, as in MongoDB.
func parseDateString(s string, loc *time.Location) (int64, error) {
	in := loc
	if in == nil {
		in = time.UTC
	}
	for _, layout := range dateLayouts {
		t, err := time.ParseInLocation(layout, s, in)
		if err != nil {
			continue
		}
		if loc != nil && strings.Contains(layout, "Z07") && hasZone(s) {
			return 0, errs.Errorf(errs.Invalid, "$dateFromString: you cannot pass in a date/time string with time zone information ('%s') together with a second time zone argument", s)
		}
		return t.UnixMilli(), nil
	}
	return 0, errs.Errorf(errs.Invalid, "$dateFromString: error parsing date string '%s'", s).
		WithHint(`write an ISO 8601 date such as "2024-05-01T12:00:00Z", or give "format"`)
}

func hasZone(s string) bool {
	return strings.HasSuffix(s, "Z") || strings.LastIndexAny(s, "+-") > 10
}

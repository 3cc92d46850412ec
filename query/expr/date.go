package expr

import (
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones even where the system has none

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Date part operators ($year … $isoDayOfWeek), time zones, and the shared
// helpers of the date operators. Dates are milliseconds since the epoch,
// UTC; a timezone argument (an IANA name such as "Europe/Paris", or an
// offset "+05:30", "-0800", "+03") selects the wall clock the parts are
// read in.

func registerExprDateOps() {
	parts := map[string]func(time.Time) int64{
		"$year":         func(t time.Time) int64 { return int64(t.Year()) },
		"$month":        func(t time.Time) int64 { return int64(t.Month()) },
		"$dayOfMonth":   func(t time.Time) int64 { return int64(t.Day()) },
		"$hour":         func(t time.Time) int64 { return int64(t.Hour()) },
		"$minute":       func(t time.Time) int64 { return int64(t.Minute()) },
		"$second":       func(t time.Time) int64 { return int64(t.Second()) },
		"$millisecond":  func(t time.Time) int64 { return int64(t.Nanosecond() / 1e6) },
		"$dayOfWeek":    func(t time.Time) int64 { return int64(t.Weekday()) + 1 },
		"$dayOfYear":    func(t time.Time) int64 { return int64(t.YearDay()) },
		"$week":         weekOfYear,
		"$isoWeek":      func(t time.Time) int64 { _, w := t.ISOWeek(); return int64(w) },
		"$isoWeekYear":  func(t time.Time) int64 { y, _ := t.ISOWeek(); return int64(y) },
		"$isoDayOfWeek": isoDayOfWeek,
	}
	ops := map[string]opCompiler{}
	for name, part := range parts {
		ops[name] = datePartOp(part)
	}
	registerOps(ops)
}

// weekOfYear is strftime's %U: weeks start on Sunday, and the days before
// the year's first Sunday are in week 0.
func weekOfYear(t time.Time) int64 {
	return int64((t.YearDay() - 1 + 7 - int(t.Weekday())) / 7)
}

func isoDayOfWeek(t time.Time) int64 {
	if t.Weekday() == time.Sunday {
		return 7
	}
	return int64(t.Weekday())
}

// datePartNode evaluates a date and a timezone, then extracts one part.
type datePartNode struct {
	op       string
	date, tz Node
	part     func(time.Time) int64
}

func datePartOp(part func(time.Time) int64) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		date, tz, err := compileDateArg(c, name, arg)
		if err != nil {
			return nil, err
		}
		return &datePartNode{name, date, tz, part}, nil
	}
}

// compileDateArg reads the argument forms of the date part operators:
// <date>, [<date>], or {date: <date>, timezone: <tz>}.
func compileDateArg(c *Compiler, name string, arg value.Value) (date, tz Node, err error) {
	if arg.Kind() == value.Object && arg.Len() > 0 && !strings.HasPrefix(arg.Fields()[0].Key, "$") {
		m, err := c.Named(name, arg, []string{"date"}, []string{"timezone"})
		if err != nil {
			return nil, nil, err
		}
		return m["date"], m["timezone"], nil
	}
	args, err := c.args(name, arg, 1, 1)
	if err != nil {
		return nil, nil, err
	}
	return args[0], nil, nil
}

func (n *datePartNode) Eval(c *EvalCtx) (value.Value, error) {
	t, ok, err := evalDateIn(c, n.op, n.date, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	return value.LongValue(n.part(t)), nil
}

// evalDateIn evaluates a date and an optional timezone into a wall-clock
// time; ok is false (result null) when either is null or missing.
func evalDateIn(c *EvalCtx, op string, date, tz Node) (time.Time, bool, error) {
	d, err := date.Eval(c)
	if err != nil || Nullish(d) {
		return time.Time{}, false, err
	}
	ms, err := dateMillis(op, d)
	if err != nil {
		return time.Time{}, false, err
	}
	loc, ok, err := evalLocation(c, op, tz)
	if !ok {
		return time.Time{}, false, err
	}
	return time.UnixMilli(ms).In(loc), true, nil
}

// dateMillis converts a date (or an objectId's time) to milliseconds.
func dateMillis(op string, v value.Value) (int64, error) {
	switch v.Kind() {
	case value.Date:
		return v.Date(), nil
	case value.ObjectID:
		return v.OID().Time().UnixMilli(), nil
	}
	return 0, errs.Errorf(errs.Invalid, "%s: can't convert from BSON type %s to Date", op, v.TypeName())
}

// evalLocation evaluates an optional timezone; absent means UTC.
func evalLocation(c *EvalCtx, op string, tz Node) (*time.Location, bool, error) {
	if tz == nil {
		return time.UTC, true, nil
	}
	v, err := tz.Eval(c)
	if err != nil || Nullish(v) {
		return nil, false, err
	}
	if v.Kind() != value.String {
		return nil, false, errs.Errorf(errs.Invalid, "%s: timezone must be a string, found %s", op, v.TypeName())
	}
	loc, err := location(v.Str())
	if err != nil {
		return nil, false, err
	}
	return loc, true, nil
}

var locations sync.Map // name -> *time.Location

// location resolves an IANA zone name or a UTC offset.
func location(name string) (*time.Location, error) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), nil
	}
	loc, ok := offsetLocation(name)
	if !ok {
		var err error
		if loc, err = loadZone(name); err != nil {
			return nil, errs.Errorf(errs.Invalid, "unrecognized time zone identifier: %q", name).
				WithHint(`use an IANA name such as "Europe/Paris" or an offset such as "+05:30"`)
		}
	}
	locations.Store(name, loc)
	return loc, nil
}

// loadZone loads an IANA zone; "Local" and "" are refused, since the
// result must not depend on the machine.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") {
		return nil, errs.Errorf(errs.Invalid, "not a zone name")
	}
	return time.LoadLocation(name)
}

// offsetLocation parses "+hh:mm", "+hhmm" and "+hh" (or "-").
func offsetLocation(s string) (*time.Location, bool) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return nil, false
	}
	digits := strings.Replace(s[1:], ":", "", 1)
	if len(digits) != 2 && len(digits) != 4 || (strings.Contains(s, ":") && len(s) != 6) {
		return nil, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || strings.ContainsAny(digits, "+-") {
		return nil, false
	}
	h, m := n, 0
	if len(digits) == 4 {
		h, m = n/100, n%100
	}
	if m >= 60 {
		return nil, false
	}
	secs := h*3600 + m*60
	if s[0] == '-' {
		secs = -secs
	}
	return time.FixedZone(s, secs), true
}

// formatDate writes a date as MongoDB's default $dateToString format.
func formatDate(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	return formatDateTime(t, "%Y-%m-%dT%H:%M:%S.%LZ")
}

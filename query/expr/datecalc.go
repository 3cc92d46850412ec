package expr

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// $dateAdd, $dateSubtract, $dateDiff and $dateTrunc. Units of a day and
// longer follow the wall clock of the timezone; shorter units are fixed
// durations.

func registerExprDatecalcOps() {
	registerOps(map[string]opCompiler{
		"$dateAdd":      compileDateAdd(1),
		"$dateSubtract": compileDateAdd(-1),
		"$dateDiff":     compileDateDiff,
		"$dateTrunc":    compileDateTrunc,
	})
}

var timeUnits = []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond"}

// fixedUnits are the units of fixed length, in milliseconds.
var fixedUnits = map[string]int64{"week": 7 * 86400000, "day": 86400000, "hour": 3600000, "minute": 60000, "second": 1000, "millisecond": 1}

func evalUnit(c *EvalCtx, op string, n Node) (string, bool, error) {
	v, err := n.Eval(c)
	if err != nil || Nullish(v) {
		return "", false, err
	}
	if v.Kind() != value.String || !slices.Contains(timeUnits, v.Str()) {
		return "", false, errs.Errorf(errs.Invalid, "%s: unknown time unit value: %s%s", op, v, errs.DidYouMean(v.Str(), timeUnits)).
			WithHint("units are %s", strings.Join(timeUnits, ", "))
	}
	return v.Str(), true, nil
}

type dateAddNode struct {
	op                      string
	start, unit, amount, tz Node
	sign                    int64
}

func compileDateAdd(sign int64) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		m, err := c.Named(name, arg, []string{"startDate", "unit", "amount"}, []string{"timezone"})
		if err != nil {
			return nil, err
		}
		return &dateAddNode{name, m["startDate"], m["unit"], m["amount"], m["timezone"], sign}, nil
	}
}

func (n *dateAddNode) Eval(c *EvalCtx) (value.Value, error) {
	t, ok, err := evalDateIn(c, n.op, n.start, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	unit, ok, err := evalUnit(c, n.op, n.unit)
	if !ok {
		return value.NullValue(), err
	}
	a, err := n.amount.Eval(c)
	if err != nil || Nullish(a) {
		return value.NullValue(), err
	}
	amount, isInt := ExactInt(a)
	if !isInt {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s expects integer amount of time units, found %s", n.op, a)
	}
	if amount == math.MinInt64 {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: amount %d is out of range", n.op, amount)
	}
	return addUnits(n.op, t, unit, amount*n.sign)
}

// addUnits adds amount units to t, clamping to the end of the month when
// months are added ("2021-01-31" + 1 month is "2021-02-28").
func addUnits(op string, t time.Time, unit string, amount int64) (value.Value, error) {
	tooBig := errs.Errorf(errs.Invalid, "%s: the result is out of the range of a date (amount %d %s)", op, amount, unit)
	if ms, ok := fixedUnits[unit]; ok && unit != "day" && unit != "week" {
		d, ok := mulInt64(amount, ms)
		if !ok {
			return value.Value{}, tooBig
		}
		r, ok := addInt64(t.UnixMilli(), d)
		if !ok {
			return value.Value{}, tooBig
		}
		return value.DateValue(r), nil
	}
	if math.Abs(float64(amount)) > 1e9 {
		return value.Value{}, tooBig
	}
	var r time.Time
	switch unit {
	case "week":
		r = t.AddDate(0, 0, int(amount)*7)
	case "day":
		r = t.AddDate(0, 0, int(amount))
	default:
		r = addMonths(t, int(amount)*map[string]int{"year": 12, "quarter": 3, "month": 1}[unit])
	}
	if y := r.Year(); y < -292000000 || y > 292000000 {
		return value.Value{}, tooBig
	}
	return value.DateValue(r.UnixMilli()), nil
}

func addMonths(t time.Time, months int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(months), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}

type dateDiffNode struct {
	start, end, unit, tz, startOfWeek Node
}

func compileDateDiff(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"startDate", "endDate", "unit"}, []string{"timezone", "startOfWeek"})
	if err != nil {
		return nil, err
	}
	return &dateDiffNode{m["startDate"], m["endDate"], m["unit"], m["timezone"], m["startOfWeek"]}, nil
}

func (n *dateDiffNode) Eval(c *EvalCtx) (value.Value, error) {
	start, ok, err := evalDateIn(c, "$dateDiff", n.start, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	end, ok, err := evalDateIn(c, "$dateDiff", n.end, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	unit, ok, err := evalUnit(c, "$dateDiff", n.unit)
	if !ok {
		return value.NullValue(), err
	}
	sow, err := evalStartOfWeek(c, "$dateDiff", n.startOfWeek)
	if err != nil {
		return value.Value{}, err
	}
	return value.LongValue(unitIndex(end, unit, sow) - unitIndex(start, unit, sow)), nil
}

// unitIndex numbers the unit periods of the wall clock, so that the
// difference of two indexes counts the boundaries crossed between them.
func unitIndex(t time.Time, unit string, startOfWeek time.Weekday) int64 {
	y, m, _ := t.Date()
	switch unit {
	case "year":
		return int64(y)
	case "quarter":
		return int64(y)*4 + int64(m-1)/3
	case "month":
		return int64(y)*12 + int64(m-1)
	case "week":
		// 1970-01-01 was a Thursday; count weeks from a startOfWeek day.
		days := wallDays(t) - int64((int(startOfWeek)-int(time.Thursday)+7)%7)
		return floorDiv(days, 7)
	case "day":
		return wallDays(t)
	}
	return floorDiv(wallMillis(t), fixedUnits[unit])
}

// wallMillis is t's wall clock read as if it were UTC, in milliseconds.
func wallMillis(t time.Time) int64 {
	_, off := t.Zone()
	return t.UnixMilli() + int64(off)*1000
}

func wallDays(t time.Time) int64 { return floorDiv(wallMillis(t), 86400000) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday, "monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
}

func evalStartOfWeek(c *EvalCtx, op string, n Node) (time.Weekday, error) {
	if n == nil {
		return time.Sunday, nil
	}
	v, err := n.Eval(c)
	if err != nil || Nullish(v) {
		return time.Sunday, err
	}
	d, ok := weekdays[strings.ToLower(v.Str())]
	if !ok || v.Kind() != value.String {
		return 0, errs.Errorf(errs.Invalid, "%s: unknown startOfWeek value: %s", op, v).WithHint("use a day name such as \"monday\" or \"mon\"")
	}
	return d, nil
}

type dateTruncNode struct {
	date, unit, binSize, tz, startOfWeek Node
}

func compileDateTrunc(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"date", "unit"}, []string{"binSize", "timezone", "startOfWeek"})
	if err != nil {
		return nil, err
	}
	return &dateTruncNode{m["date"], m["unit"], m["binSize"], m["timezone"], m["startOfWeek"]}, nil
}

func (n *dateTruncNode) Eval(c *EvalCtx) (value.Value, error) {
	t, ok, err := evalDateIn(c, "$dateTrunc", n.date, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	unit, ok, err := evalUnit(c, "$dateTrunc", n.unit)
	if !ok {
		return value.NullValue(), err
	}
	bin := int64(1)
	if n.binSize != nil {
		b, err := n.binSize.Eval(c)
		if err != nil || Nullish(b) {
			return value.NullValue(), err
		}
		var isInt bool
		if bin, isInt = ExactInt(b); !isInt || bin <= 0 || bin > 1e11 {
			return value.Value{}, errs.Errorf(errs.Invalid, "$dateTrunc requires 'binSize' to be a positive integer of at most 100000000000, found %s", b)
		}
	}
	sow, err := evalStartOfWeek(c, "$dateTrunc", n.startOfWeek)
	if err != nil {
		return value.Value{}, err
	}
	return value.DateValue(truncDate(t, unit, bin, sow).UnixMilli()), nil
}

// truncDate returns the start of the bin of binSize units that holds t,
// bins counted from 2000-01-01 (for weeks, from the first startOfWeek
// day on or after it) in t's time zone.
func truncDate(t time.Time, unit string, bin int64, sow time.Weekday) time.Time {
	loc := t.Location()
	switch unit {
	case "year", "quarter", "month":
		per := map[string]int64{"year": 12, "quarter": 3, "month": 1}[unit] * bin
		y, m, _ := t.Date()
		months := int64(y-2000)*12 + int64(m-1)
		start := floorDiv(months, per) * per
		return time.Date(2000+int(floorDiv(start, 12)), time.Month(start-floorDiv(start, 12)*12+1), 1, 0, 0, 0, 0, loc)
	case "week", "day":
		ref := time.Date(2000, 1, 1, 0, 0, 0, 0, loc)
		per := bin
		if unit == "week" {
			ref = ref.AddDate(0, 0, (int(sow)-int(ref.Weekday())+7)%7)
			per = bin * 7
		}
		days := wallDays(t) - wallDays(ref)
		start := floorDiv(days, per) * per
		return ref.AddDate(0, 0, int(start))
	}
	per, ok := mulInt64(fixedUnits[unit], bin)
	if !ok {
		per = math.MaxInt64
	}
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	wall := wallMillis(t) - ref
	start := floorDiv(wall, per)*per + ref
	w := time.UnixMilli(start).UTC()
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
}

// AddDateUnits adds amount units ("year" … "millisecond") to the date t,
// as $dateAdd does; op names the caller in errors.
func AddDateUnits(op string, t time.Time, unit string, amount int64) (value.Value, error) {
	if !slices.Contains(timeUnits, unit) {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: unknown time unit %q%s", op, unit, errs.DidYouMean(unit, timeUnits))
	}
	return addUnits(op, t, unit, amount)
}

// UnitMillis returns the milliseconds of a fixed time unit (week and
// below); ok is false for month, quarter, year and unknown names.
func UnitMillis(unit string) (ms int64, ok bool) {
	ms, ok = fixedUnits[unit]
	return ms, ok
}

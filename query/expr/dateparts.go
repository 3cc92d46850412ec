package expr

import (
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// $dateToParts and $dateFromParts.

func registerExprDatepartsOps() {
	registerOps(map[string]opCompiler{
		"$dateToParts":   compileDateToParts,
		"$dateFromParts": compileDateFromParts,
	})
}

type dateToPartsNode struct {
	date, tz, iso Node
}

func compileDateToParts(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"date"}, []string{"timezone", "iso8601"})
	if err != nil {
		return nil, err
	}
	return &dateToPartsNode{m["date"], m["timezone"], m["iso8601"]}, nil
}

func (n *dateToPartsNode) Eval(c *EvalCtx) (value.Value, error) {
	t, ok, err := evalDateIn(c, "$dateToParts", n.date, n.tz)
	if !ok {
		return value.NullValue(), err
	}
	iso, err := evalOpt(n.iso, c)
	if err != nil {
		return value.Value{}, err
	}
	if !Nullish(iso) && iso.Kind() != value.Bool {
		return value.Value{}, errs.Errorf(errs.Invalid, "$dateToParts: iso8601 must be a boolean, found %s", iso.TypeName())
	}
	long := func(i int) value.Value { return value.LongValue(int64(i)) }
	clock := []value.Field{{Key: "hour", Value: long(t.Hour())}, {Key: "minute", Value: long(t.Minute())}, {Key: "second", Value: long(t.Second())}, {Key: "millisecond", Value: long(t.Nanosecond() / 1e6)}}
	if iso.Bool() {
		y, w := t.ISOWeek()
		return value.ObjectValue(append([]value.Field{{Key: "isoWeekYear", Value: long(y)}, {Key: "isoWeek", Value: long(w)}, {Key: "isoDayOfWeek", Value: value.LongValue(isoDayOfWeek(t))}}, clock...)), nil
	}
	return value.ObjectValue(append([]value.Field{{Key: "year", Value: long(t.Year())}, {Key: "month", Value: long(int(t.Month()))}, {Key: "day", Value: long(t.Day())}}, clock...)), nil
}

type dateFromPartsNode struct {
	parts map[string]Node
	iso   bool
}

var (
	calendarParts = []string{"year", "month", "day"}
	isoParts      = []string{"isoWeekYear", "isoWeek", "isoDayOfWeek"}
	clockParts    = []string{"hour", "minute", "second", "millisecond", "timezone"}
)

func compileDateFromParts(c *Compiler, name string, arg value.Value) (Node, error) {
	iso := arg.Kind() == value.Object && !arg.Get("isoWeekYear").IsMissing()
	required, optional := []string{"year"}, append(calendarParts[1:], clockParts...)
	if iso {
		required, optional = []string{"isoWeekYear"}, append(isoParts[1:], clockParts...)
	}
	m, err := c.Named(name, arg, required, optional)
	if err != nil {
		return nil, err
	}
	return &dateFromPartsNode{m, iso}, nil
}

func (n *dateFromPartsNode) Eval(c *EvalCtx) (value.Value, error) {
	names := append(calendarParts, clockParts[:4]...)
	if n.iso {
		names = append(isoParts, clockParts[:4]...)
	}
	vals := make([]int, len(names))
	for i, name := range names {
		v, ok, err := n.part(c, name, i)
		if !ok {
			return value.NullValue(), err
		}
		vals[i] = v
	}
	loc, ok, err := evalLocation(c, "$dateFromParts", n.parts["timezone"])
	if !ok {
		return value.NullValue(), err
	}
	if vals[0] < 1 || vals[0] > 9999 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$dateFromParts: '%s' must evaluate to an integer in the range 1 to 9999, found %d", names[0], vals[0])
	}
	var t time.Time
	if n.iso {
		jan4 := time.Date(vals[0], 1, 4, 0, 0, 0, 0, loc)
		monday := jan4.AddDate(0, 0, -int(isoDayOfWeek(jan4)-1))
		t = monday.AddDate(0, 0, (vals[1]-1)*7+vals[2]-1)
		t = time.Date(t.Year(), t.Month(), t.Day(), vals[3], vals[4], vals[5], vals[6]*1e6, loc)
	} else {
		t = time.Date(vals[0], time.Month(vals[1]), vals[2], vals[3], vals[4], vals[5], vals[6]*1e6, loc)
	}
	return value.DateValue(t.UnixMilli()), nil
}

// part evaluates one part: defaults are 1 for month, day, isoWeek and
// isoDayOfWeek and 0 for the clock; ok is false for null.
func (n *dateFromPartsNode) part(c *EvalCtx, name string, i int) (int, bool, error) {
	def := 0
	if i < 3 {
		def = 1
	}
	e := n.parts[name]
	if e == nil {
		return def, true, nil
	}
	v, err := e.Eval(c)
	if err != nil || Nullish(v) {
		return 0, false, err
	}
	x, ok := ExactInt(v)
	if !ok {
		return 0, false, errs.Errorf(errs.Invalid, "$dateFromParts: '%s' must evaluate to an integer, found %s with value %s", name, v.TypeName(), v)
	}
	if i > 0 && (x < -32768 || x > 32767) {
		return 0, false, errs.Errorf(errs.Invalid, "$dateFromParts: '%s' must evaluate to a value in the range [-32768, 32767], found %d", name, x)
	}
	if x < -1e6 || x > 1e6 {
		return 0, false, errs.Errorf(errs.Invalid, "$dateFromParts: '%s' is out of range: %d", name, x)
	}
	return int(x), true, nil
}

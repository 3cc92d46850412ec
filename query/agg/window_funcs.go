package agg

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// The window functions of $setWindowFields: the accumulators over a
// window ($sum, $avg, $push, $top, …), $count, $covariancePop/Samp,
// $derivative and $integral over a window; $rank, $denseRank,
// $documentNumber, $shift, $expMovingAvg, $locf and $linearFill over the
// partition in order, without a window.

// noWindow are the window functions that take no window.
var noWindow = []string{"$rank", "$denseRank", "$documentNumber", "$shift", "$expMovingAvg", "$locf", "$linearFill"}

func (s *windowStage) compileOutput(c *expr.Compiler, field string, spec value.Value) (windowFunc, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$setWindowFields: output field %q must be an object with a window function, found %s", field, spec)
	}
	var op string
	var arg, win value.Value
	for _, f := range spec.Fields() {
		switch {
		case f.Key == "window":
			win = f.Value
		case op == "" && len(f.Key) > 1 && f.Key[0] == '$':
			op, arg = f.Key, f.Value
		default:
			return nil, errs.Errorf(errs.Invalid, "$setWindowFields: output field %q: unexpected %q; give one window function and an optional window", field, f.Key)
		}
	}
	if op == "" {
		return nil, errs.Errorf(errs.Invalid, "$setWindowFields: output field %q has no window function", field).
			WithHint(`write {"%s":{"$sum":"$qty"}}`, field)
	}
	if slices.Contains(noWindow, op) {
		if !win.IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "$setWindowFields: %s does not accept a window", op)
		}
		return s.compileOrdered(c, op, arg)
	}
	w, err := s.compileWindow(win)
	if err != nil {
		return nil, err
	}
	switch op {
	case "$derivative", "$integral":
		return s.compileRate(c, op, arg, w)
	case "$covariancePop", "$covarianceSamp":
		args, ok := arg.Array(), arg.Kind() == value.Array
		if !ok || len(args) != 2 {
			return nil, errs.Errorf(errs.Invalid, "$setWindowFields: %s takes an array of two expressions, found %s", op, arg)
		}
		x, err := c.Compile(args[0])
		if err != nil {
			return nil, err
		}
		y, err := c.Compile(args[1])
		if err != nil {
			return nil, err
		}
		return &covarianceFunc{x: x, y: y, samp: op == "$covarianceSamp", w: w}, nil
	}
	acc, err := expr.CompileAccumulator(c, "w", value.ObjectValue([]value.Field{{Key: op, Value: arg}}))
	if err != nil {
		return nil, err
	}
	return &accFunc{acc: acc, w: w}, nil
}

// A window is [lower, upper], by position (documents) or by the sortBy
// value (range, with a unit when it holds dates).
type window struct {
	byRange      bool
	unit         string
	lower, upper bound
}

type bound struct {
	unbounded, current bool
	n                  value.Value // the offset otherwise
}

func (s *windowStage) compileWindow(spec value.Value) (window, error) {
	w := window{lower: bound{unbounded: true}, upper: bound{unbounded: true}}
	if spec.IsMissing() {
		return w, nil
	}
	if spec.Kind() != value.Object {
		return w, errs.Errorf(errs.Invalid, "$setWindowFields: 'window' must be an object, found %s", spec)
	}
	var bounds value.Value
	for _, f := range spec.Fields() {
		switch f.Key {
		case "documents", "range":
			if !bounds.IsMissing() {
				return w, errs.Errorf(errs.Invalid, "$setWindowFields: a window has either 'documents' or 'range' bounds, not both")
			}
			bounds, w.byRange = f.Value, f.Key == "range"
		case "unit":
			if f.Value.Kind() != value.String {
				return w, errs.Errorf(errs.Invalid, "$setWindowFields: 'unit' must be a string, found %s", f.Value)
			}
			w.unit = f.Value.Str()
		default:
			return w, errs.Errorf(errs.Invalid, "$setWindowFields: unknown window field %s%s", f.Key, errs.DidYouMean(f.Key, []string{"documents", "range", "unit"}))
		}
	}
	if bounds.Kind() != value.Array || bounds.Len() != 2 {
		return w, errs.Errorf(errs.Invalid, "$setWindowFields: window bounds must be an array of two, found %s", bounds).
			WithHint(`write {"documents":["unbounded","current"]} or {"range":[-7,0],"unit":"day"}`)
	}
	if w.unit != "" {
		if !w.byRange {
			return w, errs.Errorf(errs.Invalid, "$setWindowFields: 'unit' needs a 'range' window")
		}
		if _, err := expr.AddDateUnits("$setWindowFields", time.Unix(0, 0), w.unit, 0); err != nil {
			return w, err
		}
	}
	var err error
	if w.lower, err = parseBound(bounds.Index(0), w.byRange); err != nil {
		return w, err
	}
	if w.upper, err = parseBound(bounds.Index(1), w.byRange); err != nil {
		return w, err
	}
	if !w.lower.unbounded && !w.upper.unbounded && w.lower.offset() > w.upper.offset() {
		return w, errs.Errorf(errs.Invalid, "$setWindowFields: the lower bound of a window must not be above its upper bound, found %s", bounds)
	}
	if w.byRange {
		if err := s.needSort("a range window", true); err != nil {
			return w, err
		}
	}
	return w, nil
}

// offset is the bound as a number ('current' is 0), for the order check.
func (b bound) offset() float64 {
	if b.current {
		return 0
	}
	return b.n.Float()
}

func parseBound(v value.Value, byRange bool) (bound, error) {
	switch {
	case v.Kind() == value.String && v.Str() == "unbounded":
		return bound{unbounded: true}, nil
	case v.Kind() == value.String && v.Str() == "current":
		return bound{current: true}, nil
	case !v.IsNumber():
		return bound{}, errs.Errorf(errs.Invalid, "$setWindowFields: a window bound must be 'unbounded', 'current' or a number, found %s", v)
	case !byRange:
		n, ok := expr.ExactInt(v)
		if !ok {
			return bound{}, errs.Errorf(errs.Invalid, "$setWindowFields: a documents bound must be an integer, found %s", v)
		}
		return bound{n: value.LongValue(n)}, nil
	}
	return bound{n: v}, nil
}

// span returns the window of document i as positions [lo, hi] of the
// partition; lo > hi for an empty window.
func (w window) span(p *partition, i int) (lo, hi int, err error) {
	n := len(p.docs)
	if !w.byRange {
		lo, hi = 0, n-1
		if !w.lower.unbounded {
			lo = i + int(w.lower.offset())
		}
		if !w.upper.unbounded {
			hi = i + int(w.upper.offset())
		}
		return max(lo, 0), min(hi, n-1), nil
	}
	xs := p.sortValues()
	x := xs[i]
	if err := w.checkX(x); err != nil {
		return 0, 0, err
	}
	desc := p.st.sortDesc
	lo, hi = 0, n-1
	switch {
	case w.lower.current:
		lo = i
	case !w.lower.unbounded:
		limit, err := w.shift(x, w.lower.n, desc)
		if err != nil {
			return 0, 0, err
		}
		// The first document not before the limit in sort order.
		lo = sort.Search(n, func(j int) bool { return inOrder(limit, xs[j], desc) })
	}
	switch {
	case w.upper.current:
		hi = i
	case !w.upper.unbounded:
		limit, err := w.shift(x, w.upper.n, desc)
		if err != nil {
			return 0, 0, err
		}
		// The last document not after the limit in sort order.
		hi = sort.Search(n, func(j int) bool { return !inOrder(xs[j], limit, desc) }) - 1
	}
	return lo, hi, nil
}

// inOrder reports whether a comes before b or ties with it in the sort
// order of the sortBy field.
func inOrder(a, b value.Value, desc bool) bool {
	c := value.Compare(a, b)
	if desc {
		return c >= 0
	}
	return c <= 0
}

// checkX refuses a sortBy value a range window cannot measure.
func (w window) checkX(x value.Value) error {
	if w.unit != "" {
		if x.Kind() != value.Date {
			return errs.Errorf(errs.Invalid, "Invalid range: Expected the sortBy field to be a date, but it was %s", x.TypeName()).
				WithHint("a range window with a 'unit' measures dates; leave 'unit' out for numbers")
		}
		return nil
	}
	if !x.IsNumber() {
		return errs.Errorf(errs.Invalid, "Invalid range: Expected the sortBy field to be a number, but it was %s", x.TypeName()).
			WithHint("a range window measures numbers, or dates with a 'unit'")
	}
	return nil
}

// shift moves the sortBy value x by an offset, in sort order: forward is
// up for an ascending sort and down for a descending one.
func (w window) shift(x, by value.Value, desc bool) (value.Value, error) {
	if desc {
		by = negate(by)
	}
	if w.unit != "" {
		n, ok := expr.ExactInt(by)
		if !ok {
			return value.Value{}, errs.Errorf(errs.Invalid, "$setWindowFields: a range with a unit takes whole numbers, found %s", by)
		}
		return expr.AddDateUnits("$setWindowFields", time.UnixMilli(x.Date()).UTC(), w.unit, n)
	}
	if x.Kind() == value.Long && by.Kind() == value.Long {
		if s, ok := addLong(x.Long(), by.Long()); ok {
			return value.LongValue(s), nil
		}
	}
	return value.DoubleValue(x.Float() + by.Float()), nil
}

func negate(v value.Value) value.Value {
	if v.Kind() == value.Long && v.Long() != math.MinInt64 {
		return value.LongValue(-v.Long())
	}
	return value.DoubleValue(-v.Float())
}

func addLong(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// orNull turns a missing result into null.
func orNull(v value.Value) value.Value {
	if v.IsMissing() {
		return value.NullValue()
	}
	return v
}

// accFunc is an accumulator over a window.
type accFunc struct {
	acc *expr.Accumulator
	w   window
}

func (f *accFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	n := len(p.docs)
	in := make([]value.Value, n)
	if f.acc.Input != nil {
		for j, d := range p.docs {
			v, err := r.eval(f.acc.Input, d)
			if err != nil {
				return nil, err
			}
			in[j] = v
		}
	}
	out := make([]value.Value, n)
	add := func(st expr.AccumulatorState, lo, hi int) error {
		for j := lo; j <= hi; j++ {
			if _, err := st.Add(in[j], p.docs[j]); err != nil {
				return err
			}
		}
		return nil
	}
	newState := func() (expr.AccumulatorState, error) { return f.acc.NewState(r.ec, value.NullValue()) }
	// A window from the start: one state, growing with the window.
	if f.w.lower.unbounded && !f.w.byRange {
		st, err := newState()
		if err != nil {
			return nil, err
		}
		next := 0
		for i := range n {
			_, hi, _ := f.w.span(p, i)
			if err := add(st, next, hi); err != nil {
				return nil, err
			}
			next = max(next, hi+1)
			out[i] = orNull(st.Result())
		}
		return out, nil
	}
	for i := range n {
		lo, hi, err := f.w.span(p, i)
		if err != nil {
			return nil, err
		}
		st, err := newState()
		if err != nil {
			return nil, err
		}
		if err := add(st, lo, hi); err != nil {
			return nil, err
		}
		out[i] = orNull(st.Result())
	}
	return out, nil
}

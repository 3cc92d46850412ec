package agg

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// Window functions over the partition in sortBy order, without a window
// ($rank, $denseRank, $documentNumber, $shift, $expMovingAvg, $locf,
// $linearFill), and the rates over a window ($derivative, $integral) and
// $covariancePop/Samp.

func (s *windowStage) compileOrdered(c *expr.Compiler, op string, arg value.Value) (windowFunc, error) {
	switch op {
	case "$rank", "$denseRank", "$documentNumber":
		if arg.Kind() != value.Object || arg.Len() != 0 {
			return nil, errs.Errorf(errs.Invalid, "$setWindowFields: %s takes no argument: write {\"%s\":{}}", op, op)
		}
		return &rankFunc{op: op}, s.needSort(op, false)
	case "$shift":
		return s.compileShift(c, arg)
	case "$expMovingAvg":
		return s.compileExpMovingAvg(c, arg)
	case "$locf", "$linearFill":
		in, err := c.Compile(arg)
		if err != nil {
			return nil, err
		}
		if op == "$locf" {
			return &locfFunc{in: in}, s.needSort(op, false)
		}
		return &linearFillFunc{in: in}, s.needSort(op, true)
	}
	return nil, errs.Errorf(errs.Invalid, "$setWindowFields: unknown window function %s", op)
}

type rankFunc struct{ op string }

func (f *rankFunc) compute(_ *runState, p *partition) ([]value.Value, error) {
	out := make([]value.Value, len(p.docs))
	rank, dense := int64(0), int64(0)
	for i := range p.docs {
		if i == 0 || p.st.sort.CompareKeys(p.keys[i-1], p.keys[i]) != 0 {
			rank, dense = int64(i+1), dense+1
		}
		switch f.op {
		case "$rank":
			out[i] = value.LongValue(rank)
		case "$denseRank":
			out[i] = value.LongValue(dense)
		default:
			out[i] = value.LongValue(int64(i + 1))
		}
	}
	return out, nil
}

type shiftFunc struct {
	output expr.Node
	by     int64
	def    expr.Node // nil: null
}

func (s *windowStage) compileShift(c *expr.Compiler, arg value.Value) (windowFunc, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$shift takes an object with 'output' and 'by', found %s", arg)
	}
	f := &shiftFunc{}
	for _, fl := range arg.Fields() {
		var err error
		switch fl.Key {
		case "output":
			f.output, err = c.Compile(fl.Value)
		case "by":
			n, ok := expr.ExactInt(fl.Value)
			if !ok || !fl.Value.IsNumber() {
				return nil, errs.Errorf(errs.Invalid, "$shift: 'by' must be an integer constant, found %s", fl.Value)
			}
			f.by = n
		case "default":
			if !readsNoDocument(fl.Value) {
				return nil, errs.Errorf(errs.Invalid, "$shift: 'default' must evaluate to a constant, found %s", fl.Value)
			}
			f.def, err = c.Compile(fl.Value)
		default:
			return nil, errs.Errorf(errs.Invalid, "$shift: unknown argument %s%s", fl.Key, errs.DidYouMean(fl.Key, []string{"output", "by", "default"}))
		}
		if err != nil {
			return nil, err
		}
	}
	if f.output == nil || arg.Get("by").IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "$shift requires 'output' and 'by'").
			WithHint(`write {"$shift":{"output":"$price","by":-1,"default":0}}`)
	}
	return f, s.needSort("$shift", false)
}

func (f *shiftFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	def := value.NullValue()
	if f.def != nil {
		v, err := r.eval(f.def, value.ObjectValue(nil))
		if err != nil {
			return nil, err
		}
		def = orNull(v)
	}
	out := make([]value.Value, len(p.docs))
	for i := range p.docs {
		out[i] = def
		j := int64(i) + f.by
		if j < 0 || j >= int64(len(p.docs)) {
			continue
		}
		v, err := r.eval(f.output, p.docs[j])
		if err != nil {
			return nil, err
		}
		if !v.IsMissing() {
			out[i] = v
		}
	}
	return out, nil
}

type expMovingAvgFunc struct {
	in    expr.Node
	alpha float64
}

func (s *windowStage) compileExpMovingAvg(c *expr.Compiler, arg value.Value) (windowFunc, error) {
	bad := func(format string, a ...any) error {
		return errs.Errorf(errs.Invalid, "$expMovingAvg: "+format, a...).
			WithHint(`write {"$expMovingAvg":{"input":"$price","N":3}} or {"$expMovingAvg":{"input":"$price","alpha":0.5}}`)
	}
	if arg.Kind() != value.Object {
		return nil, bad("takes an object with 'input' and 'N' or 'alpha', found %s", arg)
	}
	f := &expMovingAvgFunc{}
	n, alpha := arg.Get("N"), arg.Get("alpha")
	for _, fl := range arg.Fields() {
		if fl.Key != "input" && fl.Key != "N" && fl.Key != "alpha" {
			return nil, bad("unknown argument %s", fl.Key)
		}
	}
	switch {
	case arg.Get("input").IsMissing():
		return nil, bad("'input' is required")
	case n.IsMissing() == alpha.IsMissing():
		return nil, bad("give exactly one of 'N' and 'alpha'")
	case !n.IsMissing():
		k, ok := expr.ExactInt(n)
		if !ok || !n.IsNumber() || k <= 0 {
			return nil, bad("'N' must be a positive integer, found %s", n)
		}
		f.alpha = 2 / (float64(k) + 1)
	default:
		if !alpha.IsNumber() || alpha.Float() <= 0 || alpha.Float() >= 1 {
			return nil, bad("'alpha' must be a number between 0 and 1, exclusive, found %s", alpha)
		}
		f.alpha = alpha.Float()
	}
	var err error
	if f.in, err = c.Compile(arg.Get("input")); err != nil {
		return nil, err
	}
	return f, s.needSort("$expMovingAvg", false)
}

func (f *expMovingAvgFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	out := make([]value.Value, len(p.docs))
	avg, seen := 0.0, false
	for i, d := range p.docs {
		v, err := r.eval(f.in, d)
		if err != nil {
			return nil, err
		}
		if v.IsNumber() {
			if seen {
				avg = f.alpha*v.Float() + (1-f.alpha)*avg
			} else {
				avg, seen = v.Float(), true
			}
		}
		out[i] = value.NullValue()
		if seen {
			out[i] = value.DoubleValue(avg)
		}
	}
	return out, nil
}

// locfFunc carries the last non-null value forward.
type locfFunc struct{ in expr.Node }

func (f *locfFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	out := make([]value.Value, len(p.docs))
	last := value.NullValue()
	for i, d := range p.docs {
		v, err := r.eval(f.in, d)
		if err != nil {
			return nil, err
		}
		if !expr.Nullish(v) {
			last = v
		}
		out[i] = last
	}
	return out, nil
}

// linearFillFunc fills nulls by linear interpolation on the sortBy value
// between the nearest non-null values before and after.
type linearFillFunc struct{ in expr.Node }

func (f *linearFillFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	n := len(p.docs)
	ys := make([]value.Value, n)
	xs := p.sortValues()
	for i, d := range p.docs {
		v, err := r.eval(f.in, d)
		if err != nil {
			return nil, err
		}
		if !expr.Nullish(v) && !v.IsNumber() {
			return nil, errs.Errorf(errs.Invalid, "$linearFill: the input must be a number or null, found %s", v.TypeName())
		}
		if !xs[i].IsNumber() && xs[i].Kind() != value.Date {
			return nil, errs.Errorf(errs.Invalid, "$linearFill: the sortBy field must be a number or a date, found %s", xs[i].TypeName())
		}
		if i > 0 && value.Compare(xs[i-1], xs[i]) == 0 {
			return nil, errs.Errorf(errs.Invalid, "$linearFill: there can be no repeated values in the sortBy field, found %s twice", xs[i])
		}
		ys[i] = v
	}
	out := make([]value.Value, n)
	prev := -1
	for i := range n {
		if !expr.Nullish(ys[i]) {
			out[i], prev = ys[i], i
			continue
		}
		out[i] = value.NullValue()
		next := i + 1
		for next < n && expr.Nullish(ys[next]) {
			next++
		}
		if prev < 0 || next >= n {
			continue
		}
		x0, x1, x := xnum(xs[prev]), xnum(xs[next]), xnum(xs[i])
		y0, y1 := ys[prev].Float(), ys[next].Float()
		out[i] = value.DoubleValue(y0 + (x-x0)*(y1-y0)/(x1-x0))
	}
	return out, nil
}

// xnum is a sortBy value as a number: dates in milliseconds.
func xnum(v value.Value) float64 {
	if v.Kind() == value.Date {
		return float64(v.Date())
	}
	return v.Float()
}

// rateFunc is $derivative or $integral over a window, with x the sortBy
// value (dates measured in unit).
type rateFunc struct {
	integral bool
	in       expr.Node
	unitMs   float64 // 0: no unit (numbers)
	w        window
}

func (s *windowStage) compileRate(c *expr.Compiler, op string, arg value.Value, w window) (windowFunc, error) {
	if arg.Kind() != value.Object || arg.Get("input").IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "%s takes an object with 'input' (and 'unit' for dates), found %s", op, arg).
			WithHint(`write {"%s":{"input":"$miles","unit":"hour"},"window":{"documents":[-1,0]}}`, op)
	}
	f := &rateFunc{integral: op == "$integral", w: w}
	for _, fl := range arg.Fields() {
		switch fl.Key {
		case "input":
			var err error
			if f.in, err = c.Compile(fl.Value); err != nil {
				return nil, err
			}
		case "unit":
			ms, ok := expr.UnitMillis(fl.Value.Str())
			if fl.Value.Kind() != value.String || !ok {
				return nil, errs.Errorf(errs.Invalid, "%s: 'unit' must be one of week, day, hour, minute, second, millisecond, found %s", op, fl.Value)
			}
			f.unitMs = float64(ms)
		default:
			return nil, errs.Errorf(errs.Invalid, "%s: unknown argument %s", op, fl.Key)
		}
	}
	return f, s.needSort(op, true)
}

// x returns the sortBy value of a document as the rate measures it.
func (f *rateFunc) x(v value.Value, op string) (float64, error) {
	switch {
	case f.unitMs != 0 && v.Kind() == value.Date:
		return float64(v.Date()), nil // in ms: distances are divided by unitMs
	case f.unitMs != 0:
		return 0, errs.Errorf(errs.Invalid, "%s with a 'unit' expects the sortBy field to be a date, found %s", op, v.TypeName())
	case v.Kind() == value.Date:
		return 0, errs.Errorf(errs.Invalid, "%s: the sortBy field is a date: give a 'unit'", op)
	case !v.IsNumber():
		return 0, errs.Errorf(errs.Invalid, "%s expects the sortBy field to be a number, found %s", op, v.TypeName())
	}
	return v.Float(), nil
}

// dist is the distance from a to b in the rate's unit: the difference is
// taken first, in milliseconds for dates, so that large timestamps lose
// no precision.
func (f *rateFunc) dist(a, b float64) float64 {
	if f.unitMs != 0 {
		return (b - a) / f.unitMs
	}
	return b - a
}

func (f *rateFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	op := "$derivative"
	if f.integral {
		op = "$integral"
	}
	n := len(p.docs)
	xs, ys := make([]float64, n), make([]value.Value, n)
	for j, d := range p.docs {
		x, err := f.x(p.sortValues()[j], op)
		if err != nil {
			return nil, err
		}
		y, err := r.eval(f.in, d)
		if err != nil {
			return nil, err
		}
		xs[j], ys[j] = x, y
	}
	out := make([]value.Value, n)
	for i := range n {
		lo, hi, err := f.w.span(p, i)
		if err != nil {
			return nil, err
		}
		out[i] = value.NullValue()
		if f.integral {
			if lo > hi {
				continue
			}
			sum := 0.0
			for j := lo; j < hi; j++ {
				if ys[j].IsNumber() && ys[j+1].IsNumber() {
					sum += f.dist(xs[j], xs[j+1]) * (ys[j].Float() + ys[j+1].Float()) / 2
				}
			}
			out[i] = value.DoubleValue(sum)
			continue
		}
		if hi-lo < 1 || !ys[lo].IsNumber() || !ys[hi].IsNumber() || xs[hi] == xs[lo] {
			continue
		}
		out[i] = value.DoubleValue((ys[hi].Float() - ys[lo].Float()) / f.dist(xs[lo], xs[hi]))
	}
	return out, nil
}

// covarianceFunc is $covariancePop or $covarianceSamp over a window, of
// the pairs where both values are numbers.
type covarianceFunc struct {
	x, y expr.Node
	samp bool
	w    window
}

func (f *covarianceFunc) compute(r *runState, p *partition) ([]value.Value, error) {
	n := len(p.docs)
	xs, ys := make([]value.Value, n), make([]value.Value, n)
	for j, d := range p.docs {
		var err error
		if xs[j], err = r.eval(f.x, d); err != nil {
			return nil, err
		}
		if ys[j], err = r.eval(f.y, d); err != nil {
			return nil, err
		}
	}
	out := make([]value.Value, n)
	for i := range n {
		lo, hi, err := f.w.span(p, i)
		if err != nil {
			return nil, err
		}
		var sx, sy, sxy float64
		k := 0
		for j := lo; j <= hi; j++ {
			if xs[j].IsNumber() && ys[j].IsNumber() {
				x, y := xs[j].Float(), ys[j].Float()
				sx, sy, sxy, k = sx+x, sy+y, sxy+x*y, k+1
			}
		}
		out[i] = value.NullValue()
		if k == 0 || (f.samp && k < 2) {
			continue
		}
		cov := sxy - sx*sy/float64(k)
		if f.samp {
			cov /= float64(k - 1)
		} else {
			cov /= float64(k)
		}
		out[i] = value.DoubleValue(cov)
	}
	return out, nil
}

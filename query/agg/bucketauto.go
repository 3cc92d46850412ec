package agg

import (
	"math"
	"math/bits"
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $bucketAuto: sort by groupBy, cut into buckets of about equal counts
// (equal values never split), optionally with boundaries rounded to a
// preferred-number series (granularity). Follows MongoDB's algorithm.

type bucketAutoStage struct {
	groupBy     expr.Node
	buckets     int
	accs        []*expr.Accumulator
	granularity string
}

// preferredSeries are the granularity series, as MongoDB stores them.
var preferredSeries = map[string][]float64{
	"R5":    {10, 16, 25, 40, 63, 100},
	"R10":   {100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000},
	"R20":   {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900, 1000},
	"R40":   {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300, 315, 335, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950, 1000},
	"1-2-5": {1, 2, 5, 10},
	"E6":    {1.0, 1.5, 2.2, 3.3, 4.7, 6.8, 10.0},
	"E12":   {1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2, 10.0},
	"E24":   {1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8, 7.5, 8.2, 9.1, 10.0},
}

var granularities = []string{"R5", "R10", "R20", "R40", "R80", "1-2-5", "E6", "E12", "E24", "E48", "E96", "E192", "POWERSOF2"}

func compileBucketAutoStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$bucketAuto expects an object, found %s", spec.TypeName())
	}
	known := []string{"groupBy", "buckets", "output", "granularity"}
	for _, f := range spec.Fields() {
		if !slices.Contains(known, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "unrecognized option to $bucketAuto: %s%s", f.Key, errs.DidYouMean(f.Key, known))
		}
	}
	s := &bucketAutoStage{}
	var err error
	if s.groupBy, err = compileGroupBy(c, "$bucketAuto", spec); err != nil {
		return nil, err
	}
	b, ok := expr.ExactInt(spec.Get("buckets"))
	if !ok || b <= 0 || b > math.MaxInt32 {
		return nil, errs.Errorf(errs.Invalid, "the $bucketAuto 'buckets' field must be a positive integer, found %s", spec.Get("buckets"))
	}
	s.buckets = int(b)
	if s.accs, err = compileBucketOutput(c, spec.Get("output")); err != nil {
		return nil, err
	}
	return s, s.granularityOption(spec.Get("granularity"))
}

func (s *bucketAutoStage) granularityOption(g value.Value) error {
	if g.IsMissing() {
		return nil
	}
	name := g.Str()
	if !slices.Contains(granularities, name) {
		return errs.Errorf(errs.Invalid, "unknown $bucketAuto granularity: %s%s", g, errs.DidYouMean(name, granularities))
	}
	if _, ok := preferredSeries[name]; !ok && name != "POWERSOF2" {
		return errs.Errorf(errs.Invalid, "$bucketAuto granularity %s is not supported by omgdb", name).
			WithHint("use R5, R10, R20, R40, 1-2-5, E6, E12, E24 or POWERSOF2")
	}
	s.granularity = name
	return nil
}

type keyedDoc struct {
	key, doc value.Value
}

func (s *bucketAutoStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) { return s.compute(r, in) })
}

func (s *bucketAutoStage) compute(r *runState, in Source) ([]value.Value, error) {
	b := r.budget("$bucketAuto")
	var docs []keyedDoc
	err := r.drain(in, func(d value.Value) error {
		k, err := r.eval(s.groupBy, d)
		if err != nil {
			return err
		}
		if k.IsMissing() {
			k = value.NullValue()
		}
		if err := s.checkGranular(k); err != nil {
			return err
		}
		docs = append(docs, keyedDoc{k, d})
		return b.grow(value.Size(d) + value.Size(k))
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(a, b keyedDoc) int { return value.Compare(a.key, b.key) })
	buckets, err := s.populate(r, docs)
	if err != nil {
		return nil, err
	}
	out := make([]value.Value, len(buckets))
	for i, bk := range buckets {
		fields := []value.Field{{Key: "_id", Value: value.ObjectValue([]value.Field{{Key: "min", Value: bk.min}, {Key: "max", Value: bk.max}})}}
		for j, a := range s.accs {
			fields = append(fields, value.Field{Key: a.Field, Value: bk.states[j].Result()})
		}
		out[i] = value.ObjectValue(fields)
	}
	return out, nil
}

func (s *bucketAutoStage) checkGranular(k value.Value) error {
	if s.granularity == "" {
		return nil
	}
	if !k.IsNumber() {
		return errs.Errorf(errs.Invalid, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: %s", k.TypeName())
	}
	if k.Float() < 0 || math.IsNaN(k.Float()) {
		return errs.Errorf(errs.Invalid, "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found: %s", k)
	}
	return nil
}

type autoBucket struct {
	min, max value.Value
	states   []expr.AccumulatorState
}

// populate cuts the sorted documents into buckets.
func (s *bucketAutoStage) populate(r *runState, docs []keyedDoc) ([]*autoBucket, error) {
	size := int(math.Round(float64(len(docs)) / float64(s.buckets)))
	size = max(size, 1)
	var buckets []*autoBucket
	i := 0
	for n := 0; n < s.buckets && i < len(docs); n++ {
		bk := &autoBucket{min: docs[i].key, max: docs[i].key}
		for _, a := range s.accs {
			st, err := a.NewState(r.ec, value.NullValue())
			if err != nil {
				return nil, err
			}
			bk.states = append(bk.states, st)
		}
		end, bound := len(docs), value.MissingValue
		if n < s.buckets-1 {
			end, bound = s.bucketEnd(docs, i, size)
		}
		for ; i < end; i++ {
			if err := s.add(r, bk, docs[i]); err != nil {
				return nil, err
			}
		}
		if !bound.IsMissing() {
			bk.max = bound
		}
		buckets = append(buckets, bk)
	}
	s.adjust(buckets)
	return buckets, nil
}

// bucketEnd is where the bucket that starts at i ends: after size
// documents, then on while the next value equals the last one. With a
// granularity, it goes on while values are below the last one rounded up,
// and that rounded value (bound) is the bucket's max.
func (s *bucketAutoStage) bucketEnd(docs []keyedDoc, i, size int) (end int, bound value.Value) {
	end = min(i+size, len(docs))
	if end >= len(docs) {
		return end, value.MissingValue
	}
	if s.granularity != "" {
		bound = s.roundUp(docs[end-1].key)
		for end < len(docs) && value.Compare(docs[end].key, bound) < 0 {
			end++
		}
		return end, bound
	}
	for end < len(docs) && value.Compare(docs[end].key, docs[end-1].key) == 0 {
		end++
	}
	return end, value.MissingValue
}

func (s *bucketAutoStage) add(r *runState, bk *autoBucket, d keyedDoc) error {
	bk.max = d.key
	for j, a := range s.accs {
		var v value.Value
		if a.Input != nil {
			var err error
			if v, err = r.eval(a.Input, d.doc); err != nil {
				return err
			}
		}
		if _, err := bk.states[j].Add(v, d.doc); err != nil {
			return err
		}
	}
	return nil
}

// adjust makes the boundaries consistent: each bucket's max is the next
// one's min; with a granularity the first min is rounded down and the
// last max up.
func (s *bucketAutoStage) adjust(buckets []*autoBucket) {
	if len(buckets) == 0 {
		return
	}
	if s.granularity == "" {
		for i := 0; i+1 < len(buckets); i++ {
			buckets[i].max = buckets[i+1].min
		}
		return
	}
	buckets[0].min = s.roundDown(buckets[0].min)
	for i := 1; i < len(buckets); i++ {
		buckets[i].min = buckets[i-1].max
	}
	last := buckets[len(buckets)-1]
	last.max = s.roundUp(last.max)
}

func (s *bucketAutoStage) roundUp(v value.Value) value.Value {
	if s.granularity == "POWERSOF2" {
		return powerOfTwo(v, true)
	}
	return roundSeries(preferredSeries[s.granularity], v, true)
}

func (s *bucketAutoStage) roundDown(v value.Value) value.Value {
	if s.granularity == "POWERSOF2" {
		return powerOfTwo(v, false)
	}
	return roundSeries(preferredSeries[s.granularity], v, false)
}

// roundSeries rounds up to the next (or down to the previous) number of
// the series, scaled by a power of ten; zero stays zero.
func roundSeries(series []float64, v value.Value, up bool) value.Value {
	x := v.Float()
	if x == 0 {
		return v
	}
	mult := 1.0
	lo, hi := series[0], series[len(series)-1]
	if up {
		for ; x >= hi; x /= 10 {
			mult *= 10
		}
		for ; x < lo; x *= 10 {
			mult /= 10
		}
		i, found := slices.BinarySearch(series, x)
		if found {
			i++
		}
		return value.DoubleValue(series[min(i, len(series)-1)] * mult)
	}
	for ; x > hi; x /= 10 {
		mult *= 10
	}
	for ; x <= lo; x *= 10 {
		mult /= 10
	}
	i, _ := slices.BinarySearch(series, x)
	return value.DoubleValue(series[i-1] * mult)
}

// powerOfTwo rounds up to the next (or down to the previous) power of
// two; longs stay longs, and ints stay ints while the power fits in one.
func powerOfTwo(v value.Value, up bool) value.Value {
	if v.IsIntegral() {
		x := uint64(v.Long())
		if x == 0 {
			return v
		}
		e := 63 - bits.LeadingZeros64(x) // floor(log2 x)
		switch {
		case up:
			e++
		case x&(x-1) == 0:
			e--
		}
		if e >= 63 || e < 0 {
			return value.DoubleValue(math.Ldexp(1, e))
		}
		if v.Kind() == value.Int && e < 31 {
			return value.IntValue(1 << e)
		}
		return value.LongValue(1 << e)
	}
	x := v.Float()
	if x == 0 {
		return v
	}
	if up {
		return value.DoubleValue(math.Exp2(math.Floor(math.Log2(x)) + 1))
	}
	return value.DoubleValue(math.Exp2(math.Ceil(math.Log2(x)) - 1))
}

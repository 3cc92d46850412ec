package agg

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $densify adds the documents missing from a sequence of numbers or dates
// in field, one every step: over [lower, upper) of explicit bounds, over
// each partition's own span ("partition") or over the span of the whole
// input ("full"), the sequence starting at the span's first value. A new
// document holds the field and the partition fields; documents that
// already hold a value of the sequence keep their place, and those
// without the field (or with null) pass through. The output is in
// partition, then field, order (MongoDB sorts the same way).

type densifyStage struct {
	field      []string // the path
	dotted     string
	partition  [][]string // partitionByFields, as paths
	step       value.Value
	unit       string // "" for numbers
	bounds     string // "full", "partition", or "" for explicit bounds
	lower      value.Value
	upper      value.Value
	rangeNames []string
}

func compileDensifyStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	bad := func(format string, a ...any) error {
		return errs.Errorf(errs.Invalid, "$densify: "+format, a...).
			WithHint(`write {"$densify":{"field":"t","range":{"step":1,"unit":"hour","bounds":"full"}}}`)
	}
	if spec.Kind() != value.Object {
		return nil, bad("the specification must be an object, found %s", spec.TypeName())
	}
	s := &densifyStage{}
	for _, f := range spec.Fields() {
		switch f.Key {
		case "field":
			if f.Value.Kind() != value.String || f.Value.Str() == "" || strings.HasPrefix(f.Value.Str(), "$") {
				return nil, bad("'field' must be a field name, found %s", f.Value)
			}
			s.dotted, s.field = f.Value.Str(), strings.Split(f.Value.Str(), ".")
		case "partitionByFields":
			if f.Value.Kind() != value.Array {
				return nil, bad("'partitionByFields' must be an array of field names, found %s", f.Value)
			}
			for _, p := range f.Value.Array() {
				if p.Kind() != value.String || p.Str() == "" || strings.HasPrefix(p.Str(), "$") {
					return nil, bad("'partitionByFields' must hold field names, found %s", p)
				}
				s.partition = append(s.partition, strings.Split(p.Str(), "."))
			}
		case "range":
			if err := s.compileRange(f.Value, bad); err != nil {
				return nil, err
			}
		default:
			return nil, bad("unknown field %s%s", f.Key, errs.DidYouMean(f.Key, []string{"field", "partitionByFields", "range"}))
		}
	}
	switch {
	case s.field == nil:
		return nil, bad("'field' is required")
	case s.step.IsMissing():
		return nil, bad("'range' is required")
	}
	for _, p := range s.partition {
		if strings.Join(p, ".") == s.dotted {
			return nil, bad("'field' may not also be a partitionByFields field")
		}
	}
	return s, nil
}

func (s *densifyStage) compileRange(r value.Value, bad func(string, ...any) error) error {
	if r.Kind() != value.Object {
		return bad("'range' must be an object, found %s", r)
	}
	for _, f := range r.Fields() {
		switch f.Key {
		case "step":
			if !f.Value.IsNumber() || !(f.Value.Float() > 0) {
				return bad("'step' must be a positive number, found %s", f.Value)
			}
			s.step = f.Value
		case "unit":
			if f.Value.Kind() != value.String {
				return bad("'unit' must be a string, found %s", f.Value)
			}
			if _, err := expr.AddDateUnits("$densify", time.Unix(0, 0), f.Value.Str(), 0); err != nil {
				return err
			}
			s.unit = f.Value.Str()
		case "bounds":
			switch b := f.Value; {
			case b.Kind() == value.String && (b.Str() == "full" || b.Str() == "partition"):
				s.bounds = b.Str()
			case b.Kind() == value.Array && b.Len() == 2:
				s.lower, s.upper = b.Index(0), b.Index(1)
				if value.Compare(s.lower, s.upper) > 0 {
					return bad("the lower bound must not be above the upper bound, found %s", b)
				}
			default:
				return bad("'bounds' must be \"full\", \"partition\" or an array of two values, found %s", b)
			}
		default:
			return bad("unknown range field %s", f.Key)
		}
	}
	if s.step.IsMissing() || (s.bounds == "" && s.lower.IsMissing()) {
		return bad("'range' needs 'step' and 'bounds'")
	}
	if s.unit != "" {
		if _, ok := expr.ExactInt(s.step); !ok {
			return bad("with a 'unit', 'step' must be a whole number, found %s", s.step)
		}
	}
	for _, b := range []value.Value{s.lower, s.upper} {
		if !b.IsMissing() && s.checkValue(b) != nil {
			return bad("the bounds must be %s, found %s", s.kindName(), b)
		}
	}
	return nil
}

func (s *densifyStage) kindName() string {
	if s.unit != "" {
		return "dates (there is a 'unit')"
	}
	return "numbers (there is no 'unit')"
}

// checkValue refuses a field value the sequence cannot hold.
func (s *densifyStage) checkValue(v value.Value) error {
	if (s.unit != "" && v.Kind() == value.Date) || (s.unit == "" && v.IsNumber()) {
		return nil
	}
	return errs.Errorf(errs.Invalid, "$densify: the values of %q must be %s, found %s", s.dotted, s.kindName(), v.TypeName()).
		WithHint("give a 'unit' to densify dates, leave it out for numbers; documents without the field pass through")
}

// MaxDensifyDocuments bounds the documents one $densify may add, as
// MongoDB's internalQueryMaxDensifyDocs does.
const MaxDensifyDocuments = 500000

// next returns the value one step after v. A step too small to move a
// value (1 added to 1e300) is an error rather than an endless sequence.
func (s *densifyStage) next(v value.Value) (value.Value, error) {
	var n value.Value
	if s.unit != "" {
		k, _ := expr.ExactInt(s.step)
		var err error
		if n, err = expr.AddDateUnits("$densify", time.UnixMilli(v.Date()).UTC(), s.unit, k); err != nil {
			return value.Value{}, err
		}
	} else if r, ok := addLong(v.Long(), s.step.Long()); ok && v.IsIntegral() && s.step.IsIntegral() {
		// Whole numbers add as $add does: two ints give an int while the
		// sum fits in one, a long otherwise.
		n = value.LongValue(r)
		if v.Kind() == value.Int && s.step.Kind() == value.Int && r >= math.MinInt32 && r <= math.MaxInt32 {
			n = value.IntValue(int32(r))
		}
	} else {
		n = value.DoubleValue(v.Float() + s.step.Float())
	}
	if value.Compare(n, v) <= 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "$densify: a step of %s does not move the value %s", s.step, v).
			WithHint("the values are too large for the step: choose a larger step or narrower bounds")
	}
	return n, nil
}

type densifyItem struct {
	doc  value.Value
	part []byte
	v    value.Value // the field's value; missing or null passes through
}

func (s *densifyStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) { return s.all(r, in) })
}

func (s *densifyStage) all(r *runState, in Source) ([]value.Value, error) {
	b := r.budget("$densify")
	var items []densifyItem
	var lo, hi value.Value // the span of the whole input, for "full"
	err := r.drain(in, func(doc value.Value) error {
		it := densifyItem{doc: doc, v: value.MissingValue}
		if vs := query.Lookup(doc, s.dotted); len(vs) > 0 {
			it.v = vs[0]
		}
		if !expr.Nullish(it.v) {
			if err := s.checkValue(it.v); err != nil {
				return err
			}
			if lo.IsMissing() || value.Compare(it.v, lo) < 0 {
				lo = it.v
			}
			if hi.IsMissing() || value.Compare(it.v, hi) > 0 {
				hi = it.v
			}
		}
		for _, p := range s.partition {
			pv := value.NullValue()
			if vs := query.Lookup(doc, strings.Join(p, ".")); len(vs) > 0 {
				pv = vs[0]
			}
			it.part = value.AppendKey(it.part, pv)
		}
		items = append(items, it)
		return b.grow(value.Size(doc) + 64)
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(items, func(a, b densifyItem) int {
		if c := bytes.Compare(a.part, b.part); c != 0 {
			return c
		}
		return value.Compare(orNull(a.v), orNull(b.v))
	})
	var out []value.Value
	added := 0
	for start := 0; start < len(items); {
		end := start + 1
		for end < len(items) && bytes.Equal(items[end].part, items[start].part) {
			end++
		}
		part, err := s.partitionOut(items[start:end], lo, hi, b, &added)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
		start = end
	}
	return out, nil
}

// partitionOut returns one partition's documents with the missing ones of
// the sequence added.
func (s *densifyStage) partitionOut(items []densifyItem, fullLo, fullHi value.Value, b *budget, added *int) ([]value.Value, error) {
	var out []value.Value
	first := 0
	for first < len(items) && expr.Nullish(items[first].v) {
		out = append(out, items[first].doc)
		first++
	}
	from, to, inclusive := s.lower, s.upper, false
	switch s.bounds {
	case "full":
		from, to, inclusive = fullLo, fullHi, true
	case "partition":
		if first < len(items) {
			from, to, inclusive = items[first].v, items[len(items)-1].v, true
		}
	}
	if from.IsMissing() {
		for _, it := range items[first:] {
			out = append(out, it.doc)
		}
		return out, nil
	}
	within := func(v value.Value) bool {
		c := value.Compare(v, to)
		return c < 0 || (inclusive && c == 0)
	}
	cur := from
	emitUpTo := func(limit value.Value) error { // generated values below limit (all, when missing)
		for within(cur) && (limit.IsMissing() || value.Compare(cur, limit) < 0) {
			if *added++; *added > MaxDensifyDocuments {
				return errs.Errorf(errs.Limit, "$densify would add more than %d documents", MaxDensifyDocuments).
					WithHint("choose a larger step or narrower bounds")
			}
			d := s.newDoc(cur, items[0].doc)
			if err := b.grow(value.Size(d)); err != nil {
				return err
			}
			out = append(out, d)
			var err error
			if cur, err = s.next(cur); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items[first:] {
		if err := emitUpTo(it.v); err != nil {
			return nil, err
		}
		out = append(out, it.doc)
		for value.Compare(cur, it.v) == 0 { // the document holds this value
			var err error
			if cur, err = s.next(cur); err != nil {
				return nil, err
			}
		}
	}
	if err := emitUpTo(value.MissingValue); err != nil {
		return nil, err
	}
	return out, nil
}

// newDoc is a generated document: the field, then the partition fields of
// the partition (taken from one of its documents).
func (s *densifyStage) newDoc(v, like value.Value) value.Value {
	d := value.SetPath(value.ObjectValue(nil), s.field, v)
	for _, p := range s.partition {
		if vs := query.Lookup(like, strings.Join(p, ".")); len(vs) > 0 {
			d = value.SetPath(d, p, vs[0])
		}
	}
	return d
}

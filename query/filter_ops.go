package query

import (
	"math"
	"regexp"
	"strconv"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// valuePred is a compiled operator tested against one value (MongoDB's
// matchesSingleElement). Path traversal is the caller's business.
type valuePred interface {
	matchValue(v value.Value, c *matchCtx) bool
}

// traversesLeafArrays reports whether a predicate also sees the elements
// of an array at the end of its path. $size and $elemMatch see the array
// only.
func traversesLeafArrays(p valuePred) bool {
	switch p.(type) {
	case sizePred, *elemMatchValuePred, *elemMatchDocPred, *geoPred, *geoCollector:
		return false
	}
	return true
}

type cmpOp uint8

const (
	opEq cmpOp = iota
	opGt
	opGte
	opLt
	opLte
)

var cmpOps = map[string]cmpOp{"$gt": opGt, "$gte": opGte, "$lt": opLt, "$lte": opLte}

// cmpPred is $eq, $gt, $gte, $lt or $lte. Values of different types never
// compare (type bracketing), except that missing counts as null and that
// minKey and maxKey compare with every value, as in MongoDB; NaN (double
// or decimal) equals only NaN and is neither above nor below anything.
type cmpPred struct {
	op   cmpOp
	rhs  value.Value          // coll's key of the operand when coll is set
	coll *collation.Collation // nil: binary comparison
}

func (p *cmpPred) matchValue(v value.Value, _ *matchCtx) bool {
	if p.coll != nil {
		v = p.coll.Map(v)
	}
	if value.TypeRank(v) != value.TypeRank(p.rhs) && p.rhs.Kind() != value.MinKey && p.rhs.Kind() != value.MaxKey {
		return false
	}
	if p.op != opEq && (isNaN(v) || isNaN(p.rhs)) {
		return (p.op == opGte || p.op == opLte) && isNaN(v) && isNaN(p.rhs)
	}
	c := value.Compare(v, p.rhs)
	switch p.op {
	case opEq:
		return c == 0
	case opGt:
		return c > 0
	case opGte:
		return c >= 0
	case opLt:
		return c < 0
	}
	return c <= 0
}

func isNaN(v value.Value) bool {
	switch v.Kind() {
	case value.Double:
		return math.IsNaN(v.Double())
	case value.Decimal:
		return v.DecimalString() == "NaN"
	}
	return false
}

// inSetThreshold is the number of $in values above which they are looked
// up in a hash set of their key encodings rather than scanned.
const inSetThreshold = 16

// inPred is $in: equality with any listed value, or a match of any listed
// regex. A listed null also matches missing.
type inPred struct {
	vals    []value.Value // coll's keys of the values when coll is set
	set     map[string]struct{}
	hasNull bool
	regexes []*regexp.Regexp     // matched against the string as it is
	coll    *collation.Collation // nil: binary comparison
}

func (p *inPred) add(v value.Value) {
	if v.Kind() == value.Null {
		p.hasNull = true
	}
	p.vals = append(p.vals, v)
	switch {
	case p.set != nil:
		p.set[string(value.AppendKey(nil, v))] = struct{}{}
	case len(p.vals) > inSetThreshold:
		p.set = make(map[string]struct{}, len(p.vals))
		for _, x := range p.vals {
			p.set[string(value.AppendKey(nil, x))] = struct{}{}
		}
	}
}

func (p *inPred) matchValue(v value.Value, c *matchCtx) bool {
	if v.Kind() == value.Missing {
		return p.hasNull
	}
	mv := v
	if p.coll != nil {
		mv = p.coll.Map(v)
	}
	if p.set != nil {
		if _, ok := p.set[string(value.AppendKey(nil, mv))]; ok {
			return true
		}
	} else {
		for _, x := range p.vals {
			if value.Compare(mv, x) == 0 {
				return true
			}
		}
	}
	if v.Kind() == value.String {
		for _, re := range p.regexes {
			if c.matchRegex(re, v.Str()) {
				return true
			}
		}
	}
	return false
}

// regexPred is $regex: it matches strings only.
type regexPred struct{ re *regexp.Regexp }

func (p regexPred) matchValue(v value.Value, c *matchCtx) bool {
	return v.Kind() == value.String && c.matchRegex(p.re, v.Str())
}

// existsPred is $exists: true.
type existsPred struct{}

func (existsPred) matchValue(v value.Value, _ *matchCtx) bool { return v.Kind() != value.Missing }

// typePred is $type: a set of kinds, one bit per Kind.
type typePred uint32

func (p typePred) matchValue(v value.Value, _ *matchCtx) bool {
	return v.Kind() != value.Missing && p&(1<<v.Kind()) != 0
}

// sizePred is $size: an array of exactly that many elements.
type sizePred int64

func (p sizePred) matchValue(v value.Value, _ *matchCtx) bool {
	return v.Kind() == value.Array && int64(len(v.Array())) == int64(p)
}

// modPred is $mod: a number whose integer part, divided by div, leaves rem.
type modPred struct{ div, rem int64 }

func (p modPred) matchValue(v value.Value, _ *matchCtx) bool {
	var x int64
	switch v.Kind() {
	case value.Long, value.Int:
		x = v.Long()
	case value.Double, value.Decimal:
		f := v.Float()
		if math.IsInf(f, 0) {
			return false
		}
		var ok bool
		if x, ok = truncToLong(f); !ok {
			return false
		}
	default:
		return false
	}
	return x%p.div == p.rem
}

// elemMatchValuePred is $elemMatch of the value form: some element of the
// array satisfies every operator.
type elemMatchValuePred struct{ preds []valuePred }

func (p *elemMatchValuePred) matchValue(v value.Value, c *matchCtx) bool {
	if v.Kind() != value.Array {
		return false
	}
	for k, e := range v.Array() {
		if p.all(e) {
			if c != nil {
				c.key = k
			}
			return true
		}
	}
	return false
}

func (p *elemMatchValuePred) all(e value.Value) bool {
	for _, q := range p.preds {
		if !q.matchValue(e, nil) {
			return false
		}
	}
	return true
}

// elemMatchDocPred is $elemMatch of the document form: some element of the
// array, taken as a document, satisfies the filter. An element that is an
// array counts as the document of its positions ("0", "1", …), as in
// MongoDB.
type elemMatchDocPred struct{ sub node }

func (p *elemMatchDocPred) matchValue(v value.Value, c *matchCtx) bool {
	if v.Kind() != value.Array {
		return false
	}
	for k, e := range v.Array() {
		switch e.Kind() {
		case value.Array:
			e = arrayAsObject(e)
		case value.Object:
		default:
			continue
		}
		if p.sub.match(e, nil) {
			if c != nil {
				c.key = k
			}
			return true
		}
	}
	return false
}

func arrayAsObject(a value.Value) value.Value {
	fields := make([]value.Field, len(a.Array()))
	for i, e := range a.Array() {
		fields[i] = value.Field{Key: strconv.Itoa(i), Value: e}
	}
	return value.ObjectValue(fields)
}

// notPred negates a predicate on one value (inside $elemMatch; on a path,
// toNode turns it into a negation of the whole path).
type notPred struct{ p valuePred }

func (p notPred) matchValue(v value.Value, _ *matchCtx) bool { return !p.p.matchValue(v, nil) }

// andPred is the conjunction of predicates on one value ($all, $not of
// several operators).
type andPred []valuePred

func (p andPred) matchValue(v value.Value, c *matchCtx) bool {
	for _, q := range p {
		if !q.matchValue(v, c) {
			return false
		}
	}
	return true
}

// constPred always or never matches ($all: []).
type constPred bool

func (p constPred) matchValue(value.Value, *matchCtx) bool { return bool(p) }

package store

import (
	"strings"
	"sync/atomic"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// fieldCond is what the planner takes from one condition on a field path.
type fieldCond struct {
	path    string
	ranges  []vrange // the values that can match; nil when unbounded
	bounded bool     // ranges restrict the field
	// exact: on an index that is not multikey, a document matches the
	// condition exactly when its key for the field lies in ranges.
	exact bool
	// exists: a matching document has a value at path (so a sparse index
	// holds it).
	exists bool
	// geo: a geospatial condition, whose ranges are of a 2dsphere field's
	// cell keys: it bounds 2dsphere fields only, and they only it.
	geo bool
	// group: conditions of one $elemMatch on values share a non-zero group:
	// one array element must satisfy them all, so their bounds may be
	// intersected even on a multikey field.
	group int
}

// conditions extracts the field conditions of a filter's top-level
// conjunction, descending into $and and $elemMatch. residual is true when
// some predicate gave no exact condition: a count then cannot be answered
// from an index alone.
func conditions(f *query.Filter) (conds []fieldCond, residual bool) {
	if f == nil {
		return nil, false
	}
	for _, p := range f.Predicates() {
		cs, res := predicateConds(p)
		conds = append(conds, cs...)
		residual = residual || res
	}
	return conds, residual
}

func predicateConds(p query.Predicate) ([]fieldCond, bool) {
	if p.Path == "" {
		if p.Op == "$and" {
			var conds []fieldCond
			residual := false
			for _, sub := range p.Operand.Array() {
				f, err := query.CompileFilter(sub)
				if err != nil {
					return conds, true
				}
				cs, res := conditions(f)
				conds, residual = append(conds, cs...), residual || res
			}
			return conds, residual
		}
		return nil, p.Op != "$alwaysTrue"
	}
	if p.Op == "$elemMatch" {
		return elemMatchConds(p.Path, p.Operand), true
	}
	if c, ok := geoCond(p); ok {
		return []fieldCond{c}, true
	}
	c := opCond(p.Path, p.Op, p.Operand)
	return []fieldCond{c}, !c.exact
}

// opCond is the condition of one operator on a path.
func opCond(path, op string, v value.Value) fieldCond {
	c := fieldCond{path: path}
	switch op {
	case "$eq":
		c.ranges, c.exact = eqRanges(v)
		c.exists = !v.IsNull()
	case "$gt", "$gte", "$lt", "$lte":
		c.ranges, c.exact = cmpRanges(op, v)
		c.exists = !v.IsNull() || op == "$gt" || op == "$lt"
	case "$in":
		c.ranges, c.exact, c.exists = inRanges(v)
	case "$exists":
		if !truthy(v) {
			c.ranges = []vrange{pointRange(value.NullValue())}
		}
		c.exists = truthy(v)
	case "$regex":
		c.ranges = regexRanges(v)
		c.exists = true
	case "$all":
		c.ranges, c.exists = allRanges(v)
	case "$mod":
		c.ranges, c.exists = []vrange{bracket(value.LongValue(0))}, true
	case "$type", "$size", "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear":
		c.exists = true
	}
	c.bounded = c.ranges != nil
	if !c.bounded {
		c.exact = false
	}
	return c
}

// elemMatchGroups numbers $elemMatch groups.
var elemMatchGroups atomic.Int64

// elemMatchConds: {"a":{"$elemMatch":{"$gte":1,"$lt":5}}} bounds a by each
// operator; {"a":{"$elemMatch":{"b":1}}} bounds a.b. None is exact.
func elemMatchConds(path string, arg value.Value) []fieldCond {
	var conds []fieldCond
	group := int(elemMatchGroups.Add(1))
	if arg.Len() > 0 && strings.HasPrefix(arg.Fields()[0].Key, "$") {
		for _, f := range arg.Fields() {
			if f.Key == "$regex" {
				conds = append(conds, opCond(path, "$regex", arg))
				continue
			}
			if f.Key == "$options" || f.Key == "$not" {
				continue
			}
			conds = append(conds, opCond(path, f.Key, f.Value))
		}
	} else if f, err := query.CompileFilter(arg); err == nil {
		sub, _ := conditions(f)
		for _, c := range sub {
			c.path = path + "." + c.path
			conds = append(conds, c)
		}
	}
	for i := range conds {
		conds[i].exact = false
		if conds[i].path == path {
			conds[i].group = group
		}
	}
	if len(conds) == 0 {
		conds = append(conds, fieldCond{path: path, exists: true})
	}
	return conds
}

// eqRanges: a value matches itself; an array also matches an array
// holding it as an element, and is matched through its elements, so its
// bounds take in its first element (an index holds elements, not arrays).
func eqRanges(v value.Value) ([]vrange, bool) {
	if v.Kind() != value.Array {
		return []vrange{pointRange(v)}, true
	}
	if v.Len() == 0 {
		return []vrange{pointRange(v)}, false
	}
	return []vrange{pointRange(v), pointRange(v.Index(0))}, false
}

// cmpRanges brackets a comparison to its operand's type. An array operand
// is compared with whole arrays as well as elements: no bounds.
func cmpRanges(op string, v value.Value) ([]vrange, bool) {
	isNaN := (v.Kind() == value.Double && v.Double() != v.Double()) || (v.Kind() == value.Decimal && v.DecimalString() == "NaN")
	switch {
	case v.Kind() == value.Array:
		return nil, false
	case v.IsNull() || isNaN:
		if op == "$gte" || op == "$lte" {
			return []vrange{pointRange(v)}, true
		}
		return []vrange{}, true // $gt/$lt null or NaN: nothing
	}
	r, p := bracket(v), pointRange(v)
	if v.Kind() == value.MinKey || v.Kind() == value.MaxKey {
		// They compare with values of every type.
		r = vrange{lo: endpoint{[]byte{value.KeyMinKey}, true, "MinKey"}, hi: endpoint{[]byte{value.KeyMaxKey}, true, "MaxKey"}}
	}
	switch op {
	case "$gt":
		r.lo = endpoint{p.lo.prefix, false, p.lo.show}
	case "$gte":
		r.lo = p.lo
	case "$lt":
		r.hi = endpoint{p.hi.prefix, false, p.hi.show}
	default:
		r.hi = p.hi
	}
	return []vrange{r}, true
}

func inRanges(v value.Value) (rs []vrange, exact, exists bool) {
	exact, exists = true, true
	rs = []vrange{}
	for _, e := range v.Array() {
		if isRegexDoc(e) || e.Kind() == value.Regex {
			rs = append(rs, regexRanges(e)...)
			exact = false
			continue
		}
		r, ex := eqRanges(e)
		rs = append(rs, r...)
		exact = exact && ex
		exists = exists && !e.IsNull()
	}
	return rs, exact, exists
}

func allRanges(v value.Value) ([]vrange, bool) {
	if v.Len() == 0 {
		return nil, false
	}
	first := v.Index(0)
	switch {
	case isRegexDoc(first):
		return regexRanges(first), true
	case first.Kind() == value.Object && first.Len() > 0 && first.Fields()[0].Key == "$elemMatch":
		return nil, true
	}
	rs, _ := eqRanges(first)
	return rs, !first.IsNull()
}

func isRegexDoc(v value.Value) bool {
	return v.Kind() == value.Object && v.Len() > 0 && v.Len() <= 2 && v.Fields()[0].Key == "$regex"
}

// regexRanges bounds a regex ({"$regex":…,"$options":…}) to strings, or
// to the strings starting with its literal prefix.
// A regex value ({"a":/^x/}) matches strings and equal regexes: its own
// point is a range too.
func regexRanges(v value.Value) []vrange {
	if v.Kind() == value.Regex {
		rs := regexRanges(value.ObjectValue([]value.Field{{Key: "$regex", Value: value.StringValue(v.Pattern())},
			{Key: "$options", Value: value.StringValue(v.Options())}}))
		return append(rs, pointRange(v))
	}
	pattern, flags := v.Get("$regex").Str(), v.Get("$options").Str()
	if len(pattern) > 1 && pattern[0] == '/' {
		if end := strings.LastIndexByte(pattern, '/'); end > 0 && strings.Trim(pattern[end+1:], "imsxu") == "" {
			pattern, flags = pattern[1:end], flags+pattern[end+1:]
		}
	}
	if p, ok := regexPrefix(pattern, flags); ok {
		return []vrange{strPrefixRange(p)}
	}
	return []vrange{bracket(value.StringValue(""))}
}

// truthy is $exists's reading of its operand: false, null and 0 are false.
func truthy(v value.Value) bool {
	switch v.Kind() {
	case value.Missing, value.Null:
		return false
	case value.Bool:
		return v.Bool()
	case value.Long, value.Double, value.Int, value.Decimal:
		return !value.IsInteger(v, 0)
	}
	return true
}

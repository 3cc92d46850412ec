package store

import (
	"encoding/json"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// Collation. A query's collation is the one its filter (or, without one,
// its sort) was compiled with (query.CompileFilterCollation). An index
// may have a collation of its own (BTreeSpec.Collation): its keys then
// hold the collation keys of strings, not the strings. The planner gives
// an index the query's string conditions, mapped to collation keys, only
// when the two collations are equal; otherwise the index serves only the
// conditions without strings, and never the sort. The _id index is
// always binary. A collection's rules may name a default collation
// ("collation" in define), for the queries and indexes that give none;
// the callers (cli, mcpserver, shell) apply it with DefaultCollation.

// collationMismatch is why an index of another collation than the
// query's cannot help.
const collationMismatch = "its collation differs from the query's: it serves only conditions without strings, and never the sort"

// QueryCollation returns the collation q compares strings with.
func QueryCollation(q Query) *collation.Collation {
	if c := q.Filter.Collation(); c != nil {
		return c
	}
	return q.Sort.Collation()
}

// DefaultCollation returns the collation of the collection's rules, or
// nil (simple).
func (c *Collection) DefaultCollation() *collation.Collation {
	if c == nil || c.rules == nil {
		return nil
	}
	return c.rules.Collation()
}

// indexCollation parses the collation of a B-tree spec.
func indexCollation(raw json.RawMessage) (*collation.Collation, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v, err := value.Parse(raw)
	if err != nil {
		return nil, err
	}
	return collation.Parse(v)
}

// SetCollation sets the collation of an index spec, recording the
// collation document with all its fields; nil records {"locale":"simple"},
// which keeps the collection's default collation from applying.
func (s *BTreeSpec) SetCollation(c *collation.Collation) {
	s.coll, s.Collation = c, json.RawMessage(c.String())
}

// withDefaultCollation gives a B-tree index definition without a
// collation the collection's default.
func (c *Collection) withDefaultCollation(def IndexDef) IndexDef {
	dc := c.DefaultCollation()
	if def.Kind != BTreeKind || dc == nil {
		return def
	}
	s, err := ParseBTreeSpec(def)
	if err != nil || len(s.Collation) > 0 {
		return def // Prepare reports the error
	}
	s.SetCollation(dc)
	def.Spec, _ = json.Marshal(s)
	return def
}

// Coll returns the collation of the index, nil for binary keys.
func (s *BTreeSpec) Coll() *collation.Collation { return s.coll }

// condsFor returns the conditions an index with collation ixColl may use
// for q, the sort keys it may give, and whether conditions were left out
// (then a count cannot be covered).
func condsFor(q Query, ixColl *collation.Collation, conds []fieldCond, residual bool, sortKeys []query.SortKey) ([]fieldCond, bool, []query.SortKey) {
	qColl := QueryCollation(q)
	switch {
	case collation.Equal(ixColl, qColl) && qColl == nil:
		return conds, residual, sortKeys
	case collation.Equal(ixColl, qColl):
		cs, dropped := transformedConds(q.Filter, qColl, false)
		return cs, residual || dropped, sortKeys
	}
	cs, dropped := transformedConds(q.Filter, qColl, true)
	return cs, residual || dropped, nil
}

// transformedConds rebuilds the filter's conditions for an index whose
// keys are not compared as the filter compares: with stringFree, the
// conditions on strings are left out (an index of another collation
// cannot bound them); otherwise their operands become coll's keys, and
// conditions a collation key cannot bound ($regex, $not, $elemMatch) are
// left out. Explain shows the operands as written. dropped reports a
// condition left out.
func transformedConds(f *query.Filter, coll *collation.Collation, stringFree bool) ([]fieldCond, bool) {
	if f == nil {
		return nil, false
	}
	orig, dropped := transformPreds(f.Predicates(), nil, stringFree)
	conds := condsOf(orig)
	if stringFree {
		return conds, dropped
	}
	mapped, _ := transformPreds(f.Predicates(), coll, false)
	mc := condsOf(mapped)
	if len(mc) == len(conds) {
		for i := range mc {
			if len(mc[i].ranges) == len(conds[i].ranges) {
				for j := range mc[i].ranges {
					mc[i].ranges[j].lo.show = conds[i].ranges[j].lo.show
					mc[i].ranges[j].hi.show = conds[i].ranges[j].hi.show
				}
			}
		}
	}
	return mc, dropped
}

func condsOf(spec value.Value) []fieldCond {
	f, err := query.CompileFilter(spec)
	if err != nil {
		return nil
	}
	conds, _ := conditions(f)
	return conds
}

// uncollated are the operators whose operand is not compared with the
// field's value (a type name, a size, bits).
var uncollated = map[string]bool{"$exists": true, "$type": true, "$size": true, "$mod": true,
	"$bitsAllSet": true, "$bitsAllClear": true, "$bitsAnySet": true, "$bitsAnyClear": true}

// transformPreds returns the filter of the predicates kept, with their
// operands mapped by coll (when not nil).
func transformPreds(preds []query.Predicate, coll *collation.Collation, stringFree bool) (value.Value, bool) {
	var parts []value.Value
	dropped := false
	for _, p := range preds {
		doc, ok := transformPred(p, coll, stringFree)
		if !ok {
			dropped = true
			continue
		}
		parts = append(parts, doc)
	}
	if len(parts) == 0 {
		return value.ObjectValue(nil), dropped
	}
	return value.ObjectValue([]value.Field{{Key: "$and", Value: value.ArrayValue(parts)}}), dropped
}

func transformPred(p query.Predicate, coll *collation.Collation, stringFree bool) (value.Value, bool) {
	one := func(k string, v value.Value) value.Value { return value.ObjectValue([]value.Field{{Key: k, Value: v}}) }
	if p.Path == "" {
		if p.Op != "$and" {
			return value.Value{}, false // no bounds from $or, $nor, $expr
		}
		var subs []value.Value
		dropped := false
		for _, sub := range p.Operand.Array() {
			f, err := query.CompileFilter(sub)
			if err != nil {
				return value.Value{}, false
			}
			s, d := transformPreds(f.Predicates(), coll, stringFree)
			subs, dropped = append(subs, s), dropped || d
		}
		return one("$and", value.ArrayValue(subs)), !dropped
	}
	switch {
	case uncollated[p.Op]:
		return one(p.Path, one(p.Op, p.Operand)), true
	case p.Op == "$regex" || p.Op == "$not" || p.Op == "$elemMatch" || hasRegex(p.Operand):
		return value.Value{}, false
	case stringFree && collation.HasString(p.Operand):
		return value.Value{}, false
	}
	return one(p.Path, one(p.Op, coll.Map(p.Operand))), true
}

// hasRegex reports whether v is or holds a regex, or a {"$regex":…}
// document.
func hasRegex(v value.Value) bool {
	switch v.Kind() {
	case value.Regex:
		return true
	case value.Array:
		for _, e := range v.Array() {
			if hasRegex(e) {
				return true
			}
		}
	case value.Object:
		for _, f := range v.Fields() {
			if strings.HasPrefix(f.Key, "$regex") || hasRegex(f.Value) {
				return true
			}
		}
	}
	return false
}

// ResolveCollation returns the collation a query on c runs with: the
// collation document doc when given ({"locale":"simple"} included), else
// c's default. c may be nil (a collection that does not exist yet).
func ResolveCollation(c *Collection, doc value.Value) (*collation.Collation, error) {
	if !doc.IsMissing() {
		return collation.Parse(doc)
	}
	return c.DefaultCollation(), nil
}

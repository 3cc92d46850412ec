package query

import (
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// CompileFilterCollation is CompileFilter with a collation: equality,
// $ne, $in, $nin, $all and the range operators compare strings (also
// inside arrays and embedded documents) by coll, as MongoDB does with a
// query's collation. $regex, $type, field names and values of other
// types are unaffected. In $expr, the comparison operators ($eq, $ne,
// $gt, $gte, $lt, $lte, $cmp) compare by coll too; $jsonSchema and the
// other expression operators compare binary (docs/differences.md). A nil
// coll is CompileFilter.
func CompileFilterCollation(spec value.Value, coll *collation.Collation) (*Filter, error) {
	f, err := compileFilter(spec, coll)
	if err != nil || coll == nil {
		return f, err
	}
	f.coll = coll
	for _, n := range f.root {
		collateNode(n, coll)
	}
	return f, nil
}

// Collation returns the collation the filter compares strings with; nil
// is the simple (binary) collation.
func (f *Filter) Collation() *collation.Collation {
	if f == nil {
		return nil
	}
	return f.coll
}

// collateNode sets coll on the comparisons of a freshly compiled node.
func collateNode(n node, coll *collation.Collation) {
	switch n := n.(type) {
	case *pathNode:
		collatePred(n.pred, coll)
	case notNode:
		collateNode(n.n, coll)
	case andNode:
		for _, k := range n {
			collateNode(k, coll)
		}
	case orNode:
		for _, k := range n {
			collateNode(k, coll)
		}
	case norNode:
		for _, k := range n {
			collateNode(k, coll)
		}
	}
}

// collatePred sets coll on the comparisons of a predicate: the operand
// becomes its collation key once, and matchValue maps each value it
// tests.
func collatePred(p valuePred, coll *collation.Collation) {
	switch p := p.(type) {
	case *cmpPred:
		p.coll, p.rhs = coll, coll.Map(p.rhs)
	case *inPred:
		vals := p.vals
		p.vals, p.set, p.hasNull, p.coll = nil, nil, false, coll
		for _, v := range vals {
			p.add(coll.Map(v))
		}
	case notPred:
		collatePred(p.p, coll)
	case andPred:
		for _, q := range p {
			collatePred(q, coll)
		}
	case *elemMatchValuePred:
		for _, q := range p.preds {
			collatePred(q, coll)
		}
	case *elemMatchDocPred:
		collateNode(p.sub, coll)
	}
}

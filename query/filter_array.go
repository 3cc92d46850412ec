package query

import (
	"math"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// elemMatch compiles $elemMatch. When the argument's first key is a field
// operator ({"$gte":80,"$lt":85}) it applies to the elements as values;
// otherwise it is a filter applied to the elements as documents.
func (c *compiler) elemMatch(path string, arg value.Value) (valuePred, error) {
	if arg.Kind() != value.Object {
		return nil, malformed("$elemMatch needs an object, got %s", arg.TypeName())
	}
	if isElemMatchValue(arg) {
		for _, fl := range arg.Fields() {
			if !strings.HasPrefix(fl.Key, "$") {
				return nil, unknownOperator(fl.Key, fieldOperators)
			}
		}
		ops, err := c.operators(path, arg)
		if err != nil {
			return nil, err
		}
		preds := make([]valuePred, len(ops))
		for i, op := range ops {
			preds[i] = op.pred
		}
		return &elemMatchValuePred{preds: preds}, nil
	}
	preds, err := c.document(arg, false, path)
	if err != nil {
		return nil, err
	}
	sub := make(andNode, len(preds))
	for i, p := range preds {
		sub[i] = p.n
	}
	return &elemMatchDocPred{sub: sub}, nil
}

// isElemMatchValue reports whether an $elemMatch argument is of the value
// form: its first key is a '$' operator that is not a top-level one, and it
// is not a DBRef.
func isElemMatchValue(arg value.Value) bool {
	if len(arg.Fields()) == 0 || !strings.HasPrefix(arg.Fields()[0].Key, "$") {
		return false
	}
	for _, k := range []string{"$ref", "$id", "$db"} {
		if arg.Has(k) {
			return false
		}
	}
	first := arg.Fields()[0].Key
	return !slices.Contains(topLevelOperators, first) && !slices.Contains(pathlessRefused, first)
}

// all compiles $all: every listed value must be matched (by equality, or a
// regex), or every listed $elemMatch must match.
func (c *compiler) all(path string, arg value.Value) (valuePred, error) {
	if arg.Kind() != value.Array {
		return nil, malformed("$all needs an array")
	}
	if len(arg.Array()) == 0 {
		return constPred(false), nil
	}
	if first := arg.Array()[0]; first.Kind() == value.Object && len(first.Fields()) > 0 && first.Fields()[0].Key == "$elemMatch" {
		return c.allElemMatch(path, arg)
	}
	and := make(andPred, 0, len(arg.Array()))
	for _, e := range arg.Array() {
		switch {
		case isRegexDoc(e):
			p, _, err := regexFromDoc(e)
			if err != nil {
				return nil, err
			}
			and = append(and, p)
		case isOperatorDoc(e):
			return nil, malformed("$all cannot contain operator objects other than $elemMatch (found `%s`)", e.Fields()[0].Key)
		default:
			and = append(and, &cmpPred{op: opEq, rhs: e})
		}
	}
	return and, nil
}

func (c *compiler) allElemMatch(path string, arg value.Value) (valuePred, error) {
	and := make(andPred, 0, len(arg.Array()))
	for _, e := range arg.Array() {
		if e.Kind() != value.Object || len(e.Fields()) != 1 || e.Fields()[0].Key != "$elemMatch" {
			return nil, malformed("$all with $elemMatch needs every element to be a {\"$elemMatch\":{…}} object")
		}
		p, err := c.elemMatch(path, e.Fields()[0].Value)
		if err != nil {
			return nil, err
		}
		and = append(and, p)
	}
	return and, nil
}

// compileSize compiles $size: a non-negative whole number.
func compileSize(arg value.Value) (valuePred, error) {
	switch arg.Kind() {
	case value.Long, value.Int:
		if arg.Long() < 0 {
			return nil, malformed("$size may not be negative")
		}
		return sizePred(arg.Long()), nil
	case value.Double:
		f := arg.Double()
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return nil, malformed("$size must be a whole number")
		}
		if f < 0 {
			return nil, malformed("$size may not be negative")
		}
		if f > math.MaxInt32 {
			return constPred(false), nil
		}
		return sizePred(int64(f)), nil
	}
	return nil, malformed("$size needs a number, got %s", arg.TypeName())
}

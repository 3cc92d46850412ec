package query

import (
	"math"
	"strings"
)

// elemMatch compiles $elemMatch. When the argument's first key is a field
// operator ({"$gte":80,"$lt":85}) it applies to the elements as values;
// otherwise it is a filter applied to the elements as documents.
func (c *compiler) elemMatch(path string, arg Value) (valuePred, error) {
	if arg.kind != Object {
		return nil, malformed("$elemMatch needs an object, got %s", arg.TypeName())
	}
	if isElemMatchValue(arg) {
		for _, fl := range arg.fields {
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
func isElemMatchValue(arg Value) bool {
	if len(arg.fields) == 0 || !strings.HasPrefix(arg.fields[0].Key, "$") {
		return false
	}
	for _, k := range []string{"$ref", "$id", "$db"} {
		if hasKey(arg.fields, k) {
			return false
		}
	}
	first := arg.fields[0].Key
	return !contains(topLevelOperators, first) && !contains(pathlessRefused, first)
}

// all compiles $all: every listed value must be matched (by equality, or a
// regex), or every listed $elemMatch must match.
func (c *compiler) all(path string, arg Value) (valuePred, error) {
	if arg.kind != Array {
		return nil, malformed("$all needs an array")
	}
	if len(arg.arr) == 0 {
		return constPred(false), nil
	}
	if first := arg.arr[0]; first.kind == Object && len(first.fields) > 0 && first.fields[0].Key == "$elemMatch" {
		return c.allElemMatch(path, arg)
	}
	and := make(andPred, 0, len(arg.arr))
	for _, e := range arg.arr {
		switch {
		case isRegexDoc(e):
			p, _, err := regexFromDoc(e)
			if err != nil {
				return nil, err
			}
			and = append(and, p)
		case isOperatorDoc(e):
			return nil, malformed("$all cannot contain operator objects other than $elemMatch (found `%s`)", e.fields[0].Key)
		default:
			and = append(and, &cmpPred{op: opEq, rhs: e})
		}
	}
	return and, nil
}

func (c *compiler) allElemMatch(path string, arg Value) (valuePred, error) {
	and := make(andPred, 0, len(arg.arr))
	for _, e := range arg.arr {
		if e.kind != Object || len(e.fields) != 1 || e.fields[0].Key != "$elemMatch" {
			return nil, malformed("$all with $elemMatch needs every element to be a {\"$elemMatch\":{…}} object")
		}
		p, err := c.elemMatch(path, e.fields[0].Value)
		if err != nil {
			return nil, err
		}
		and = append(and, p)
	}
	return and, nil
}

// compileSize compiles $size: a non-negative whole number.
func compileSize(arg Value) (valuePred, error) {
	switch arg.kind {
	case Long:
		if arg.Long() < 0 {
			return nil, malformed("$size may not be negative")
		}
		return sizePred(arg.Long()), nil
	case Double:
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

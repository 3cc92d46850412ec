package query

import (
	"math"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// subObject parses an object value: an operator ({"$slice":…},
// {"$elemMatch":…}, an aggregation expression) when it has a single '$'
// key, otherwise a nested projection ({"size":{"uom":1}}).
func (p *projParser) subObject(parent *pnode, name string, obj value.Value, parentPath string) error {
	if len(obj.Fields()) == 1 && strings.HasPrefix(obj.Fields()[0].Key, "$") {
		return p.operator(parent, name, obj, parentPath)
	}
	full := joinPath(parentPath, name)
	if len(obj.Fields()) == 0 {
		return errs.Errorf(errs.Invalid, "An empty sub-projection is not a valid value. Found empty object at path %s", full)
	}
	n, err := p.internalAt(parent, name)
	if err != nil {
		return err
	}
	for _, f := range obj.Fields() {
		if err := p.element(n, f.Key, f.Value, full); err != nil {
			return err
		}
	}
	return nil
}

// internalAt returns the internal node at the relative path name under
// parent, creating it as needed.
func (p *projParser) internalAt(parent *pnode, name string) (*pnode, error) {
	parts, err := splitProjPath(name)
	if err != nil {
		return nil, err
	}
	n := parent
	for _, part := range parts {
		c := n.child(part)
		if c == nil {
			c = &pnode{kind: pInternal}
			n.fields = append(n.fields, pfield{part, c})
		} else if c.kind != pInternal {
			return nil, pathCollision(name, "")
		}
		n = c
	}
	return n, nil
}

// operator parses {"<name>":{"$op":arg}}.
func (p *projParser) operator(parent *pnode, name string, obj value.Value, parentPath string) error {
	op, arg := obj.Fields()[0].Key, obj.Fields()[0].Value
	switch op {
	case "$slice":
		return p.slice(parent, name, arg, parentPath)
	case "$elemMatch":
		return p.elemMatch(parent, name, arg)
	case "$meta":
		return p.meta(name, arg)
	case "$literal":
		return p.computed(parent, name, &pnode{kind: pLiteral, value: arg})
	}
	if p.typ == projExclusion {
		return errs.Errorf(errs.Invalid, "Cannot use expression other than $meta in exclusion projection").
			WithHint("computed fields need an inclusion projection")
	}
	e, err := expr.Compile(obj)
	if err != nil {
		return err
	}
	return p.computed(parent, name, &pnode{kind: pExpr, expr: e})
}

// computed adds a computed field, which makes the projection an inclusion.
func (p *projParser) computed(parent *pnode, name string, leaf *pnode) error {
	if p.typ == projExclusion {
		return errs.Errorf(errs.Invalid, "Cannot use an expression on field %s in an exclusion projection", name).
			WithHint("computed fields need an inclusion projection")
	}
	if err := p.add(parent, name, leaf); err != nil {
		return err
	}
	p.typ = projInclusion
	return nil
}

// slice parses {"$slice": n} and {"$slice": [skip, limit]}.
func (p *projParser) slice(parent *pnode, name string, arg value.Value, parentPath string) error {
	op := postOp{slice: true, path: strings.Split(joinPath(parentPath, name), ".")}
	switch arg.Kind() {
	case value.Long, value.Double, value.Int:
		op.limit = sliceInt(arg)
	case value.Array:
		if len(arg.Array()) != 2 {
			return projError("$slice array argument should be of form [skip, limit] (field `%s`)", name)
		}
		skip, limit := arg.Array()[0], arg.Array()[1]
		if !skip.IsNumber() {
			return projError("$slice expects the skip argument to be a number, got %s (field `%s`)", skip.TypeName(), name)
		}
		if !limit.IsNumber() {
			return projError("$slice expects the limit argument to be a number, got %s (field `%s`)", limit.TypeName(), name)
		}
		op.hasSkip, op.skip, op.limit = true, sliceInt(skip), sliceInt(limit)
		if op.limit <= 0 {
			return projError("$slice limit must be positive, got %d (field `%s`)", op.limit, name)
		}
	default:
		return projError("$slice only supports numbers and [skip, limit] arrays (field `%s`)", name)
	}
	if err := p.add(parent, name, &pnode{kind: pSlice}); err != nil {
		return err
	}
	p.hasSlice = true
	p.post = append(p.post, op)
	return nil
}

// sliceInt converts a $slice number to an integer, truncating doubles and
// saturating at the int64 range.
func sliceInt(v value.Value) int64 {
	if v.IsIntegral() {
		return v.Long()
	}
	f := v.Double()
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// elemMatch parses {"<field>":{"$elemMatch":{…}}}: the first array
// element that matches.
func (p *projParser) elemMatch(parent *pnode, name string, arg value.Value) error {
	switch {
	case arg.Kind() != value.Object:
		return projError("elemMatch: Invalid argument, object required, but got %s", arg.TypeName())
	case p.hasPos:
		return errs.Errorf(errs.Invalid, "Cannot specify positional operator and $elemMatch.")
	case parent != p.root || strings.Contains(name, "."):
		return errs.Errorf(errs.Invalid, "Cannot use $elemMatch projection on a nested field.")
	}
	spec := value.ObjectValue([]value.Field{{Key: name, Value: value.ObjectValue([]value.Field{{Key: "$elemMatch", Value: arg}})}})
	f, err := CompileFilter(spec)
	if err != nil {
		return err
	}
	if err := p.add(parent, name, &pnode{kind: pElemMatch, filter: f}); err != nil {
		return err
	}
	p.hasElemMatch = true
	return nil
}

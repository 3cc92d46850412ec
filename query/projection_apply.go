package query

import (
	"context"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Apply projects doc. A projection with a positional operator ("arr.$")
// needs the query's filter: use ApplyWithFilter.
func (p *Projection) Apply(doc value.Value) (value.Value, error) { return p.ApplyWithFilter(doc, nil) }

// ApplyWithFilter projects doc, a document that f matches; f is only used
// by the positional operator and may be nil otherwise. The result keeps
// the document's field order, with _id first; computed fields (literals,
// expressions, $elemMatch) follow the fields taken from the document, in
// the order they were written.
func (p *Projection) ApplyWithFilter(doc value.Value, f *Filter) (value.Value, error) {
	return p.ApplyContext(nil, doc, f)
}

// ApplyContext is ApplyWithFilter that stops evaluating an expression
// when ctx is done, and then returns ctx's error. A nil ctx is never done.
func (p *Projection) ApplyContext(ctx context.Context, doc value.Value, f *Filter) (value.Value, error) {
	out, err := p.applyFields(ctx, doc, f)
	if err != nil || doc.Kind() != value.Object {
		return out, err
	}
	return p.applyMeta(doc, out)
}

func (p *Projection) applyFields(ctx context.Context, doc value.Value, f *Filter) (value.Value, error) {
	if p.empty || doc.Kind() != value.Object {
		return doc, nil
	}
	var out value.Value
	if p.inclusion {
		var err error
		if out, err = computeObject(ctx, doc, includeObject(doc, p.root), p.root); err != nil {
			return value.Value{}, err
		}
	} else {
		out = excludeObject(doc, p.root)
	}
	for _, op := range p.post {
		if op.slice {
			out = sliceAt(out, op.path, &op)
			continue
		}
		var err error
		if out, err = p.positional(ctx, doc, out, op.path, f); err != nil {
			return value.Value{}, err
		}
	}
	return out.IDFirst(), nil
}

// includeObject keeps the fields of v that n includes, in v's order.
func includeObject(v value.Value, n *pnode) value.Value {
	out := make([]value.Field, 0, len(n.fields))
	for _, f := range v.Fields() {
		c := n.child(f.Key)
		if c == nil {
			continue
		}
		switch c.kind {
		case pInclude, pSlice, pPositional:
			out = append(out, f)
		case pInternal:
			if nv := includeValue(f.Value, c); nv.Kind() != value.Missing {
				out = append(out, value.Field{Key: f.Key, Value: nv})
			}
		}
	}
	return value.ObjectValue(out)
}

// includeValue applies the subtree n to a value: an object is projected,
// an array has its elements projected (dropping those that are neither
// objects nor arrays), anything else disappears.
func includeValue(v value.Value, n *pnode) value.Value {
	switch v.Kind() {
	case value.Object:
		return includeObject(v, n)
	case value.Array:
		out := make([]value.Value, 0, len(v.Array()))
		for _, e := range v.Array() {
			if e.Kind() == value.Object || e.Kind() == value.Array {
				out = append(out, includeValue(e, n))
			}
		}
		return value.ArrayValue(out)
	}
	return value.Value{}
}

// computeObject adds to out the computed fields of n, evaluated against
// the whole document root.
func computeObject(ctx context.Context, root, out value.Value, n *pnode) (value.Value, error) {
	for _, f := range n.fields {
		c := f.node
		var (
			v   value.Value
			err error
		)
		switch {
		case c.kind == pLiteral:
			v = c.value
		case c.kind == pExpr:
			v, err = c.expr.EvalContext(ctx, root, time.Time{})
		case c.kind == pElemMatch:
			v, err = elemMatchValue(root, f.name, c.filter)
		case c.kind == pInternal && c.computed:
			v, err = computeValue(ctx, root, out.Get(f.name), c)
		default:
			continue
		}
		if err != nil {
			return value.Value{}, err
		}
		if v.Kind() != value.Missing {
			out = out.With(f.name, v)
		}
	}
	return out, nil
}

// computeValue applies the computed fields of subtree n to a value: into
// an object, into each element of an array, and into a new object in
// place of anything else.
func computeValue(ctx context.Context, root, v value.Value, n *pnode) (value.Value, error) {
	switch v.Kind() {
	case value.Object:
		return computeObject(ctx, root, v, n)
	case value.Array:
		out := make([]value.Value, len(v.Array()))
		for i, e := range v.Array() {
			var err error
			if out[i], err = computeValue(ctx, root, e, n); err != nil {
				return value.Value{}, err
			}
		}
		return value.ArrayValue(out), nil
	}
	return computeObject(ctx, root, value.ObjectValue(nil), n)
}

// elemMatchValue returns [the first element of doc's array field that
// matches], or missing.
func elemMatchValue(doc value.Value, name string, f *Filter) (value.Value, error) {
	ok, key, err := f.matchKey(nil, doc)
	if err != nil || !ok {
		return value.Value{}, err
	}
	arr := doc.Get(name)
	if arr.Kind() != value.Array || key < 0 || key >= len(arr.Array()) {
		return value.Value{}, nil
	}
	return value.ArrayValue([]value.Value{arr.Array()[key]}), nil
}

// excludeObject drops the fields of v that n excludes.
func excludeObject(v value.Value, n *pnode) value.Value {
	out := make([]value.Field, 0, len(v.Fields()))
	for _, f := range v.Fields() {
		c := n.child(f.Key)
		switch {
		case c == nil:
			out = append(out, f)
		case c.kind == pInternal:
			out = append(out, value.Field{Key: f.Key, Value: excludeValue(f.Value, c)})
		case c.kind != pExclude:
			out = append(out, f)
		}
	}
	return value.ObjectValue(out)
}

// excludeValue applies the subtree n to a value: into an object, into the
// objects and arrays of an array; anything else is kept.
func excludeValue(v value.Value, n *pnode) value.Value {
	switch v.Kind() {
	case value.Object:
		return excludeObject(v, n)
	case value.Array:
		out := make([]value.Value, len(v.Array()))
		for i, e := range v.Array() {
			out[i] = excludeValue(e, n)
		}
		return value.ArrayValue(out)
	}
	return v
}

// sliceAt applies a $slice at path in object v: through embedded objects,
// and into each object element of an array met before the end of the path.
func sliceAt(v value.Value, path []string, op *postOp) value.Value {
	val := v.Get(path[0])
	switch {
	case val.Kind() == value.Array && len(path) == 1:
		val = sliceArray(val.Array(), op)
	case val.Kind() == value.Array:
		out := make([]value.Value, len(val.Array()))
		for i, e := range val.Array() {
			out[i] = e
			if e.Kind() == value.Object {
				out[i] = sliceAt(e, path[1:], op)
			}
		}
		val = value.ArrayValue(out)
	case val.Kind() == value.Object && len(path) > 1:
		val = sliceAt(val, path[1:], op)
	default:
		return v
	}
	return v.With(path[0], val)
}

// sliceArray returns the elements $slice selects: the first n (n >= 0),
// the last -n, or [skip, limit] with a negative skip counted from the end.
func sliceArray(arr []value.Value, op *postOp) value.Value {
	n := int64(len(arr))
	var start, count int64
	switch {
	case !op.hasSkip && op.limit < 0:
		start = max(0, n+op.limit)
		count = n - start
	case !op.hasSkip:
		count = min(n, op.limit)
	case op.skip < 0:
		start = max(0, n+op.skip)
		count = min(n-start, op.limit)
	default:
		start = min(n, op.skip)
		count = min(n-start, op.limit)
	}
	return value.ArrayValue(arr[start : start+count : start+count])
}

// positional narrows the first array on path in out to the element at the
// position where the filter matched doc ("grades.$").
func (p *Projection) positional(ctx context.Context, doc, out value.Value, path []string, f *Filter) (value.Value, error) {
	if f == nil {
		return value.Value{}, errs.Errorf(errs.Invalid, "malformed projection: positional projection '%s' needs the query filter", p.posName).
			WithHint("use ApplyWithFilter with the filter of the query")
	}
	if !mentionsField(f, p.posField) {
		return value.Value{}, errs.Errorf(errs.Invalid, "Positional projection '%s' does not match the query document.", p.posName).
			WithHint("the filter must have a condition on the array field `%s`", p.posField)
	}
	ok, key, err := f.matchKey(ctx, doc)
	if err != nil {
		return value.Value{}, err
	}
	if !ok {
		return value.Value{}, errs.Errorf(errs.Invalid, "positional projection '%s' applied to a document the filter does not match", p.posName).
			WithHint("project only the documents the query's filter returned")
	}
	sub := out
	for i, name := range path {
		val := sub.Get(name)
		switch val.Kind() {
		case value.Array:
			if key < 0 {
				return value.Value{}, errs.Errorf(errs.Invalid, "positional operator '.$' couldn't find a matching element in the array").
					WithHint("the filter must match an element of `%s`; give it a single condition on that array", p.posField)
			}
			if key >= len(val.Array()) {
				return value.Value{}, errs.Errorf(errs.Invalid, "positional operator '.$' element mismatch").
					WithHint("the filter's condition matched another array than `%s`", p.posName)
			}
			return value.SetPath(out, path[:i+1], value.ArrayValue([]value.Value{val.Array()[key]})), nil
		case value.Object:
			sub = val
		default:
			return out, nil
		}
	}
	return out, nil
}

// mentionsField reports whether some condition of f is on field or one of
// its subfields.
func mentionsField(f *Filter, field string) bool {
	for _, path := range f.fields {
		if first, _, _ := cutDot(path); first == field {
			return true
		}
	}
	return false
}

func cutDot(path string) (string, string, bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

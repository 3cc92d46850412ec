package agg

import (
	"github.com/omgdb/omgdb/query/value"
)

// Applying a compiled projection to documents.

// include keeps, in the document's own order, the included fields of
// object v and the included parts of nested levels.
func (n *projNode) include(v value.Value) value.Value {
	out := make([]value.Field, 0, len(n.names))
	for _, f := range v.Fields() {
		ch := n.children[f.Key]
		switch {
		case ch == nil:
		case ch.include:
			out = append(out, f)
		case ch.sub != nil && ch.sub.anyInclude:
			if x := ch.sub.includeValue(f.Value); !x.IsMissing() {
				out = append(out, value.Field{Key: f.Key, Value: x})
			}
		}
	}
	return value.ObjectValue(out)
}

// includeValue projects a nested value: objects level by level, arrays
// element by element (dropping scalars); other values disappear.
func (n *projNode) includeValue(v value.Value) value.Value {
	switch v.Kind() {
	case value.Object:
		return n.include(v)
	case value.Array:
		out := make([]value.Value, 0, v.Len())
		for _, e := range v.Array() {
			if x := n.includeValue(e); !x.IsMissing() {
				out = append(out, x)
			}
		}
		return value.ArrayValue(out)
	}
	return value.MissingValue
}

// exclude drops the excluded fields of object v.
func (n *projNode) exclude(v value.Value) value.Value {
	out := make([]value.Field, 0, v.Len())
	for _, f := range v.Fields() {
		ch := n.children[f.Key]
		switch {
		case ch == nil, ch.include:
			out = append(out, f)
		case ch.exclude:
		case ch.sub != nil:
			out = append(out, value.Field{Key: f.Key, Value: ch.sub.excludeValue(f.Value)})
		}
	}
	return value.ObjectValue(out)
}

func (n *projNode) excludeValue(v value.Value) value.Value {
	switch v.Kind() {
	case value.Object:
		return n.exclude(v)
	case value.Array:
		out := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			out[i] = n.excludeValue(e)
		}
		return value.ArrayValue(out)
	}
	return v
}

// applyExprs sets the computed fields, in spec order, on object out;
// root is the input document ($$ROOT and $$CURRENT of the expressions).
// A field whose value is missing ($$REMOVE) is removed.
func (n *projNode) applyExprs(r *runState, root, out value.Value) (value.Value, error) {
	if !n.anyExpr {
		return out, nil
	}
	for _, name := range n.names {
		ch := n.children[name]
		switch {
		case ch.expr != nil:
			v, err := r.eval(ch.expr, root)
			if err != nil {
				return value.Value{}, err
			}
			if v.IsMissing() {
				out = out.Without(name)
			} else {
				out = out.With(name, v)
			}
		case ch.sub != nil && ch.sub.anyExpr:
			v, err := ch.sub.exprsToValue(r, root, out.Get(name))
			if err != nil {
				return value.Value{}, err
			}
			out = out.With(name, v)
		}
	}
	return out, nil
}

// exprsToValue applies nested computed fields to a value: into an object,
// into each element of an array, or replacing any other value with a new
// object.
func (n *projNode) exprsToValue(r *runState, root, v value.Value) (value.Value, error) {
	switch v.Kind() {
	case value.Object:
		return n.applyExprs(r, root, v)
	case value.Array:
		out := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			x, err := n.exprsToValue(r, root, e)
			if err != nil {
				return value.Value{}, err
			}
			out[i] = x
		}
		return value.ArrayValue(out), nil
	}
	return n.applyExprs(r, root, value.ObjectValue(nil))
}

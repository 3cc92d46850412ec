package query

// Applying a compiled projection to documents.

// include keeps, in the document's own order, the included fields of
// object v and the included parts of nested levels.
func (n *projNode) include(v Value) Value {
	out := make([]Field, 0, len(n.names))
	for _, f := range v.Fields() {
		ch := n.children[f.Key]
		switch {
		case ch == nil:
		case ch.include:
			out = append(out, f)
		case ch.sub != nil && ch.sub.anyInclude:
			if x := ch.sub.includeValue(f.Value); !x.IsMissing() {
				out = append(out, Field{f.Key, x})
			}
		}
	}
	return ObjectValue(out)
}

// includeValue projects a nested value: objects level by level, arrays
// element by element (dropping scalars); other values disappear.
func (n *projNode) includeValue(v Value) Value {
	switch v.Kind() {
	case Object:
		return n.include(v)
	case Array:
		out := make([]Value, 0, v.Len())
		for _, e := range v.Array() {
			if x := n.includeValue(e); !x.IsMissing() {
				out = append(out, x)
			}
		}
		return ArrayValue(out)
	}
	return MissingValue
}

// exclude drops the excluded fields of object v.
func (n *projNode) exclude(v Value) Value {
	out := make([]Field, 0, v.Len())
	for _, f := range v.Fields() {
		ch := n.children[f.Key]
		switch {
		case ch == nil, ch.include:
			out = append(out, f)
		case ch.exclude:
		case ch.sub != nil:
			out = append(out, Field{f.Key, ch.sub.excludeValue(f.Value)})
		}
	}
	return ObjectValue(out)
}

func (n *projNode) excludeValue(v Value) Value {
	switch v.Kind() {
	case Object:
		return n.exclude(v)
	case Array:
		out := make([]Value, v.Len())
		for i, e := range v.Array() {
			out[i] = n.excludeValue(e)
		}
		return ArrayValue(out)
	}
	return v
}

// applyExprs sets the computed fields, in spec order, on object out;
// root is the input document ($$ROOT and $$CURRENT of the expressions).
// A field whose value is missing ($$REMOVE) is removed.
func (n *projNode) applyExprs(r *runState, root, out Value) (Value, error) {
	if !n.anyExpr {
		return out, nil
	}
	for _, name := range n.names {
		ch := n.children[name]
		switch {
		case ch.expr != nil:
			v, err := r.eval(ch.expr, root)
			if err != nil {
				return Value{}, err
			}
			if v.IsMissing() {
				out = out.Without(name)
			} else {
				out = out.With(name, v)
			}
		case ch.sub != nil && ch.sub.anyExpr:
			v, err := ch.sub.exprsToValue(r, root, out.Get(name))
			if err != nil {
				return Value{}, err
			}
			out = out.With(name, v)
		}
	}
	return out, nil
}

// exprsToValue applies nested computed fields to a value: into an object,
// into each element of an array, or replacing any other value with a new
// object.
func (n *projNode) exprsToValue(r *runState, root, v Value) (Value, error) {
	switch v.Kind() {
	case Object:
		return n.applyExprs(r, root, v)
	case Array:
		out := make([]Value, v.Len())
		for i, e := range v.Array() {
			x, err := n.exprsToValue(r, root, e)
			if err != nil {
				return Value{}, err
			}
			out[i] = x
		}
		return ArrayValue(out), nil
	}
	return n.applyExprs(r, root, ObjectValue(nil))
}

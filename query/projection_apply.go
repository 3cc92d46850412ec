package query

// Apply projects doc. A projection with a positional operator ("arr.$")
// needs the query's filter: use ApplyWithFilter.
func (p *Projection) Apply(doc Value) (Value, error) { return p.ApplyWithFilter(doc, nil) }

// ApplyWithFilter projects doc, a document that f matches; f is only used
// by the positional operator and may be nil otherwise. The result keeps
// the document's field order, with _id first; computed fields (literals,
// expressions, $elemMatch) follow the fields taken from the document, in
// the order they were written.
func (p *Projection) ApplyWithFilter(doc Value, f *Filter) (Value, error) {
	if p.empty || doc.kind != Object {
		return doc, nil
	}
	var out Value
	if p.inclusion {
		var err error
		if out, err = computeObject(doc, includeObject(doc, p.root), p.root); err != nil {
			return Value{}, err
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
		if out, err = p.positional(doc, out, op.path, f); err != nil {
			return Value{}, err
		}
	}
	return out.IDFirst(), nil
}

// includeObject keeps the fields of v that n includes, in v's order.
func includeObject(v Value, n *pnode) Value {
	out := make([]Field, 0, len(n.fields))
	for _, f := range v.fields {
		c := n.child(f.Key)
		if c == nil {
			continue
		}
		switch c.kind {
		case pInclude, pSlice, pPositional:
			out = append(out, f)
		case pInternal:
			if nv := includeValue(f.Value, c); nv.kind != Missing {
				out = append(out, Field{f.Key, nv})
			}
		}
	}
	return ObjectValue(out)
}

// includeValue applies the subtree n to a value: an object is projected,
// an array has its elements projected (dropping those that are neither
// objects nor arrays), anything else disappears.
func includeValue(v Value, n *pnode) Value {
	switch v.kind {
	case Object:
		return includeObject(v, n)
	case Array:
		out := make([]Value, 0, len(v.arr))
		for _, e := range v.arr {
			if e.kind == Object || e.kind == Array {
				out = append(out, includeValue(e, n))
			}
		}
		return ArrayValue(out)
	}
	return Value{}
}

// computeObject adds to out the computed fields of n, evaluated against
// the whole document root.
func computeObject(root, out Value, n *pnode) (Value, error) {
	for _, f := range n.fields {
		c := f.node
		var (
			v   Value
			err error
		)
		switch {
		case c.kind == pLiteral:
			v = c.value
		case c.kind == pExpr:
			v, err = c.expr.Eval(root)
		case c.kind == pElemMatch:
			v, err = elemMatchValue(root, f.name, c.filter)
		case c.kind == pInternal && c.computed:
			v, err = computeValue(root, out.Get(f.name), c)
		default:
			continue
		}
		if err != nil {
			return Value{}, err
		}
		if v.kind != Missing {
			out = out.With(f.name, v)
		}
	}
	return out, nil
}

// computeValue applies the computed fields of subtree n to a value: into
// an object, into each element of an array, and into a new object in
// place of anything else.
func computeValue(root, v Value, n *pnode) (Value, error) {
	switch v.kind {
	case Object:
		return computeObject(root, v, n)
	case Array:
		out := make([]Value, len(v.arr))
		for i, e := range v.arr {
			var err error
			if out[i], err = computeValue(root, e, n); err != nil {
				return Value{}, err
			}
		}
		return ArrayValue(out), nil
	}
	return computeObject(root, ObjectValue(nil), n)
}

// elemMatchValue returns [the first element of doc's array field that
// matches], or missing.
func elemMatchValue(doc Value, name string, f *Filter) (Value, error) {
	ok, key, err := f.matchKey(doc)
	if err != nil || !ok {
		return Value{}, err
	}
	arr := doc.Get(name)
	if arr.kind != Array || key < 0 || key >= len(arr.arr) {
		return Value{}, nil
	}
	return ArrayValue([]Value{arr.arr[key]}), nil
}

// excludeObject drops the fields of v that n excludes.
func excludeObject(v Value, n *pnode) Value {
	out := make([]Field, 0, len(v.fields))
	for _, f := range v.fields {
		c := n.child(f.Key)
		switch {
		case c == nil:
			out = append(out, f)
		case c.kind == pInternal:
			out = append(out, Field{f.Key, excludeValue(f.Value, c)})
		case c.kind != pExclude:
			out = append(out, f)
		}
	}
	return ObjectValue(out)
}

// excludeValue applies the subtree n to a value: into an object, into the
// objects and arrays of an array; anything else is kept.
func excludeValue(v Value, n *pnode) Value {
	switch v.kind {
	case Object:
		return excludeObject(v, n)
	case Array:
		out := make([]Value, len(v.arr))
		for i, e := range v.arr {
			out[i] = excludeValue(e, n)
		}
		return ArrayValue(out)
	}
	return v
}

// sliceAt applies a $slice at path in object v: through embedded objects,
// and into each object element of an array met before the end of the path.
func sliceAt(v Value, path []string, op *postOp) Value {
	val := v.Get(path[0])
	switch {
	case val.kind == Array && len(path) == 1:
		val = sliceArray(val.arr, op)
	case val.kind == Array:
		out := make([]Value, len(val.arr))
		for i, e := range val.arr {
			out[i] = e
			if e.kind == Object {
				out[i] = sliceAt(e, path[1:], op)
			}
		}
		val = ArrayValue(out)
	case val.kind == Object && len(path) > 1:
		val = sliceAt(val, path[1:], op)
	default:
		return v
	}
	return v.With(path[0], val)
}

// sliceArray returns the elements $slice selects: the first n (n >= 0),
// the last -n, or [skip, limit] with a negative skip counted from the end.
func sliceArray(arr []Value, op *postOp) Value {
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
	return ArrayValue(arr[start : start+count : start+count])
}

// positional narrows the first array on path in out to the element at the
// position where the filter matched doc ("grades.$").
func (p *Projection) positional(doc, out Value, path []string, f *Filter) (Value, error) {
	if f == nil {
		return Value{}, Errorf(Invalid, "malformed projection: positional projection '%s' needs the query filter", p.posName).
			WithHint("use ApplyWithFilter with the filter of the query")
	}
	if !mentionsField(f, p.posField) {
		return Value{}, Errorf(Invalid, "Positional projection '%s' does not match the query document.", p.posName).
			WithHint("the filter must have a condition on the array field `%s`", p.posField)
	}
	ok, key, err := f.matchKey(doc)
	if err != nil {
		return Value{}, err
	}
	if !ok {
		return Value{}, Errorf(Invalid, "positional projection '%s' applied to a document the filter does not match", p.posName).
			WithHint("project only the documents the query's filter returned")
	}
	sub := out
	for i, name := range path {
		val := sub.Get(name)
		switch val.kind {
		case Array:
			if key < 0 {
				return Value{}, Errorf(Invalid, "positional operator '.$' couldn't find a matching element in the array").
					WithHint("the filter must match an element of `%s`; give it a single condition on that array", p.posField)
			}
			if key >= len(val.arr) {
				return Value{}, Errorf(Invalid, "positional operator '.$' element mismatch").
					WithHint("the filter's condition matched another array than `%s`", p.posName)
			}
			return setPath(out, path[:i+1], ArrayValue([]Value{val.arr[key]})), nil
		case Object:
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

// setPath returns object v with the value at path (through objects)
// replaced by val.
func setPath(v Value, path []string, val Value) Value {
	if len(path) == 1 {
		return v.With(path[0], val)
	}
	return v.With(path[0], setPath(v.Get(path[0]), path[1:], val))
}

package query

// Object operators.

func registerExprObjectOps() {
	registerOps(map[string]opCompiler{
		"$mergeObjects":  rangeOp(0, -1, mergeObjects),
		"$objectToArray": unaryOp(objectToArray),
		"$arrayToObject": unaryOp(arrayToObject),
		"$getField":      compileGetField,
		"$setField":      compileSetField(false),
		"$unsetField":    compileSetField(true),
	})
}

func mergeObjects(args []Value) (Value, error) {
	out := ObjectValue(nil)
	for i, v := range args {
		var err error
		if out, err = mergeInto("$mergeObjects", out, v, i); err != nil {
			return Value{}, err
		}
	}
	return out, nil
}

// mergeInto sets each field of v in out, ignoring null and missing v.
func mergeInto(op string, out, v Value, i int) (Value, error) {
	if nullish(v) {
		return out, nil
	}
	if v.Kind() != Object {
		return Value{}, Errorf(Invalid, "%s requires object inputs, but input %d is of type %s", op, i+1, v.TypeName())
	}
	if out.Len() == 0 {
		return v, nil
	}
	for _, f := range v.Fields() {
		out = out.With(f.Key, f.Value)
	}
	return out, nil
}

func objectToArray(v Value) (Value, error) {
	if nullish(v) {
		return NullValue(), nil
	}
	if v.Kind() != Object {
		return Value{}, Errorf(Invalid, "$objectToArray requires a document input, found: %s", v.TypeName())
	}
	out := make([]Value, v.Len())
	for i, f := range v.Fields() {
		out[i] = ObjectValue([]Field{{"k", StringValue(f.Key)}, {"v", f.Value}})
	}
	return ArrayValue(out), nil
}

func arrayToObject(v Value) (Value, error) {
	if nullish(v) {
		return NullValue(), nil
	}
	if v.Kind() != Array {
		return Value{}, Errorf(Invalid, "$arrayToObject requires an array input, found: %s", v.TypeName())
	}
	var fields []Field
	index := map[string]int{}
	pairForm := v.Len() > 0 && v.Index(0).Kind() == Array
	for _, e := range v.Array() {
		k, val, err := keyValuePair(e, pairForm)
		if err != nil {
			return Value{}, err
		}
		if i, ok := index[k]; ok {
			fields[i].Value = val
			continue
		}
		index[k] = len(fields)
		fields = append(fields, Field{k, val})
	}
	return ObjectValue(fields), nil
}

// keyValuePair reads one element of $arrayToObject's input: [k, v] or
// {"k": k, "v": v}, all elements in the same form.
func keyValuePair(e Value, pairForm bool) (string, Value, error) {
	var k, val Value
	switch {
	case pairForm && e.Kind() == Array:
		if e.Len() != 2 {
			return "", Value{}, Errorf(Invalid, "$arrayToObject requires an array of size 2 arrays, found array of size: %d", e.Len())
		}
		k, val = e.Index(0), e.Index(1)
	case !pairForm && e.Kind() == Object:
		if e.Len() != 2 || e.Get("k").IsMissing() || e.Get("v").IsMissing() {
			return "", Value{}, Errorf(Invalid, "$arrayToObject requires an object with keys 'k' and 'v', found: %s", e)
		}
		k, val = e.Get("k"), e.Get("v")
	default:
		return "", Value{}, Errorf(Invalid, "$arrayToObject requires an array of key-value pairs, all of the same form ([k, v] arrays or {k, v} objects), found: %s", e)
	}
	if k.Kind() != String {
		return "", Value{}, Errorf(Invalid, "$arrayToObject requires an array of key-value pairs, where the key must be of type string; found key type: %s", k.TypeName())
	}
	return k.Str(), val, nil
}

// fieldNode is $getField, $setField and $unsetField.
type fieldNode struct {
	field, input, value expression
	set, unset          bool
}

func compileGetField(c *exprCompiler, name string, arg Value) (expression, error) {
	if arg.Kind() != Object {
		f, err := c.expr(arg)
		if err != nil {
			return nil, err
		}
		cur, _ := c.lookup("CURRENT")
		return &fieldNode{field: f, input: &varNode{slot: cur}}, nil
	}
	m, err := c.named(name, arg, []string{"field"}, []string{"input"})
	if err != nil {
		return nil, err
	}
	n := &fieldNode{field: m["field"], input: m["input"]}
	if n.input == nil {
		cur, _ := c.lookup("CURRENT")
		n.input = &varNode{slot: cur}
	}
	return n, nil
}

func compileSetField(unset bool) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		required := []string{"field", "input", "value"}
		if unset {
			required = required[:2]
		}
		m, err := c.named(name, arg, required, nil)
		if err != nil {
			return nil, err
		}
		return &fieldNode{field: m["field"], input: m["input"], value: m["value"], set: !unset, unset: unset}, nil
	}
}

func (n *fieldNode) eval(c *evalCtx) (Value, error) {
	op := "$getField"
	switch {
	case n.set:
		op = "$setField"
	case n.unset:
		op = "$unsetField"
	}
	f, err := n.field.eval(c)
	if err != nil {
		return Value{}, err
	}
	if f.Kind() != String {
		return Value{}, Errorf(Invalid, "%s requires 'field' to evaluate to type String, but got %s", op, f.TypeName())
	}
	in, err := n.input.eval(c)
	if err != nil {
		return Value{}, err
	}
	if nullish(in) {
		if op == "$getField" {
			return in, nil
		}
		return NullValue(), nil
	}
	if in.Kind() != Object {
		if op == "$getField" {
			return MissingValue, nil
		}
		return Value{}, Errorf(Invalid, "%s requires 'input' to evaluate to type Object, but got %s", op, in.TypeName())
	}
	return n.apply(c, in, f.Str())
}

func (n *fieldNode) apply(c *evalCtx, in Value, field string) (Value, error) {
	switch {
	case n.unset:
		return in.Without(field), nil
	case n.set:
		v, err := n.value.eval(c)
		if err != nil {
			return Value{}, err
		}
		if v.IsMissing() {
			return in.Without(field), nil
		}
		return in.With(field, v), nil
	}
	return in.Get(field), nil
}

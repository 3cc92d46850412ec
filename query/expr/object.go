package expr

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

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

func mergeObjects(args []value.Value) (value.Value, error) {
	out := value.ObjectValue(nil)
	for i, v := range args {
		var err error
		if out, err = mergeInto("$mergeObjects", out, v, i); err != nil {
			return value.Value{}, err
		}
	}
	return out, nil
}

// mergeInto sets each field of v in out, ignoring null and missing v.
func mergeInto(op string, out, v value.Value, i int) (value.Value, error) {
	if Nullish(v) {
		return out, nil
	}
	if v.Kind() != value.Object {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires object inputs, but input %d is of type %s", op, i+1, v.TypeName())
	}
	if out.Len() == 0 {
		return v, nil
	}
	for _, f := range v.Fields() {
		out = out.With(f.Key, f.Value)
	}
	return out, nil
}

func objectToArray(v value.Value) (value.Value, error) {
	if Nullish(v) {
		return value.NullValue(), nil
	}
	if v.Kind() != value.Object {
		return value.Value{}, errs.Errorf(errs.Invalid, "$objectToArray requires a document input, found: %s", v.TypeName())
	}
	out := make([]value.Value, v.Len())
	for i, f := range v.Fields() {
		out[i] = value.ObjectValue([]value.Field{{Key: "k", Value: value.StringValue(f.Key)}, {Key: "v", Value: f.Value}})
	}
	return value.ArrayValue(out), nil
}

func arrayToObject(v value.Value) (value.Value, error) {
	if Nullish(v) {
		return value.NullValue(), nil
	}
	if v.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$arrayToObject requires an array input, found: %s", v.TypeName())
	}
	var fields []value.Field
	index := map[string]int{}
	pairForm := v.Len() > 0 && v.Index(0).Kind() == value.Array
	for _, e := range v.Array() {
		k, val, err := keyValuePair(e, pairForm)
		if err != nil {
			return value.Value{}, err
		}
		if i, ok := index[k]; ok {
			fields[i].Value = val
			continue
		}
		index[k] = len(fields)
		fields = append(fields, value.Field{Key: k, Value: val})
	}
	return value.ObjectValue(fields), nil
}

// keyValuePair reads one element of $arrayToObject's input: [k, v] or
// {"k": k, "v": v}, all elements in the same form.
func keyValuePair(e value.Value, pairForm bool) (string, value.Value, error) {
	var k, val value.Value
	switch {
	case pairForm && e.Kind() == value.Array:
		if e.Len() != 2 {
			return "", value.Value{}, errs.Errorf(errs.Invalid, "$arrayToObject requires an array of size 2 arrays, found array of size: %d", e.Len())
		}
		k, val = e.Index(0), e.Index(1)
	case !pairForm && e.Kind() == value.Object:
		if e.Len() != 2 || e.Get("k").IsMissing() || e.Get("v").IsMissing() {
			return "", value.Value{}, errs.Errorf(errs.Invalid, "$arrayToObject requires an object with keys 'k' and 'v', found: %s", e)
		}
		k, val = e.Get("k"), e.Get("v")
	default:
		return "", value.Value{}, errs.Errorf(errs.Invalid, "$arrayToObject requires an array of key-value pairs, all of the same form ([k, v] arrays or {k, v} objects), found: %s", e)
	}
	if k.Kind() != value.String {
		return "", value.Value{}, errs.Errorf(errs.Invalid, "$arrayToObject requires an array of key-value pairs, where the key must be of type string; found key type: %s", k.TypeName())
	}
	return k.Str(), val, nil
}

// fieldNode is $getField, $setField and $unsetField.
type fieldNode struct {
	field, input, value Node
	set, unset          bool
}

func compileGetField(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object {
		f, err := c.Compile(arg)
		if err != nil {
			return nil, err
		}
		cur, _ := c.lookup("CURRENT")
		return &fieldNode{field: f, input: &Var{Slot: cur}}, nil
	}
	m, err := c.Named(name, arg, []string{"field"}, []string{"input"})
	if err != nil {
		return nil, err
	}
	n := &fieldNode{field: m["field"], input: m["input"]}
	if n.input == nil {
		cur, _ := c.lookup("CURRENT")
		n.input = &Var{Slot: cur}
	}
	return n, nil
}

func compileSetField(unset bool) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		required := []string{"field", "input", "value"}
		if unset {
			required = required[:2]
		}
		m, err := c.Named(name, arg, required, nil)
		if err != nil {
			return nil, err
		}
		return &fieldNode{field: m["field"], input: m["input"], value: m["value"], set: !unset, unset: unset}, nil
	}
}

func (n *fieldNode) Eval(c *EvalCtx) (value.Value, error) {
	op := "$getField"
	switch {
	case n.set:
		op = "$setField"
	case n.unset:
		op = "$unsetField"
	}
	f, err := n.field.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if f.Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires 'field' to evaluate to type String, but got %s", op, f.TypeName())
	}
	in, err := n.input.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if Nullish(in) {
		if op == "$getField" {
			return in, nil
		}
		return value.NullValue(), nil
	}
	if in.Kind() != value.Object {
		if op == "$getField" {
			return value.MissingValue, nil
		}
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires 'input' to evaluate to type Object, but got %s", op, in.TypeName())
	}
	return n.apply(c, in, f.Str())
}

func (n *fieldNode) apply(c *EvalCtx, in value.Value, field string) (value.Value, error) {
	switch {
	case n.unset:
		return in.Without(field), nil
	case n.set:
		v, err := n.value.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if v.IsMissing() {
			return in.Without(field), nil
		}
		return in.With(field, v), nil
	}
	return in.Get(field), nil
}

package expr

import (
	"context"
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Array operators. Set operators live in set.go.

// MaxRangeLength is the most elements $range may produce.
const MaxRangeLength = 1 << 20

func registerExprArrayOps() {
	registerOps(map[string]opCompiler{
		"$size":            unaryOp(sizeValue),
		"$arrayElemAt":     fixedOp(2, arrayElemAt),
		"$first":           unaryOp(firstLast("$first", true)),
		"$last":            unaryOp(firstLast("$last", false)),
		"$in":              fixedOp(2, inValue),
		"$slice":           rangeOp(2, 3, sliceValue),
		"$concatArrays":    rangeOp(0, -1, concatArrays),
		"$reverseArray":    unaryOp(reverseArray),
		"$range":           compileRange,
		"$indexOfArray":    rangeOp(2, 4, indexOfArray),
		"$isArray":         unaryOp(func(v value.Value) (value.Value, error) { return value.BoolValue(v.Kind() == value.Array), nil }),
		"$allElementsTrue": unaryOp(elementsTrue("$allElementsTrue", true)),
		"$anyElementTrue":  unaryOp(elementsTrue("$anyElementTrue", false)),
		"$sortArray":       compileSortArray,
		"$zip":             compileZip,
	})
}

func sizeValue(v value.Value) (value.Value, error) {
	if v.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "the argument to $size must be an array, but was of type: %s", v.TypeName())
	}
	return value.LongValue(int64(v.Len())), nil
}

// indexArg reads an integral index argument.
func indexArg(op, what string, v value.Value) (int64, error) {
	if !v.IsNumber() {
		return 0, errs.Errorf(errs.Invalid, "%s's %s must be a numeric value, but is %s", op, what, v.TypeName())
	}
	i, ok := ExactInt(v)
	if !ok {
		return 0, errs.Errorf(errs.Invalid, "%s's %s must be representable as an integer: %s", op, what, v)
	}
	return i, nil
}

// elementAt returns arr[i], counting from the end when i < 0, or missing.
func elementAt(arr []value.Value, i int64) value.Value {
	if i < 0 {
		i += int64(len(arr))
	}
	if i < 0 || i >= int64(len(arr)) {
		return value.MissingValue
	}
	return arr[i]
}

func arrayElemAt(a []value.Value) (value.Value, error) {
	if Nullish(a[0]) || Nullish(a[1]) {
		return value.NullValue(), nil
	}
	if a[0].Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$arrayElemAt's first argument must be an array, but is %s", a[0].TypeName())
	}
	i, err := indexArg("$arrayElemAt", "second argument", a[1])
	if err != nil {
		return value.Value{}, err
	}
	return elementAt(a[0].Array(), i), nil
}

func firstLast(op string, first bool) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if Nullish(v) {
			return value.NullValue(), nil
		}
		if v.Kind() != value.Array {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s's argument must be an array, but is %s", op, v.TypeName())
		}
		if first {
			return elementAt(v.Array(), 0), nil
		}
		return elementAt(v.Array(), -1), nil
	}
}

func inValue(a []value.Value) (value.Value, error) {
	if a[1].Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$in requires an array as a second argument, found: %s", a[1].TypeName())
	}
	for _, e := range a[1].Array() {
		if exprCompare(a[0], e) == 0 {
			return value.BoolValue(true), nil
		}
	}
	return value.BoolValue(false), nil
}

func sliceValue(a []value.Value) (value.Value, error) {
	for _, v := range a {
		if Nullish(v) {
			return value.NullValue(), nil
		}
	}
	if a[0].Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "first argument to $slice must be an array, but is of type: %s", a[0].TypeName())
	}
	arr := a[0].Array()
	n := int64(len(arr))
	x, err := indexArg("$slice", "second argument", a[1])
	if err != nil {
		return value.Value{}, err
	}
	if len(a) == 2 { // [arr, n]: first n, or last -n
		if x >= 0 {
			return value.ArrayValue(arr[:min(x, n)]), nil
		}
		return value.ArrayValue(arr[max(n+x, 0):]), nil
	}
	count, err := indexArg("$slice", "third argument", a[2])
	if err != nil {
		return value.Value{}, err
	}
	if count <= 0 {
		return value.Value{}, errs.Errorf(errs.Invalid, "third argument to $slice must be positive: %d", count)
	}
	start := x
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	return value.ArrayValue(arr[start:min(start+min(count, n), n)]), nil
}

func concatArrays(args []value.Value) (value.Value, error) {
	out := []value.Value{}
	for _, v := range args {
		if Nullish(v) {
			return value.NullValue(), nil
		}
		if v.Kind() != value.Array {
			return value.Value{}, typeError("$concatArrays", "arrays", v)
		}
		out = append(out, v.Array()...)
	}
	return value.ArrayValue(out), nil
}

func reverseArray(v value.Value) (value.Value, error) {
	if Nullish(v) {
		return value.NullValue(), nil
	}
	if v.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "the argument to $reverseArray must be an array, but was of type: %s", v.TypeName())
	}
	out := slices.Clone(v.Array())
	slices.Reverse(out)
	return value.ArrayValue(out), nil
}

// rangeNode is $range. It charges the array it builds against
// MaxEvalWork before allocating it, and counts its steps while filling it.
type rangeNode struct{ args []Node }

func compileRange(c *Compiler, name string, arg value.Value) (Node, error) {
	args, err := c.args(name, arg, 2, 3)
	if err != nil {
		return nil, err
	}
	return &rangeNode{args}, nil
}

func (n *rangeNode) Eval(c *EvalCtx) (value.Value, error) {
	a, err := evalArgs(c, n.args)
	if err != nil {
		return value.Value{}, err
	}
	start, step, count, err := rangeBounds(a)
	if err != nil {
		return value.Value{}, err
	}
	if err := c.charge(64 * int64(count)); err != nil {
		return value.Value{}, err
	}
	out := make([]value.Value, count)
	for i := range out {
		if i&(CheckEvery-1) == CheckEvery-1 {
			if err := c.tick(CheckEvery); err != nil {
				return value.Value{}, err
			}
		}
		out[i] = value.LongValue(start + int64(i)*step)
	}
	return value.ArrayValue(out), nil
}

// rangeBounds checks $range's arguments and returns its first element,
// its step and its length.
func rangeBounds(a []value.Value) (start, step int64, count uint64, err error) {
	what := []string{"a starting value", "an ending value", "a step value"}
	var nums [3]int64
	nums[2] = 1
	for i, v := range a {
		n, ok := ExactInt(v)
		if !ok {
			return 0, 0, 0, errs.Errorf(errs.Invalid, "$range requires %s that can be represented as an integer, found value: %s", what[i], v)
		}
		nums[i] = n
	}
	start, end, step := nums[0], nums[1], nums[2]
	if step == 0 {
		return 0, 0, 0, errs.Errorf(errs.Invalid, "$range requires a non-zero step value")
	}
	if (step > 0 && end > start) || (step < 0 && end < start) {
		dist, stride := uint64(end)-uint64(start), uint64(step)
		if step < 0 {
			dist, stride = uint64(start)-uint64(end), -stride
		}
		count = (dist-1)/stride + 1
	}
	if count > MaxRangeLength {
		return 0, 0, 0, errs.Errorf(errs.Limit, "$range would produce %d elements, over the limit of %d", count, MaxRangeLength).
			WithHint("use a larger step or a smaller range")
	}
	return start, step, count, nil
}

func indexOfArray(a []value.Value) (value.Value, error) {
	if Nullish(a[0]) {
		return value.NullValue(), nil
	}
	if a[0].Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$indexOfArray requires an array as a first argument, found: %s", a[0].TypeName())
	}
	arr := a[0].Array()
	start, end, err := indexBounds("$indexOfArray", a, len(arr))
	if err != nil {
		return value.Value{}, err
	}
	for i := start; i < end; i++ {
		if exprCompare(arr[i], a[1]) == 0 {
			return value.LongValue(int64(i)), nil
		}
	}
	return value.LongValue(-1), nil
}

func elementsTrue(op string, all bool) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if v.Kind() != value.Array {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s's argument must be an array, but is %s", op, v.TypeName())
		}
		for _, e := range v.Array() {
			if Truthy(e) != all {
				return value.BoolValue(!all), nil
			}
		}
		return value.BoolValue(all), nil
	}
}

// sortArrayNode is $sortArray.
type sortArrayNode struct {
	input Node
	spec  *value.SortSpec // nil: sort by whole values
	desc  bool
}

func compileSortArray(c *Compiler, name string, arg value.Value) (Node, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$sortArray requires an object as an argument, found: %s", arg.TypeName())
	}
	for _, f := range arg.Fields() {
		if f.Key != "input" && f.Key != "sortBy" {
			return nil, errs.Errorf(errs.Invalid, "$sortArray found an unknown argument: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"input", "sortBy"}))
		}
	}
	in, err := c.Compile(arg.Get("input"))
	if err != nil {
		return nil, err
	}
	n := &sortArrayNode{input: in}
	switch by := arg.Get("sortBy"); by.Kind() {
	case value.Missing:
		return nil, errs.Errorf(errs.Invalid, "$sortArray requires 'sortBy' to be specified")
	case value.Object:
		if n.spec, err = value.CompileSortSpec("$sortArray", by); err != nil {
			return nil, err
		}
	default:
		desc, err := value.SortDirection("sortBy", by)
		if err != nil {
			return nil, err
		}
		n.desc = desc
	}
	return n, nil
}

func (n *sortArrayNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.input.Eval(c)
	if err != nil || Nullish(in) {
		return value.NullValue(), err
	}
	if in.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "the 'input' argument to $sortArray must be an array, but was of type: %s", in.TypeName())
	}
	out := slices.Clone(in.Array())
	if err := c.tickRead(in); err != nil {
		return value.Value{}, err
	}
	if n.spec != nil {
		err = sortDocs(c.Ctx, out, n.spec)
	} else {
		err = SortStable(c.Ctx, out, func(a, b value.Value) int {
			if n.desc {
				return value.Compare(b, a)
			}
			return value.Compare(a, b)
		})
	}
	if err != nil {
		return value.Value{}, err
	}
	return value.ArrayValue(out), nil
}

// sortDocs sorts values stably by spec, computing each key once.
func sortDocs(ctx context.Context, docs []value.Value, spec *value.SortSpec) error {
	type keyed struct {
		doc  value.Value
		keys []value.SortVal
	}
	ks := make([]keyed, len(docs))
	for i, d := range docs {
		ks[i] = keyed{d, spec.Keys(d)}
	}
	if err := SortStable(ctx, ks, func(a, b keyed) int { return spec.CompareKeys(a.keys, b.keys) }); err != nil {
		return err
	}
	for i := range ks {
		docs[i] = ks[i].doc
	}
	return nil
}

// zipNode is $zip.
type zipNode struct {
	inputs, defaults Node
	longest          bool
}

func compileZip(c *Compiler, name string, arg value.Value) (Node, error) {
	m, err := c.Named(name, arg, []string{"inputs"}, []string{"useLongestLength", "defaults"})
	if err != nil {
		return nil, err
	}
	n := &zipNode{inputs: m["inputs"], defaults: m["defaults"]}
	if l := arg.Get("useLongestLength"); !l.IsMissing() {
		if l.Kind() != value.Bool {
			return nil, errs.Errorf(errs.Invalid, "useLongestLength must be a bool, found %s", l.TypeName())
		}
		n.longest = l.Bool()
	}
	if n.defaults != nil && !n.longest {
		return nil, errs.Errorf(errs.Invalid, "$zip: cannot specify defaults unless useLongestLength is true")
	}
	return n, nil
}

func (n *zipNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.inputs.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if in.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$zip: 'inputs' must be an array of expressions, found %s", in.TypeName())
	}
	arrays := in.Array()
	length := -1
	for _, a := range arrays {
		if Nullish(a) {
			return value.NullValue(), nil
		}
		if a.Kind() != value.Array {
			return value.Value{}, errs.Errorf(errs.Invalid, "$zip found a non-array expression in input: %s", a)
		}
		if length < 0 || (n.longest && a.Len() > length) || (!n.longest && a.Len() < length) {
			length = a.Len()
		}
	}
	defs, err := n.zipDefaults(c, len(arrays))
	if err != nil {
		return value.Value{}, err
	}
	out := make([]value.Value, max(length, 0))
	for i := range out {
		if err := c.tick(int64(len(arrays))); err != nil {
			return value.Value{}, err
		}
		row := make([]value.Value, len(arrays))
		for j, a := range arrays {
			row[j] = defs[j]
			if i < a.Len() {
				row[j] = a.Index(i)
			}
		}
		out[i] = value.ArrayValue(row)
	}
	return value.ArrayValue(out), nil
}

func (n *zipNode) zipDefaults(c *EvalCtx, count int) ([]value.Value, error) {
	defs := make([]value.Value, count)
	for i := range defs {
		defs[i] = value.NullValue()
	}
	if n.defaults == nil {
		return defs, nil
	}
	d, err := n.defaults.Eval(c)
	if err != nil {
		return nil, err
	}
	if d.Kind() != value.Array || d.Len() != count {
		return nil, errs.Errorf(errs.Invalid, "$zip requires defaults to be an array of the same length as inputs")
	}
	return d.Array(), nil
}

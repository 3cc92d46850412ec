package expr

import (
	"math"
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// $percentile and $median, as accumulators ($group, $bucket) and as
// expressions. MongoDB computes the accumulators' "approximate" method with
// a t-digest, which keeps every value exactly while the data is small, and
// the expressions with its "discrete" method. omgdb keeps every numeric
// value and computes the discrete percentile exactly in both cases: the
// value at rank ceil(p*n) of the n values in order (the smallest for
// p = 0). "continuous" interpolates linearly between the two closest
// ranks. Non-numeric values, NaN among them, are ignored; with none left
// the result is null. Results are doubles.

// percentileMethods are the accepted values of "method".
var percentileMethods = []string{"approximate", "discrete", "continuous"}

func registerPercentileOps() {
	registerOps(map[string]opCompiler{
		"$percentile": func(c *Compiler, name string, arg value.Value) (Node, error) {
			return compilePercentileExpr(c, name, arg, false)
		},
		"$median": func(c *Compiler, name string, arg value.Value) (Node, error) {
			return compilePercentileExpr(c, name, arg, true)
		},
	})
}

// percentileArgs are the compiled arguments of a $percentile or $median.
type percentileArgs struct {
	p      Node   // nil for $median
	input  Node   // the input expression, unless inputs is set
	inputs []Node // an input given as an array of expressions
	method string
}

func compilePercentileArgs(c *Compiler, name string, arg value.Value, median bool) (*percentileArgs, error) {
	required := []string{"input", "method"}
	if !median {
		required = append([]string{"p"}, required...)
	}
	example := `{"$median":{"input":"$score","method":"approximate"}}`
	if !median {
		example = `{"$percentile":{"p":[0.5,0.9],"input":"$score","method":"approximate"}}`
	}
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "%s expects an object with %v, found %s", name, required, arg.TypeName()).WithHint("write %s", example)
	}
	for _, f := range arg.Fields() {
		if !slices.Contains(required, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "%s found an unknown argument: %s%s", name, f.Key, errs.DidYouMean(f.Key, required))
		}
	}
	for _, r := range required {
		if arg.Get(r).IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "%s: missing required argument '%s'", name, r).WithHint("write %s", example)
		}
	}
	a := &percentileArgs{}
	m := arg.Get("method")
	if m.Kind() != value.String || !slices.Contains(percentileMethods, m.Str()) {
		return nil, errs.Errorf(errs.Invalid, "%s: 'method' must be one of %v, found %s", name, percentileMethods, m)
	}
	a.method = m.Str()
	var err error
	if in := arg.Get("input"); in.Kind() == value.Array {
		for _, e := range in.Array() {
			n, err := c.Compile(e)
			if err != nil {
				return nil, err
			}
			a.inputs = append(a.inputs, n)
		}
	} else if a.input, err = c.Compile(in); err != nil {
		return nil, err
	}
	if !median {
		if a.p, err = c.Compile(arg.Get("p")); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// ps evaluates and checks "p": a non-empty array of numbers in [0, 1].
func (a *percentileArgs) ps(c *EvalCtx, name string) ([]float64, error) {
	if a.p == nil {
		return []float64{0.5}, nil
	}
	v, err := a.p.Eval(c)
	if err != nil {
		return nil, err
	}
	if v.Kind() != value.Array || v.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "%s: 'p' must be a non-empty array of numbers between 0.0 and 1.0, found %s", name, v)
	}
	ps := make([]float64, v.Len())
	for i, e := range v.Array() {
		f := e.Float()
		if !e.IsNumber() || math.IsNaN(f) || f < 0 || f > 1 {
			return nil, errs.Errorf(errs.Invalid, "%s: 'p' must hold numbers between 0.0 and 1.0, found %s", name, e)
		}
		ps[i] = f
	}
	return ps, nil
}

// percentileState collects the numeric values of a group.
type percentileState struct {
	ps     []float64
	median bool // a scalar result, not an array
	method string
	vals   []float64
}

func (st *percentileState) Add(v, _ value.Value) (int64, error) {
	if v.IsNumber() && !math.IsNaN(v.Float()) {
		st.vals = append(st.vals, v.Float())
		return 8, nil
	}
	return 0, nil
}

func (st *percentileState) Result() value.Value {
	slices.Sort(st.vals)
	out := make([]value.Value, len(st.ps))
	for i, p := range st.ps {
		out[i] = percentileOf(st.vals, p, st.method)
	}
	if st.median {
		return out[0]
	}
	return value.ArrayValue(out)
}

// percentileOf returns the p-th percentile of sorted, or null when it is
// empty.
func percentileOf(sorted []float64, p float64, method string) value.Value {
	n := len(sorted)
	if n == 0 {
		return value.NullValue()
	}
	if method == "continuous" {
		r := p * float64(n-1)
		lo, hi := int(math.Floor(r)), int(math.Ceil(r))
		if lo == hi {
			return value.DoubleValue(sorted[lo])
		}
		return value.DoubleValue(sorted[lo] + (r-float64(lo))*(sorted[hi]-sorted[lo]))
	}
	rank := int(math.Ceil(p*float64(n))) - 1
	return value.DoubleValue(sorted[min(max(rank, 0), n-1)])
}

// percentileNode is the expression form: the values of its input (the
// elements of an array, or each expression of an input list; an array
// inside a list is not numeric), right away.
type percentileNode struct {
	name string
	args *percentileArgs
}

func compilePercentileExpr(c *Compiler, name string, arg value.Value, median bool) (Node, error) {
	a, err := compilePercentileArgs(c, name, arg, median)
	if err != nil {
		return nil, err
	}
	return &percentileNode{name: name, args: a}, nil
}

func (n *percentileNode) Eval(c *EvalCtx) (value.Value, error) {
	ps, err := n.args.ps(c, n.name)
	if err != nil {
		return value.Value{}, err
	}
	st := &percentileState{ps: ps, median: n.args.p == nil, method: n.args.method}
	if n.args.inputs == nil {
		v, err := n.args.input.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if v.Kind() == value.Array {
			for _, e := range v.Array() {
				st.Add(e, value.MissingValue)
			}
		} else {
			st.Add(v, value.MissingValue)
		}
		return st.Result(), nil
	}
	for _, in := range n.args.inputs {
		v, err := in.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		st.Add(v, value.MissingValue)
	}
	return st.Result(), nil
}

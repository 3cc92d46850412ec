package query

import (
	"slices"
	"strings"
)

// $group, $sortByCount and $bucket. Groups are keyed by AppendKey of the
// _id, so equal values of different types (5 and 5.0) share a group, and
// a missing _id groups with null. Groups come out in the order their
// first document arrived ($sortByCount and $bucket then sort them).

type groupStage struct {
	stage string
	id    expression // the _id of a $group
	key   func(r *runState, doc Value) (Value, error)
	accs  []*accumulatorSpec
	order func(groups []Value) // sorts the output; may be nil
}

// group is the state of one group.
type group struct {
	id     Value
	states []accState
}

func compileGroupStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "a group's fields must be specified in an object, found %s", spec.TypeName())
	}
	if spec.Get("_id").IsMissing() {
		return nil, Errorf(Invalid, "a group specification must include an _id").
			WithHint(`group by a field with {"_id":"$field"}, or everything at once with {"_id":null}`)
	}
	id, err := c.expr(spec.Get("_id"))
	if err != nil {
		return nil, err
	}
	s := &groupStage{stage: "$group", id: id, key: exprKey(id)}
	if s.accs, err = compileAccumulators(c, spec.Without("_id")); err != nil {
		return nil, err
	}
	return s, nil
}

// exprKey groups by the value of an expression.
func exprKey(id expression) func(*runState, Value) (Value, error) {
	return func(r *runState, doc Value) (Value, error) { return r.eval(id, doc) }
}

func compileAccumulators(c *exprCompiler, spec Value) ([]*accumulatorSpec, error) {
	var accs []*accumulatorSpec
	for _, f := range spec.Fields() {
		a, err := compileAccumulator(c, f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		accs = append(accs, a)
	}
	return accs, nil
}

func (s *groupStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]Value, error) { return s.groups(r, in) })
}

// groups reads the whole input and returns the output documents.
func (s *groupStage) groups(r *runState, in Source) ([]Value, error) {
	b := r.budget(s.stage)
	index := map[string]*group{}
	var order []*group
	var key []byte
	err := r.drain(in, func(doc Value) error {
		id, err := s.key(r, doc)
		if err != nil {
			return err
		}
		if id.IsMissing() {
			id = NullValue()
		}
		key = AppendKey(key[:0], id)
		g := index[string(key)]
		if g == nil {
			if g, err = s.newGroup(r, id); err != nil {
				return err
			}
			index[string(key)] = g
			order = append(order, g)
			if err := b.grow(64 + int64(len(key)) + valueSize(id) + 48*int64(len(s.accs))); err != nil {
				return err
			}
		}
		return s.accumulate(r, b, g, doc)
	})
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(order))
	for i, g := range order {
		out[i] = s.result(g)
	}
	if s.order != nil {
		s.order(out)
	}
	return out, nil
}

func (s *groupStage) newGroup(r *runState, id Value) (*group, error) {
	g := &group{id: id, states: make([]accState, len(s.accs))}
	for i, a := range s.accs {
		st, err := a.newState(r.ec, id)
		if err != nil {
			return nil, err
		}
		g.states[i] = st
	}
	return g, nil
}

func (s *groupStage) accumulate(r *runState, b *budget, g *group, doc Value) error {
	for i, a := range s.accs {
		var v Value
		if a.input != nil {
			var err error
			if v, err = r.eval(a.input, doc); err != nil {
				return err
			}
		}
		n, err := g.states[i].add(v, doc)
		if err != nil {
			return err
		}
		if err := b.grow(n); err != nil {
			return err
		}
	}
	return nil
}

func (s *groupStage) result(g *group) Value {
	fields := make([]Field, 0, len(s.accs)+1)
	fields = append(fields, Field{"_id", g.id})
	for i, a := range s.accs {
		fields = append(fields, Field{a.field, g.states[i].result()})
	}
	return ObjectValue(fields)
}

// compileSortByCountStage is $sortByCount: group by the expression,
// count, and sort by the count, highest first.
func compileSortByCountStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if !isExpression(spec) {
		return nil, Errorf(Invalid, "the argument to $sortByCount must be an expression: a $-prefixed field path or an operator object, found %s", spec).
			WithHint(`write {"$sortByCount":"$field"}`)
	}
	id, err := c.expr(spec)
	if err != nil {
		return nil, err
	}
	count := &accumulatorSpec{field: "count", op: "$sum", input: literal{LongValue(1)}, make: accumulatorMakers["$sum"]}
	return &groupStage{stage: "$sortByCount", key: exprKey(id), accs: []*accumulatorSpec{count}, order: func(docs []Value) {
		slices.SortStableFunc(docs, func(a, b Value) int { return Compare(b.Get("count"), a.Get("count")) })
	}}, nil
}

// compileBucketStage is $bucket: group by the boundary range the
// groupBy value falls in, then sort by bucket.
func compileBucketStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "$bucket expects an object, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		if !contains([]string{"groupBy", "boundaries", "default", "output"}, f.Key) {
			return nil, Errorf(Invalid, "unrecognized option to $bucket: %s%s", f.Key, DidYouMean(f.Key, []string{"groupBy", "boundaries", "default", "output"}))
		}
	}
	groupBy, err := compileGroupBy(c, "$bucket", spec)
	if err != nil {
		return nil, err
	}
	bounds, err := bucketBoundaries(spec.Get("boundaries"))
	if err != nil {
		return nil, err
	}
	def := spec.Get("default")
	if !def.IsMissing() && TypeRank(def) == TypeRank(bounds[0]) && Compare(def, bounds[0]) >= 0 && Compare(def, bounds[len(bounds)-1]) < 0 {
		return nil, Errorf(Invalid, "the $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary")
	}
	accs, err := compileBucketOutput(c, spec.Get("output"))
	if err != nil {
		return nil, err
	}
	key := func(r *runState, doc Value) (Value, error) {
		v, err := r.eval(groupBy, doc)
		if err != nil {
			return Value{}, err
		}
		return bucketOf(v, bounds, def)
	}
	return &groupStage{stage: "$bucket", key: key, accs: accs, order: sortByID}, nil
}

// isExpression reports whether v is a $-prefixed field path or an
// operator object, as $sortByCount and groupBy require.
func isExpression(v Value) bool {
	switch v.Kind() {
	case String:
		return len(v.Str()) > 1 && strings.HasPrefix(v.Str(), "$")
	case Object:
		return v.Len() == 1 && strings.HasPrefix(v.Fields()[0].Key, "$")
	}
	return false
}

func sortByID(docs []Value) {
	slices.SortStableFunc(docs, func(a, b Value) int { return Compare(a.Get("_id"), b.Get("_id")) })
}

func compileGroupBy(c *exprCompiler, stage string, spec Value) (expression, error) {
	g := spec.Get("groupBy")
	if g.IsMissing() {
		return nil, Errorf(Invalid, "%s requires 'groupBy' to be specified", stage)
	}
	if !isExpression(g) {
		return nil, Errorf(Invalid, "the %s 'groupBy' field must be defined as a $-prefixed path or an expression object, found %s", stage, g)
	}
	return c.expr(g)
}

func bucketBoundaries(b Value) ([]Value, error) {
	if b.Kind() != Array || b.Len() < 2 {
		return nil, Errorf(Invalid, "the $bucket 'boundaries' field must be an array with at least two values, found %s", b)
	}
	bounds := b.Array()
	for i, v := range bounds {
		if i == 0 {
			continue
		}
		if TypeRank(v) != TypeRank(bounds[0]) {
			return nil, Errorf(Invalid, "all values in the $bucket 'boundaries' field must be of the same type; found %s and %s", bounds[0].TypeName(), v.TypeName())
		}
		if Compare(bounds[i-1], v) >= 0 {
			return nil, Errorf(Invalid, "the $bucket 'boundaries' field must be in ascending order; %s is not less than %s", bounds[i-1], v)
		}
	}
	return bounds, nil
}

func compileBucketOutput(c *exprCompiler, out Value) ([]*accumulatorSpec, error) {
	if out.IsMissing() {
		return []*accumulatorSpec{{field: "count", op: "$sum", input: literal{LongValue(1)}, make: accumulatorMakers["$sum"]}}, nil
	}
	if out.Kind() != Object {
		return nil, Errorf(Invalid, "the 'output' field must be an object of accumulators, found %s", out.TypeName())
	}
	return compileAccumulators(c, out)
}

// bucketOf finds the lower boundary of v's bucket, or the default.
func bucketOf(v Value, bounds []Value, def Value) (Value, error) {
	if v.IsMissing() {
		v = NullValue()
	}
	i, found := slices.BinarySearchFunc(bounds, v, Compare)
	if !found {
		i--
	}
	if i >= 0 && i < len(bounds)-1 && TypeRank(v) == TypeRank(bounds[0]) {
		return bounds[i], nil
	}
	if def.IsMissing() {
		return Value{}, Errorf(Invalid, "$bucket could not find a matching branch for an input, and no default was specified; the groupBy value was %s", v).
			WithHint(`add "default" to $bucket for values outside the boundaries`)
	}
	return def, nil
}

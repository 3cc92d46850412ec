package agg

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $group, $sortByCount and $bucket. Groups are keyed by AppendKey of the
// _id, so equal values of different types (5 and 5.0) share a group, and
// a missing _id groups with null. Groups come out in the order their
// first document arrived ($sortByCount and $bucket then sort them).

type groupStage struct {
	stage string
	id    expr.Node // the _id of a $group
	key   func(r *runState, doc value.Value) (value.Value, error)
	accs  []*expr.Accumulator
	order func(groups []value.Value) // sorts the output; may be nil
	coll  *collation.Collation       // groups strings equal under it; nil: binary
}

// group is the state of one group.
type group struct {
	id     value.Value
	states []expr.AccumulatorState
}

func compileGroupStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "a group's fields must be specified in an object, found %s", spec.TypeName())
	}
	if spec.Get("_id").IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "a group specification must include an _id").
			WithHint(`group by a field with {"_id":"$field"}, or everything at once with {"_id":null}`)
	}
	id, err := c.Compile(spec.Get("_id"))
	if err != nil {
		return nil, err
	}
	s := &groupStage{stage: "$group", id: id, key: exprKey(id), coll: c.Collation}
	if s.accs, err = compileAccumulators(c, spec.Without("_id")); err != nil {
		return nil, err
	}
	return s, nil
}

// exprKey groups by the value of an expression.
func exprKey(id expr.Node) func(*runState, value.Value) (value.Value, error) {
	return func(r *runState, doc value.Value) (value.Value, error) { return r.eval(id, doc) }
}

func compileAccumulators(c *expr.Compiler, spec value.Value) ([]*expr.Accumulator, error) {
	var accs []*expr.Accumulator
	for _, f := range spec.Fields() {
		a, err := expr.CompileAccumulator(c, f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		accs = append(accs, a)
	}
	return accs, nil
}

func (s *groupStage) run(r *runState, in Source) Source {
	var out []value.Value
	var rest *spilledGroups
	started := false
	src := &funcSource{next: func() (value.Value, bool, error) {
		if !started {
			started = true
			var err error
			if out, rest, err = s.groups(r, in); err != nil {
				return value.Value{}, false, err
			}
		}
		if len(out) > 0 {
			d := out[0]
			out = out[1:]
			return d, true, nil
		}
		if rest != nil {
			return rest.next()
		}
		return value.Value{}, false, nil
	}}
	src.onClose = func() error {
		if rest != nil {
			rest.sp.it.Close()
		}
		return in.Close()
	}
	return src
}

// groups reads the whole input and returns the output documents. Past
// MaxMemory, with a SpillDir, every later document goes to temporary
// files instead, keyed by group; rest then builds the output in the order
// of the group keys, each group from its state in memory (if it began
// before the spill) and its spilled documents, which arrived after. In
// memory, groups come out in the order they began. With an output order
// ($sortByCount, $bucket), everything is ordered in memory.
func (s *groupStage) groups(r *runState, in Source) (out []value.Value, rest *spilledGroups, err error) {
	b := r.budget(s.stage)
	spills := r.opts.SpillDir != ""
	if spills {
		b.max = math.MaxInt64 // checked here, to spill instead of failing
	}
	index := map[string]*group{}
	var order []*group
	var key []byte
	var sp *spiller
	err = r.drain(in, func(doc value.Value) error {
		id, err := s.key(r, doc)
		if err != nil {
			return err
		}
		if id.IsMissing() {
			id = value.NullValue()
		}
		key = value.AppendKey(key[:0], s.coll.Map(id))
		if sp != nil {
			return sp.add(key, doc)
		}
		g := index[string(key)]
		if g == nil {
			if g, err = s.newGroup(r, id); err != nil {
				return err
			}
			index[string(key)] = g
			order = append(order, g)
			if err := b.grow(64 + int64(len(key)) + value.Size(id) + 48*int64(len(s.accs))); err != nil {
				return err
			}
		}
		if err := s.accumulate(r, b, g, doc); err != nil {
			return err
		}
		if spills && b.used > r.opts.MaxMemory {
			sp = r.spiller()
		}
		return nil
	})
	if err != nil {
		if sp != nil {
			sp.s.Close()
		}
		return nil, nil, err
	}
	if sp == nil {
		out = make([]value.Value, len(order))
		for i, g := range order {
			out[i] = s.result(g)
		}
	} else {
		it, err := sp.s.Sort()
		if err != nil {
			return nil, nil, spillError(err)
		}
		rest = &spilledGroups{s: s, r: r, sp: &spilled{it: it}}
		for k, g := range index {
			rest.mem = append(rest.mem, keyedGroup{[]byte(k), g})
		}
		slices.SortFunc(rest.mem, func(a, b keyedGroup) int { return bytes.Compare(a.key, b.key) })
	}
	if s.order != nil {
		if rest != nil {
			if out, err = rest.drainInto(out); err != nil {
				return nil, nil, err
			}
			rest = nil
		}
		s.order(out)
	}
	return out, rest, nil
}

// spilledGroups merges, by group key, the groups held in memory when the
// spill began and the spilled documents sorted by group key (stably, so
// each group's documents come in the order they arrived): every
// accumulator sees what it would have seen in memory.
type spilledGroups struct {
	s       *groupStage
	r       *runState
	mem     []keyedGroup // sorted by key
	sp      *spilled
	pending bool // sp holds a document not yet accumulated
}

type keyedGroup struct {
	key []byte
	g   *group
}

func (g *spilledGroups) next() (value.Value, bool, error) {
	if !g.pending {
		if g.pending = g.sp.next(); g.sp.err != nil {
			return value.Value{}, false, g.sp.err
		}
	}
	var key []byte
	var grp *group
	switch {
	case len(g.mem) > 0 && (!g.pending || bytes.Compare(g.mem[0].key, g.sp.key()) <= 0):
		key, grp = g.mem[0].key, g.mem[0].g
		g.mem[0] = keyedGroup{}
		g.mem = g.mem[1:]
	case g.pending:
		key = bytes.Clone(g.sp.key())
		id, err := g.s.key(g.r, g.sp.doc)
		if err != nil {
			return value.Value{}, false, err
		}
		if id.IsMissing() {
			id = value.NullValue()
		}
		if grp, err = g.s.newGroup(g.r, id); err != nil {
			return value.Value{}, false, err
		}
	default:
		return value.Value{}, false, nil
	}
	b := g.r.budget(g.s.stage)
	for g.pending && bytes.Equal(g.sp.key(), key) {
		if err := g.s.accumulate(g.r, b, grp, g.sp.doc); err != nil {
			return value.Value{}, false, err
		}
		if g.pending = g.sp.next(); g.sp.err != nil {
			return value.Value{}, false, g.sp.err
		}
	}
	return g.s.result(grp), true, nil
}

// drainInto appends every remaining group to out.
func (g *spilledGroups) drainInto(out []value.Value) ([]value.Value, error) {
	defer g.sp.it.Close()
	for {
		d, ok, err := g.next()
		if err != nil || !ok {
			return out, err
		}
		out = append(out, d)
	}
}

func (s *groupStage) newGroup(r *runState, id value.Value) (*group, error) {
	g := &group{id: id, states: make([]expr.AccumulatorState, len(s.accs))}
	for i, a := range s.accs {
		st, err := a.NewState(r.ec, id)
		if err != nil {
			return nil, err
		}
		g.states[i] = st
	}
	return g, nil
}

func (s *groupStage) accumulate(r *runState, b *budget, g *group, doc value.Value) error {
	for i, a := range s.accs {
		var v value.Value
		if a.Input != nil {
			var err error
			if v, err = r.eval(a.Input, doc); err != nil {
				return err
			}
		}
		n, err := g.states[i].Add(v, doc)
		if err != nil {
			return err
		}
		if err := b.grow(n); err != nil {
			return err
		}
	}
	return nil
}

func (s *groupStage) result(g *group) value.Value {
	fields := make([]value.Field, 0, len(s.accs)+1)
	fields = append(fields, value.Field{Key: "_id", Value: g.id})
	for i, a := range s.accs {
		fields = append(fields, value.Field{Key: a.Field, Value: g.states[i].Result()})
	}
	return value.ObjectValue(fields)
}

// compileSortByCountStage is $sortByCount: group by the expression,
// count, and sort by the count, highest first.
func compileSortByCountStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if !isExpression(spec) {
		return nil, errs.Errorf(errs.Invalid, "the argument to $sortByCount must be an expression: a $-prefixed field path or an operator object, found %s", spec).
			WithHint(`write {"$sortByCount":"$field"}`)
	}
	id, err := c.Compile(spec)
	if err != nil {
		return nil, err
	}
	count := expr.CountAccumulator("count")
	return &groupStage{stage: "$sortByCount", key: exprKey(id), coll: c.Collation, accs: []*expr.Accumulator{count}, order: func(docs []value.Value) {
		slices.SortStableFunc(docs, func(a, b value.Value) int { return value.Compare(b.Get("count"), a.Get("count")) })
	}}, nil
}

// compileBucketStage is $bucket: group by the boundary range the
// groupBy value falls in, then sort by bucket.
func compileBucketStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$bucket expects an object, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		if !slices.Contains([]string{"groupBy", "boundaries", "default", "output"}, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "unrecognized option to $bucket: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"groupBy", "boundaries", "default", "output"}))
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
	if !def.IsMissing() && value.TypeRank(def) == value.TypeRank(bounds[0]) && value.Compare(def, bounds[0]) >= 0 && value.Compare(def, bounds[len(bounds)-1]) < 0 {
		return nil, errs.Errorf(errs.Invalid, "the $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary")
	}
	accs, err := compileBucketOutput(c, spec.Get("output"))
	if err != nil {
		return nil, err
	}
	key := func(r *runState, doc value.Value) (value.Value, error) {
		v, err := r.eval(groupBy, doc)
		if err != nil {
			return value.Value{}, err
		}
		return bucketOf(v, bounds, def)
	}
	return &groupStage{stage: "$bucket", key: key, accs: accs, order: sortByID}, nil
}

// isExpression reports whether v is a $-prefixed field path or an
// operator object, as $sortByCount and groupBy require.
func isExpression(v value.Value) bool {
	switch v.Kind() {
	case value.String:
		return len(v.Str()) > 1 && strings.HasPrefix(v.Str(), "$")
	case value.Object:
		return v.Len() == 1 && strings.HasPrefix(v.Fields()[0].Key, "$")
	}
	return false
}

func sortByID(docs []value.Value) {
	slices.SortStableFunc(docs, func(a, b value.Value) int { return value.Compare(a.Get("_id"), b.Get("_id")) })
}

func compileGroupBy(c *expr.Compiler, stage string, spec value.Value) (expr.Node, error) {
	g := spec.Get("groupBy")
	if g.IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "%s requires 'groupBy' to be specified", stage)
	}
	if !isExpression(g) {
		return nil, errs.Errorf(errs.Invalid, "the %s 'groupBy' field must be defined as a $-prefixed path or an expression object, found %s", stage, g)
	}
	return c.Compile(g)
}

func bucketBoundaries(b value.Value) ([]value.Value, error) {
	if b.Kind() != value.Array || b.Len() < 2 {
		return nil, errs.Errorf(errs.Invalid, "the $bucket 'boundaries' field must be an array with at least two values, found %s", b)
	}
	bounds := b.Array()
	for i, v := range bounds {
		if i == 0 {
			continue
		}
		if value.TypeRank(v) != value.TypeRank(bounds[0]) {
			return nil, errs.Errorf(errs.Invalid, "all values in the $bucket 'boundaries' field must be of the same type; found %s and %s", bounds[0].TypeName(), v.TypeName())
		}
		if value.Compare(bounds[i-1], v) >= 0 {
			return nil, errs.Errorf(errs.Invalid, "the $bucket 'boundaries' field must be in ascending order; %s is not less than %s", bounds[i-1], v)
		}
	}
	return bounds, nil
}

func compileBucketOutput(c *expr.Compiler, out value.Value) ([]*expr.Accumulator, error) {
	if out.IsMissing() {
		return []*expr.Accumulator{expr.CountAccumulator("count")}, nil
	}
	if out.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the 'output' field must be an object of accumulators, found %s", out.TypeName())
	}
	return compileAccumulators(c, out)
}

// bucketOf finds the lower boundary of v's bucket, or the default.
func bucketOf(v value.Value, bounds []value.Value, def value.Value) (value.Value, error) {
	if v.IsMissing() {
		v = value.NullValue()
	}
	i, found := slices.BinarySearchFunc(bounds, v, value.Compare)
	if !found {
		i--
	}
	if i >= 0 && i < len(bounds)-1 && value.TypeRank(v) == value.TypeRank(bounds[0]) {
		return bounds[i], nil
	}
	if def.IsMissing() {
		return value.Value{}, errs.Errorf(errs.Invalid, "$bucket could not find a matching branch for an input, and no default was specified; the groupBy value was %s", v).
			WithHint(`add "default" to $bucket for values outside the boundaries`)
	}
	return def, nil
}

package agg

import (
	"context"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// MergeUpdate is the whenMatched pipeline of a $merge, with its let
// variables: an update pipeline (the stages an update takes) applied to
// the target's document, whose variables are evaluated against the
// result document of the aggregation. Without let (or with let null),
// the one variable is $$new, the whole result; with let, only the
// variables it names, as in MongoDB.
type MergeUpdate struct {
	stages   []stage
	slots    int
	letSlots []int
	letVals  []expr.Node // nil: the whole result ($$new)
	opts     PipelineOptions
}

// CompileMergeUpdate compiles a $merge whenMatched pipeline and its let.
func CompileMergeUpdate(spec, let value.Value) (*MergeUpdate, error) {
	if err := checkUpdateStages(spec); err != nil {
		return nil, err
	}
	c := expr.NewCompiler()
	m := &MergeUpdate{opts: PipelineOptions{MaxMemory: DefaultMaxMemory}}
	var names []string
	switch let.Kind() {
	case value.Missing, value.Null:
		names, m.letVals = []string{"new"}, []expr.Node{nil}
	case value.Object:
		for _, f := range let.Fields() {
			if err := expr.CheckVarName(f.Key); err != nil {
				return nil, errs.Errorf(errs.Invalid, "$merge: let: %v", err)
			}
			n, err := c.Compile(f.Value)
			if err != nil {
				return nil, err
			}
			names, m.letVals = append(names, f.Key), append(m.letVals, n)
		}
	default:
		return nil, errs.Errorf(errs.Invalid, "$merge: 'let' must be an object of variables, found %s", let.TypeName()).
			WithHint(`write "let":{"total":"$amount"} and use "$$total" in the whenMatched pipeline`)
	}
	for _, name := range names {
		slot, _ := c.Bind(name)
		m.letSlots = append(m.letSlots, slot)
	}
	stages, err := compileStages(c, spec, pipeTop)
	if err != nil {
		return nil, err
	}
	m.stages, m.slots = stages, c.Slots
	return m, nil
}

// Apply runs the pipeline on target, the matched document (or the seed of
// an insert), with the variables evaluated against result, and $$NOW now,
// stopping when ctx is done (nil: never).
func (m *MergeUpdate) Apply(ctx context.Context, target, result value.Value, now time.Time) (value.Value, error) {
	r := newUpdateRun(ctx, &m.opts, m.slots, now)
	vals := make([]value.Value, len(m.letVals))
	for i, n := range m.letVals {
		if n == nil {
			vals[i] = result
			continue
		}
		v, err := r.eval(n, result)
		if err != nil {
			return value.Value{}, err
		}
		vals[i] = v
	}
	for i, slot := range m.letSlots {
		r.ec.Vars[slot] = vals[i]
	}
	return r.one(m.stages, target)
}

package agg

import (
	"context"
	"slices"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// updateStages are the stages a pipeline-style update may hold, as in
// MongoDB.
var updateStages = []string{"$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"}

// CompileUpdatePipeline compiles a pipeline-style update ([{"$set":…},
// {"$unset":…}]) into a function that applies it to one document with
// $$NOW set to now ($$ROOT is the document), stopping when ctx is done
// (a nil ctx never is). query.NewPipelineUpdate makes it an update;
// changes.CompileUpdate does both.
func CompileUpdatePipeline(spec value.Value) (func(ctx context.Context, doc value.Value, now time.Time) (value.Value, error), error) {
	if err := checkUpdateStages(spec); err != nil {
		return nil, err
	}
	p, err := CompilePipeline(spec, nil)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, doc value.Value, now time.Time) (value.Value, error) {
		return newUpdateRun(ctx, &p.opts, p.slots, now).one(p.stages, doc)
	}, nil
}

// newUpdateRun returns the run state of an update pipeline over one
// document, with $$NOW now, that stops when ctx is done (nil: never).
func newUpdateRun(ctx context.Context, opts *PipelineOptions, slots int, now time.Time) *runState {
	r := &runState{ctx: ctx, opts: opts}
	if ctx == nil {
		r.ctx = context.Background()
	}
	r.ec = &expr.EvalCtx{Vars: make([]value.Value, slots), Now: value.DateValue(now.UnixMilli()), Ctx: ctx}
	return r
}

// one runs update stages over doc and returns the document they make.
func (r *runState) one(stages []stage, doc value.Value) (value.Value, error) {
	src := r.runStages(stages, SliceSource([]value.Value{doc}))
	defer src.Close()
	if !src.Next() {
		if err := src.Err(); err != nil {
			return value.Value{}, err
		}
		return value.Value{}, errs.Errorf(errs.Invalid, "the update pipeline returned no document")
	}
	return src.Doc(), src.Err()
}

// checkUpdateStages checks that spec is a non-empty array of the stages
// an update pipeline may hold.
func checkUpdateStages(spec value.Value) error {
	if spec.Kind() != value.Array || spec.Len() == 0 {
		return errs.Errorf(errs.Invalid, "a pipeline-style update must be a non-empty array of stages, found %s", spec).
			WithHint(`write [{"$set":{"total":{"$add":["$a","$b"]}}}]`)
	}
	for _, st := range spec.Array() {
		if st.Kind() != value.Object || st.Len() != 1 {
			return errs.Errorf(errs.Invalid, "each stage of an update pipeline must be an object with one stage, found %s", st)
		}
		if name := st.Fields()[0].Key; !slices.Contains(updateStages, name) {
			return errs.Errorf(errs.Invalid, "%s is not allowed to be used within an update", name).
				WithHint("an update pipeline may hold only %v", updateStages)
		}
	}
	return nil
}

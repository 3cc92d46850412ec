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
// $$NOW set to now ($$ROOT is the document). query.NewPipelineUpdate
// makes it an update; changes.CompileUpdate does both.
func CompileUpdatePipeline(spec value.Value) (func(doc value.Value, now time.Time) (value.Value, error), error) {
	if spec.Kind() != value.Array || spec.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "a pipeline-style update must be a non-empty array of stages, found %s", spec).
			WithHint(`write [{"$set":{"total":{"$add":["$a","$b"]}}}]`)
	}
	for _, st := range spec.Array() {
		if st.Kind() != value.Object || st.Len() != 1 {
			return nil, errs.Errorf(errs.Invalid, "each stage of an update pipeline must be an object with one stage, found %s", st)
		}
		if name := st.Fields()[0].Key; !slices.Contains(updateStages, name) {
			return nil, errs.Errorf(errs.Invalid, "%s is not allowed to be used within an update", name).
				WithHint("an update pipeline may hold only %v", updateStages)
		}
	}
	p, err := CompilePipeline(spec, nil)
	if err != nil {
		return nil, err
	}
	return func(doc value.Value, now time.Time) (value.Value, error) {
		r := &runState{ctx: context.Background(), opts: &p.opts}
		r.ec = &expr.EvalCtx{Vars: make([]value.Value, p.slots), Now: value.DateValue(now.UnixMilli())}
		src := r.runStages(p.stages, SliceSource([]value.Value{doc}))
		defer src.Close()
		if !src.Next() {
			if err := src.Err(); err != nil {
				return value.Value{}, err
			}
			return value.Value{}, errs.Errorf(errs.Invalid, "the update pipeline returned no document")
		}
		return src.Doc(), src.Err()
	}, nil
}

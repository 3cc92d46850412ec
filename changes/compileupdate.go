package changes

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// CompileUpdate compiles an update as every write path takes it: update
// operators ({"$set":…}), a replacement document, or a pipeline-style
// update ([{"$set":…},{"$unset":…}], with $$NOW and $$ROOT), which the
// query package cannot compile alone (query.NewPipelineUpdate). A
// pipeline takes no array filters, as in MongoDB.
func CompileUpdate(spec value.Value, opts *query.UpdateOptions) (*query.Update, error) {
	if spec.Kind() != value.Array {
		return query.CompileUpdate(spec, opts)
	}
	if opts != nil && len(opts.ArrayFilters) > 0 {
		return nil, errs.Errorf(errs.Invalid, "arrayFilters may not be specified for pipeline-style updates").
			WithHint("address array elements with $map or $filter inside the pipeline")
	}
	run, err := agg.CompileUpdatePipeline(spec)
	if err != nil {
		return nil, err
	}
	return query.NewPipelineUpdate(spec, run), nil
}

package agg

import (
	"slices"
	"strings"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// pipeWhere says where a pipeline sits, for the stages that are only
// allowed in some places.
type pipeWhere uint8

const (
	pipeTop    pipeWhere = iota // the pipeline given to CompilePipeline
	pipeFacet                   // a $facet sub-pipeline
	pipeLookup                  // a $lookup or $unionWith sub-pipeline
)

// stageCompiler compiles the argument of one stage.
type stageCompiler func(c *expr.Compiler, spec value.Value, where pipeWhere) (stage, error)

// stageCompilers maps each stage to its compiler; built on first use
// (not at package initialisation, which runs on every command), in a
// function to break the cycle through sub-pipelines.
func stageCompilers() map[string]stageCompiler {
	stageCompilersOnce.Do(buildStageCompilers)
	return stageCompilerTable
}

var (
	stageCompilersOnce sync.Once
	stageCompilerTable map[string]stageCompiler
)

func buildStageCompilers() {
	stageCompilerTable = map[string]stageCompiler{
		"$match":           compileMatchStage,
		"$project":         compileProjectStage,
		"$addFields":       compileAddFieldsStage,
		"$set":             compileAddFieldsStage,
		"$unset":           compileUnsetStage,
		"$group":           compileGroupStage,
		"$sort":            compileSortStage,
		"$limit":           compileLimitStage,
		"$skip":            compileSkipStage,
		"$unwind":          compileUnwindStage,
		"$count":           compileCountStage,
		"$lookup":          compileLookupStage,
		"$facet":           compileFacetStage,
		"$replaceRoot":     compileReplaceRootStage,
		"$replaceWith":     compileReplaceWithStage,
		"$sortByCount":     compileSortByCountStage,
		"$bucket":          compileBucketStage,
		"$bucketAuto":      compileBucketAutoStage,
		"$sample":          compileSampleStage,
		"$unionWith":       compileUnionWithStage,
		"$redact":          compileRedactStage,
		"$documents":       compileDocumentsStage,
		"$graphLookup":     compileGraphLookupStage,
		"$setWindowFields": compileWindowStage,
		"$fill":            compileFillStage,
		"$densify":         compileDensifyStage,
		"$geoNear":         compileGeoNearStage,
	}
}

// refusedStages are stages omgdb knows and does not run, with the reason.
var refusedStages = map[string]string{
	"$search":         "not supported in pipelines: use the `search` command for full-text search",
	"$searchMeta":     "not supported in pipelines: use the `search` command for full-text search",
	"$vectorSearch":   "not supported in pipelines: use the `vsearch` command",
	"$collStats":      "not supported: use `omgdb inspect`",
	"$indexStats":     "not supported: use `omgdb indexes`",
	"$planCacheStats": "not supported",
	"$currentOp":      "not supported: omgdb has no server",
	"$listSessions":   "not supported: omgdb has no server",
	"$changeStream":   "not supported: omgdb has no change streams; use `omgdb log`",
}

func stageNames() []string {
	names := make([]string, 0, len(stageCompilers())+len(refusedStages)+2)
	for k := range stageCompilers() {
		names = append(names, k)
	}
	for k := range refusedStages {
		names = append(names, k)
	}
	names = append(names, "$out", "$merge")
	slices.Sort(names)
	return names
}

// compileStages compiles a pipeline array.
func compileStages(c *expr.Compiler, spec value.Value, where pipeWhere) ([]stage, error) {
	if spec.Kind() != value.Array {
		return nil, errs.Errorf(errs.Invalid, "a pipeline must be an array of stage objects, found %s", spec.TypeName()).
			WithHint(`write [{"$match":{…}}, {"$group":{…}}]`)
	}
	if n := spec.Len(); n > MaxPipelineStages {
		return nil, errs.Errorf(errs.Limit, "the pipeline has %d stages, over the limit of %d stages", n, MaxPipelineStages).
			WithHint("combine stages (one $match, one $project), or run the work as several aggregations")
	}
	stages := make([]stage, 0, spec.Len())
	for i, s := range spec.Array() {
		st, err := compileStage(c, s, where, i == 0)
		if err != nil {
			return nil, err
		}
		if err := checkText(st, where, i == 0); err != nil {
			return nil, err
		}
		stages = append(stages, st)
	}
	coalesce(stages)
	return stages, nil
}

func compileStage(c *expr.Compiler, spec value.Value, where pipeWhere, first bool) (stage, error) {
	if spec.Kind() != value.Object || spec.Len() != 1 {
		return nil, errs.Errorf(errs.Invalid, "each pipeline stage must be an object with exactly one field, the stage name; found %s", spec).
			WithHint(`write each stage as its own object: [{"$match":{…}}, {"$limit":5}]`)
	}
	name, arg := spec.Fields()[0].Key, spec.Fields()[0].Value
	switch name {
	case "$out", "$merge":
		return nil, errs.Errorf(errs.Invalid, "`%s` is not supported: aggregation never writes", name).
			WithHint("plan its writes with `omgdb plan-aggregate <store> <coll> <pipeline>`, then `omgdb apply`")
	case "$documents", "$geoNear":
		if !first {
			return nil, errs.Errorf(errs.Invalid, "%s is only valid as the first stage in a pipeline", name)
		}
	case "$facet":
		if where == pipeFacet {
			return nil, errs.Errorf(errs.Invalid, "$facet is not allowed to be used within a $facet stage")
		}
	}
	if why, ok := refusedStages[name]; ok {
		return nil, errs.Errorf(errs.Invalid, "`%s` is %s", name, why).
			WithHint("see `omgdb docs aggregation` for the supported stages")
	}
	compile, ok := stageCompilers()[name]
	if !ok {
		if !strings.HasPrefix(name, "$") {
			return nil, errs.Errorf(errs.Invalid, "a pipeline stage name must start with '$', found %q%s", name, errs.DidYouMean("$"+name, stageNames()))
		}
		return nil, expr.UnknownOperator(name, "stage", stageNames())
	}
	return compile(c, arg, where)
}

// coalesce lets a $sort followed by $limit keep only the documents the
// limit will pass, as MongoDB does.
func coalesce(stages []stage) {
	for i := 0; i+1 < len(stages); i++ {
		s, ok := stages[i].(*sortStage)
		if !ok {
			continue
		}
		if l, ok := stages[i+1].(*limitStage); ok {
			s.limit = l.n
		}
	}
}

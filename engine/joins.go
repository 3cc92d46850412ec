package engine

import (
	"slices"

	"github.com/omgdb/omgdb/query/value"
)

// Joins returns the other collections a pipeline reads, sorted and
// without repeats: the from of each $lookup and $graphLookup and the
// collection of each $unionWith, at any depth (the sub-pipelines of
// $lookup, $unionWith and $facet). A policy that hides a collection, or
// its redacted fields, checks them here, before anything runs; pipeline is
// one CheckPipeline accepted.
func Joins(pipeline value.Value) []string {
	var names []string
	joins(pipeline, &names)
	slices.Sort(names)
	return slices.Compact(names)
}

func joins(pipeline value.Value, names *[]string) {
	if pipeline.Kind() != value.Array {
		return
	}
	for _, stage := range pipeline.Array() {
		if !stage.IsObject() {
			continue
		}
		for _, f := range stage.Fields() {
			joinsOf(f.Key, f.Value, names)
		}
	}
}

func joinsOf(op string, spec value.Value, names *[]string) {
	switch op {
	case "$lookup", "$graphLookup":
		addName(spec.Get("from"), names)
		joins(spec.Get("pipeline"), names)
	case "$unionWith":
		if spec.Kind() == value.String {
			addName(spec, names)
			return
		}
		addName(spec.Get("coll"), names)
		joins(spec.Get("pipeline"), names)
	case "$facet":
		for _, f := range spec.Fields() {
			joins(f.Value, names)
		}
	}
}

func addName(v value.Value, names *[]string) {
	if v.Kind() == value.String {
		*names = append(*names, v.Str())
	}
}

package agg

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $facet: several sub-pipelines over the same input, one output document
// with an array per facet.

type facetStage struct {
	names     []string
	pipelines [][]stage
}

func compileFacetStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object || spec.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "the $facet specification must be a non-empty object of named pipelines, found %s", spec).
			WithHint(`write {"$facet":{"byAge":[{"$group":…}], "total":[{"$count":"n"}]}}`)
	}
	s := &facetStage{}
	for _, f := range spec.Fields() {
		if err := checkOutputField("$facet", "a facet name", f.Key); err != nil {
			return nil, err
		}
		stages, err := compileStages(c, f.Value, pipeFacet)
		if err != nil {
			return nil, err
		}
		s.names = append(s.names, f.Key)
		s.pipelines = append(s.pipelines, stages)
	}
	return s, nil
}

func (s *facetStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) {
		out, err := s.facets(r, in)
		return []value.Value{out}, err
	})
}

func (s *facetStage) facets(r *runState, in Source) (value.Value, error) {
	b := r.budget("$facet")
	var docs []value.Value
	err := r.drain(in, func(d value.Value) error {
		docs = append(docs, d)
		return b.grow(value.Size(d))
	})
	if err != nil {
		return value.Value{}, err
	}
	fields := make([]value.Field, len(s.names))
	for i, name := range s.names {
		res, err := collect(r, r.runStages(s.pipelines[i], SliceSource(docs)), b)
		if err != nil {
			return value.Value{}, err
		}
		fields[i] = value.Field{Key: name, Value: value.ArrayValue(res)}
	}
	return value.ObjectValue(fields), nil
}

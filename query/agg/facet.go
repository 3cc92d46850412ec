package query

// $facet: several sub-pipelines over the same input, one output document
// with an array per facet.

type facetStage struct {
	names     []string
	pipelines [][]stage
}

func compileFacetStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object || spec.Len() == 0 {
		return nil, Errorf(Invalid, "the $facet specification must be a non-empty object of named pipelines, found %s", spec).
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
	return bufferedSource(in, func() ([]Value, error) {
		out, err := s.facets(r, in)
		return []Value{out}, err
	})
}

func (s *facetStage) facets(r *runState, in Source) (Value, error) {
	b := r.budget("$facet")
	var docs []Value
	err := r.drain(in, func(d Value) error {
		docs = append(docs, d)
		return b.grow(valueSize(d))
	})
	if err != nil {
		return Value{}, err
	}
	fields := make([]Field, len(s.names))
	for i, name := range s.names {
		res, err := collect(r, r.runStages(s.pipelines[i], SliceSource(docs)), b)
		if err != nil {
			return Value{}, err
		}
		fields[i] = Field{name, ArrayValue(res)}
	}
	return ObjectValue(fields), nil
}

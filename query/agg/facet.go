package agg

import (
	"github.com/omgdb/omgdb/internal/spill"
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

// facets reads the input, holding it in memory up to MaxMemory; past it,
// with a SpillDir, on a spill.Tape that each facet reads again.
func (s *facetStage) facets(r *runState, in Source) (value.Value, error) {
	b := r.budget("$facet")
	var docs []value.Value
	var tape *spill.Tape
	var js []byte
	add := func(d value.Value) error {
		js = value.AppendJSON(js[:0], d)
		if err := tape.Append(js); err != nil {
			return spillError(err)
		}
		return nil
	}
	err := r.drain(in, func(d value.Value) error {
		if tape != nil {
			return add(d)
		}
		if err := b.grow(value.Size(d)); err == nil || r.opts.SpillDir == "" {
			docs = append(docs, d)
			return err
		}
		tape = spill.NewTape(r.opts.SpillDir, r.opts.MaxMemory)
		for _, d := range docs {
			if err := add(d); err != nil {
				return err
			}
		}
		docs, b.used = nil, 0
		return add(d)
	})
	if tape != nil {
		defer tape.Close()
	}
	if err != nil {
		return value.Value{}, err
	}
	input := func() (Source, error) {
		if tape == nil {
			return SliceSource(docs), nil
		}
		tr, err := tape.Reader()
		if err != nil {
			return nil, spillError(err)
		}
		return &funcSource{next: func() (value.Value, bool, error) {
			if !tr.Next() {
				if tr.Err() != nil {
					return value.Value{}, false, spillError(tr.Err())
				}
				return value.Value{}, false, nil
			}
			d, err := value.Parse(tr.Value())
			if err != nil {
				return value.Value{}, false, spillError(err)
			}
			return d, true, nil
		}}, nil
	}
	fields := make([]value.Field, len(s.names))
	for i, name := range s.names {
		src, err := input()
		if err != nil {
			return value.Value{}, err
		}
		res, err := collect(r, r.runStages(s.pipelines[i], src), b)
		if err != nil {
			return value.Value{}, err
		}
		fields[i] = value.Field{Key: name, Value: value.ArrayValue(res)}
	}
	return value.ObjectValue(fields), nil
}

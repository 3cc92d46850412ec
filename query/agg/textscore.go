package agg

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// A pipeline whose first stage is a $match with $text gets each document
// with its textScore in the hidden field query.TextScoreField, from the
// store; {"$meta":"textScore"} reads it in expressions and $sort, and
// $project, $addFields, $set and $unset keep it, as MongoDB keeps a
// document's metadata through them. The store removes it from the
// pipeline's output.

// keepTextScore carries in's textScore over to out, a projection of in.
func keepTextScore(in, out value.Value) value.Value {
	score := in.Get(query.TextScoreField)
	if score.IsMissing() || out.Kind() != value.Object || out.Has(query.TextScoreField) {
		return out
	}
	return out.With(query.TextScoreField, score)
}

// checkText refuses a $match with $text anywhere but first in the
// top-level pipeline.
func checkText(st stage, where pipeWhere, first bool) error {
	m, ok := st.(*matchStage)
	if !ok {
		return nil
	}
	fm, ok := m.m.(filterMatcher)
	if !ok || fm.f.Text() == nil {
		return nil
	}
	if where != pipeTop {
		return errs.Errorf(errs.Invalid, "$text is not allowed in a $lookup, $facet or $unionWith sub-pipeline").
			WithHint("run the $text search as the first $match of the top-level pipeline")
	}
	if !first {
		return errs.Errorf(errs.Invalid, "$match with $text is only allowed as the first pipeline stage").
			WithHint("move the $match with $text to the start of the pipeline")
	}
	return nil
}

// checkTextSorts refuses a $sort by {"$meta":"textScore"} where the
// documents have no score (MongoDB's error): in a top-level pipeline that
// does not start with a $match with $text, in its $facet sub-pipelines
// then, and in every $lookup and $unionWith sub-pipeline (their
// documents come from another read, never with a score).
func checkTextSorts(stages []stage) error {
	scored := len(stages) > 0 && checkText(stages[0], pipeTop, false) != nil // starts with a $match with $text
	return checkSorts(stages, scored)
}

func checkSorts(stages []stage, scored bool) error {
	for _, st := range stages {
		var err error
		switch s := st.(type) {
		case *sortStage:
			for i := 0; i < s.spec.Len() && !scored; i++ {
				if path, _ := s.spec.Key(i); path == query.TextScoreField {
					return query.ErrNoTextScore()
				}
			}
		case *facetStage:
			for _, sub := range s.pipelines {
				if err = checkSorts(sub, scored); err != nil {
					break
				}
			}
		case *lookupStage:
			err = checkSorts(s.pipeline, false)
		case *unionWithStage:
			err = checkSorts(s.pipeline, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

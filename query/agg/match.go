package agg

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $match. The filter language is CompileFilter's; $expr clauses (at the
// top level or inside $and/$or/$nor) are compiled here instead, with the
// pipeline's compiler, so that they can read its variables ($lookup's
// "let") and its fixed $$NOW.

// matcher decides whether a document passes.
type matcher interface {
	match(r *runState, doc value.Value) (bool, error)
}

type filterMatcher struct{ f *query.Filter }

func (m filterMatcher) match(r *runState, doc value.Value) (bool, error) {
	return m.f.MatchErrContext(r.ctx, doc)
}

type exprMatcher struct{ e expr.Node }

func (m exprMatcher) match(r *runState, doc value.Value) (bool, error) {
	v, err := r.eval(m.e, doc)
	return expr.Truthy(v), err
}

// logicMatcher is $and (all), $or (any) or $nor (none) of its parts.
type logicMatcher struct {
	op    string
	parts []matcher
}

func (m logicMatcher) match(r *runState, doc value.Value) (bool, error) {
	for _, p := range m.parts {
		ok, err := p.match(r, doc)
		if err != nil {
			return false, err
		}
		switch {
		case m.op == "$and" && !ok:
			return false, nil
		case m.op != "$and" && ok:
			return m.op == "$or", nil
		}
	}
	return m.op != "$or", nil
}

// compileMatch compiles a $match filter.
func compileMatch(c *expr.Compiler, spec value.Value) (matcher, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the $match filter must be an object, found %s", spec.TypeName())
	}
	if !hasExpr(spec) {
		f, err := query.CompileFilterCollation(spec, c.Collation)
		if err != nil {
			return nil, err
		}
		return filterMatcher{f}, nil
	}
	all := logicMatcher{op: "$and"}
	var rest []value.Field
	for _, f := range spec.Fields() {
		m, err := compileMatchClause(c, f)
		if err != nil {
			return nil, err
		}
		if m == nil {
			rest = append(rest, f)
			continue
		}
		all.parts = append(all.parts, m)
	}
	if len(rest) > 0 {
		f, err := query.CompileFilterCollation(value.ObjectValue(rest), c.Collation)
		if err != nil {
			return nil, err
		}
		all.parts = append([]matcher{filterMatcher{f}}, all.parts...)
	}
	return all, nil
}

// compileMatchClause compiles a clause that holds $expr; it returns nil
// for the clauses CompileFilter should take.
func compileMatchClause(c *expr.Compiler, f value.Field) (matcher, error) {
	switch f.Key {
	case "$expr":
		e, err := c.Compile(f.Value)
		if err != nil {
			return nil, err
		}
		return exprMatcher{e}, nil
	case "$and", "$or", "$nor":
		if !hasExpr(value.ObjectValue([]value.Field{f})) {
			return nil, nil
		}
		m := logicMatcher{op: f.Key}
		for _, sub := range f.Value.Array() {
			p, err := compileMatch(c, sub)
			if err != nil {
				return nil, err
			}
			m.parts = append(m.parts, p)
		}
		return m, nil
	}
	return nil, nil
}

// hasExpr reports whether a filter has $expr where compileMatch handles
// it.
func hasExpr(spec value.Value) bool {
	for _, f := range spec.Fields() {
		switch f.Key {
		case "$expr":
			return true
		case "$and", "$or", "$nor":
			if f.Value.Kind() != value.Array || f.Value.Len() == 0 {
				continue
			}
			for _, sub := range f.Value.Array() {
				if hasExpr(sub) {
					return true
				}
			}
		}
	}
	return false
}

type matchStage struct{ m matcher }

func compileMatchStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	for _, f := range spec.Fields() {
		if f.Value.Kind() == value.Object && (f.Value.Has("$near") || f.Value.Has("$nearSphere") || f.Value.Has("$geoNear")) {
			return nil, errs.Errorf(errs.Invalid, "$near and $nearSphere are not allowed in $match (field `%s`)", f.Key).
				WithHint(`start the pipeline with {"$geoNear":{"near":…,"distanceField":"dist","key":"%s"}} instead`, f.Key)
		}
	}
	m, err := compileMatch(c, spec)
	if err != nil {
		return nil, err
	}
	return &matchStage{m}, nil
}

func (s *matchStage) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		for {
			doc, ok, err := r.pull(in)
			if err != nil || !ok {
				return value.Value{}, false, err
			}
			pass, err := s.m.match(r, doc)
			if err != nil {
				return value.Value{}, false, err
			}
			if pass {
				return doc, true, nil
			}
		}
	}}
}

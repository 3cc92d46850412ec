package shell

import (
	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Collation in the shell, as in mongosh: cursor.collation(doc), and a
// {collation: …} options argument of findOne, countDocuments, count,
// distinct and aggregate. Without one, the collection's default
// collation (define) applies.

// collationDoc checks a collation document given to the shell and
// returns it (missing stays missing).
func (s *Shell) collationDoc(doc value.Value) value.Value {
	if !doc.IsMissing() {
		_, err := collation.Parse(doc)
		s.must(err)
	}
	return doc
}

// optCollation returns the collation of an options argument
// ({collation: {…}}) at position i, or missing.
func (s *Shell) optCollation(call goja.FunctionCall, i int) value.Value {
	opts := s.optDoc(call, i, "options")
	if opts.IsMissing() {
		return opts
	}
	if opts.Kind() != value.Object {
		s.throw(errs.Errorf(errs.Invalid, "options must be an object, got %s", opts.TypeName()).
			WithHint("e.g. {collation: {locale: 'en', strength: 2}}"))
	}
	return s.collationDoc(opts.Get("collation"))
}

// readCollation is the collation a read of c runs with: doc when given,
// else c's default.
func (s *Shell) readCollation(c *store.Collection, doc value.Value) *collation.Collation {
	coll, err := store.ResolveCollation(c, doc)
	s.must(err)
	return coll
}

// collateQuery compiles q's filter and sort again with coll; nil leaves
// q as compileQuery made it.
func (s *Shell) collateQuery(q store.Query, filter, sort value.Value, coll *collation.Collation) store.Query {
	if coll == nil {
		return q
	}
	var err error
	if filter.Len() > 0 {
		q.Filter, err = query.CompileFilterCollation(filter, coll)
		s.must(err)
	} else {
		q.Filter, err = query.CompileFilterCollation(value.ObjectValue(nil), coll)
		s.must(err)
	}
	q.Sort = q.Sort.WithCollation(coll)
	return q
}

// findDocsColl is findDocs with a collation document (missing: the
// collection's default).
func (s *Shell) findDocsColl(coll string, q store.Query, filter, sort, doc value.Value) []value.Value {
	var out []value.Value
	s.collection(coll, func(c *store.Collection) error {
		var err error
		out, err = drain(c.Find(s.ctx, s.collateQuery(q, filter, sort, s.readCollation(c, doc))))
		return err
	})
	return out
}

// compilePipelineIn compiles stages with the collation of a read of c.
func (s *Shell) compilePipelineIn(c *store.Collection, stages, doc value.Value) *agg.Pipeline {
	coll := s.readCollation(c, doc)
	var opts *agg.PipelineOptions
	if coll != nil {
		opts = &agg.PipelineOptions{Collation: coll}
	}
	p, err := agg.CompilePipeline(stages, opts)
	s.must(err)
	return p
}

// writeOpts is the options argument of a write method at position i: a
// collation there is refused, never ignored (a write uses the collection's
// default collation; the CLI's plan-update and plan-delete take another).
func (s *Shell) writeOpts(call goja.FunctionCall, i int) value.Value {
	opts := s.optDoc(call, i, "options")
	if !opts.Get("collation").IsMissing() {
		s.throw(errs.Errorf(errs.Usage, "the shell's write methods do not take a collation").
			WithHint("leave collation out (the write matches with the collection's default collation), or plan the write with `omgdb plan-update --collation` or `omgdb plan-delete --collation`"))
	}
	return opts
}

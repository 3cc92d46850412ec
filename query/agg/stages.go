package agg

import (
	"math/rand/v2"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// The small stages: $limit, $skip, $count, $replaceRoot, $replaceWith,
// $sample, $redact, $documents.

// positiveInt reads the integer argument of $limit, $skip and $sample.
func positiveInt(stage string, spec value.Value, allowZero bool) (int64, error) {
	n, ok := expr.ExactInt(spec)
	if !ok {
		return 0, errs.Errorf(errs.Invalid, "%s requires an integer argument, found %s", stage, spec)
	}
	if n < 0 || (n == 0 && !allowZero) {
		what := "positive"
		if allowZero {
			what = "non-negative"
		}
		return 0, errs.Errorf(errs.Invalid, "%s requires a %s integer, found %d", stage, what, n)
	}
	return n, nil
}

type limitStage struct{ n int64 }

func compileLimitStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	n, err := positiveInt("$limit", spec, false)
	return &limitStage{n}, err
}

func (s *limitStage) run(r *runState, in Source) Source {
	seen := int64(0)
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		if seen >= s.n {
			return value.Value{}, false, nil
		}
		seen++
		return r.pull(in)
	}}
}

type skipStage struct{ n int64 }

func compileSkipStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	n, err := positiveInt("$skip", spec, true)
	return &skipStage{n}, err
}

func (s *skipStage) run(r *runState, in Source) Source {
	skipped := int64(0)
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		for ; skipped < s.n; skipped++ {
			if _, ok, err := r.pull(in); err != nil || !ok {
				return value.Value{}, false, err
			}
		}
		return r.pull(in)
	}}
}

// checkOutputField validates a field name a stage creates ($count,
// $unwind's includeArrayIndex, $facet outputs).
func checkOutputField(stage, what, name string) error {
	switch {
	case name == "":
		return errs.Errorf(errs.Invalid, "%s: %s must be a non-empty string", stage, what)
	case strings.HasPrefix(name, "$"):
		return errs.Errorf(errs.Invalid, "%s: %s must not start with '$', found %q", stage, what, name)
	case strings.Contains(name, "."):
		return errs.Errorf(errs.Invalid, "%s: %s must not contain '.', found %q", stage, what, name)
	}
	return nil
}

type countStage struct{ field string }

func compileCountStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.String {
		return nil, errs.Errorf(errs.Invalid, "the count field must be a non-empty string, found %s", spec.TypeName())
	}
	if err := checkOutputField("$count", "the count field", spec.Str()); err != nil {
		return nil, err
	}
	return &countStage{spec.Str()}, nil
}

func (s *countStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) {
		n := int64(0)
		if err := r.drain(in, func(value.Value) error { n++; return nil }); err != nil || n == 0 {
			return nil, err
		}
		return []value.Value{value.ObjectValue([]value.Field{{Key: s.field, Value: value.LongValue(n)}})}, nil
	})
}

// replaceRootStage is $replaceRoot and $replaceWith.
type replaceRootStage struct {
	stage   string
	newRoot expr.Node
}

func compileReplaceRootStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "$replaceRoot expects an object with 'newRoot', found %s", spec.TypeName())
	}
	m, err := c.Named("$replaceRoot", spec, []string{"newRoot"}, nil)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{"$replaceRoot", m["newRoot"]}, nil
}

func compileReplaceWithStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	n, err := c.Compile(spec)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{"$replaceWith", n}, nil
}

func (s *replaceRootStage) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return value.Value{}, false, err
		}
		v, err := r.eval(s.newRoot, doc)
		if err != nil {
			return value.Value{}, false, err
		}
		if v.Kind() != value.Object {
			return value.Value{}, false, errs.Errorf(errs.Invalid, "'newRoot' expression must evaluate to an object, but resulting value was: %s; type of resulting value: '%s'; input document: %s", v, v.TypeName(), doc).
				WithHint("use $mergeObjects or $ifNull to give documents without it a default object")
		}
		return v, true, nil
	}}
}

type sampleStage struct{ size int64 }

func compileSampleStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object || spec.Len() != 1 || spec.Get("size").IsMissing() {
		return nil, errs.Errorf(errs.Invalid, "$sample stage must be an object of the form {size: <positive integer>}, found %s", spec)
	}
	n, err := positiveInt("$sample", spec.Get("size"), true)
	return &sampleStage{n}, err
}

// run keeps a reservoir of size documents, seeded by PipelineOptions.Seed,
// then returns it in random order.
func (s *sampleStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) { return s.reservoir(r, in) })
}

func (s *sampleStage) reservoir(r *runState, in Source) ([]value.Value, error) {
	rng := rand.New(rand.NewPCG(r.opts.Seed, 0x6f6d6764622d7361))
	b := r.budget("$sample")
	var res []value.Value
	seen := int64(0)
	err := r.drain(in, func(doc value.Value) error {
		seen++
		if int64(len(res)) < s.size {
			res = append(res, doc)
			return b.grow(value.Size(doc))
		}
		if j := rng.Int64N(seen); j < s.size {
			res[j] = doc
		}
		return nil
	})
	rng.Shuffle(len(res), func(i, j int) { res[i], res[j] = res[j], res[i] })
	return res, err
}

// redactStage is $redact: the expression decides, for the document and
// each embedded document, "descend", "prune" or "keep".
type redactStage struct{ e expr.Node }

func compileRedactStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	e, err := c.Compile(spec)
	if err != nil {
		return nil, err
	}
	return &redactStage{e}, nil
}

func (s *redactStage) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		for {
			doc, ok, err := r.pull(in)
			if err != nil || !ok {
				return value.Value{}, false, err
			}
			r.ec.Root, r.ec.Work = doc, 0
			out, keep, err := s.redact(r, doc)
			if err != nil {
				return value.Value{}, false, err
			}
			if keep {
				return out, true, nil
			}
		}
	}}
}

// redact applies the expression to one (sub)document as $$CURRENT.
func (s *redactStage) redact(r *runState, doc value.Value) (value.Value, bool, error) {
	r.ec.Vars[0] = doc
	v, err := s.e.Eval(r.ec)
	if err != nil {
		return value.Value{}, false, err
	}
	switch v.Str() {
	case "prune":
		return value.Value{}, false, nil
	case "keep":
		return doc, true, nil
	case "descend":
		if v.Kind() == value.String {
			return s.descend(r, doc)
		}
	}
	return value.Value{}, false, errs.Errorf(errs.Invalid, "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", v)
}

func (s *redactStage) descend(r *runState, doc value.Value) (value.Value, bool, error) {
	out := make([]value.Field, 0, doc.Len())
	for _, f := range doc.Fields() {
		v, keep, err := s.redactValue(r, f.Value)
		if err != nil {
			return value.Value{}, false, err
		}
		if keep {
			out = append(out, value.Field{Key: f.Key, Value: v})
		}
	}
	return value.ObjectValue(out), true, nil
}

// redactValue redacts embedded documents, in arrays too.
func (s *redactStage) redactValue(r *runState, v value.Value) (value.Value, bool, error) {
	switch v.Kind() {
	case value.Object:
		return s.redact(r, v)
	case value.Array:
		out := make([]value.Value, 0, v.Len())
		for _, e := range v.Array() {
			x, keep, err := s.redactValue(r, e)
			if err != nil {
				return value.Value{}, false, err
			}
			if keep {
				out = append(out, x)
			}
		}
		return value.ArrayValue(out), true, nil
	}
	return v, true, nil
}

// documentsStage is $documents: the documents an expression gives,
// instead of the input.
type documentsStage struct{ e expr.Node }

func compileDocumentsStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	e, err := c.Compile(spec)
	if err != nil {
		return nil, err
	}
	return &documentsStage{e}, nil
}

func (s *documentsStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]value.Value, error) {
		v, err := r.eval(s.e, value.ObjectValue(nil))
		if err != nil {
			return nil, err
		}
		if v.Kind() != value.Array {
			return nil, errs.Errorf(errs.Invalid, "$documents requires an array of objects, found %s", v.TypeName())
		}
		for _, d := range v.Array() {
			if d.Kind() != value.Object {
				return nil, errs.Errorf(errs.Invalid, "$documents requires an array of objects, found an element of type %s", d.TypeName())
			}
		}
		return v.Array(), nil
	})
}

package query

import (
	"math/rand/v2"
	"strings"
)

// The small stages: $limit, $skip, $count, $replaceRoot, $replaceWith,
// $sample, $redact, $documents.

// positiveInt reads the integer argument of $limit, $skip and $sample.
func positiveInt(stage string, spec Value, allowZero bool) (int64, error) {
	n, ok := exactInt(spec)
	if !ok {
		return 0, Errorf(Invalid, "%s requires an integer argument, found %s", stage, spec)
	}
	if n < 0 || (n == 0 && !allowZero) {
		what := "positive"
		if allowZero {
			what = "non-negative"
		}
		return 0, Errorf(Invalid, "%s requires a %s integer, found %d", stage, what, n)
	}
	return n, nil
}

type limitStage struct{ n int64 }

func compileLimitStage(_ *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	n, err := positiveInt("$limit", spec, false)
	return &limitStage{n}, err
}

func (s *limitStage) run(r *runState, in Source) Source {
	seen := int64(0)
	return &funcSource{in: in, next: func() (Value, bool, error) {
		if seen >= s.n {
			return Value{}, false, nil
		}
		seen++
		return r.pull(in)
	}}
}

type skipStage struct{ n int64 }

func compileSkipStage(_ *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	n, err := positiveInt("$skip", spec, true)
	return &skipStage{n}, err
}

func (s *skipStage) run(r *runState, in Source) Source {
	skipped := int64(0)
	return &funcSource{in: in, next: func() (Value, bool, error) {
		for ; skipped < s.n; skipped++ {
			if _, ok, err := r.pull(in); err != nil || !ok {
				return Value{}, false, err
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
		return Errorf(Invalid, "%s: %s must be a non-empty string", stage, what)
	case strings.HasPrefix(name, "$"):
		return Errorf(Invalid, "%s: %s must not start with '$', found %q", stage, what, name)
	case strings.Contains(name, "."):
		return Errorf(Invalid, "%s: %s must not contain '.', found %q", stage, what, name)
	}
	return nil
}

type countStage struct{ field string }

func compileCountStage(_ *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != String {
		return nil, Errorf(Invalid, "the count field must be a non-empty string, found %s", spec.TypeName())
	}
	if err := checkOutputField("$count", "the count field", spec.Str()); err != nil {
		return nil, err
	}
	return &countStage{spec.Str()}, nil
}

func (s *countStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]Value, error) {
		n := int64(0)
		if err := r.drain(in, func(Value) error { n++; return nil }); err != nil || n == 0 {
			return nil, err
		}
		return []Value{ObjectValue([]Field{{s.field, LongValue(n)}})}, nil
	})
}

// replaceRootStage is $replaceRoot and $replaceWith.
type replaceRootStage struct {
	stage   string
	newRoot expression
}

func compileReplaceRootStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "$replaceRoot expects an object with 'newRoot', found %s", spec.TypeName())
	}
	m, err := c.named("$replaceRoot", spec, []string{"newRoot"}, nil)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{"$replaceRoot", m["newRoot"]}, nil
}

func compileReplaceWithStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	n, err := c.expr(spec)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{"$replaceWith", n}, nil
}

func (s *replaceRootStage) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return Value{}, false, err
		}
		v, err := r.eval(s.newRoot, doc)
		if err != nil {
			return Value{}, false, err
		}
		if v.Kind() != Object {
			return Value{}, false, Errorf(Invalid, "'newRoot' expression must evaluate to an object, but resulting value was: %s; type of resulting value: '%s'; input document: %s", v, v.TypeName(), doc).
				WithHint("use $mergeObjects or $ifNull to give documents without it a default object")
		}
		return v, true, nil
	}}
}

type sampleStage struct{ size int64 }

func compileSampleStage(_ *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object || spec.Len() != 1 || spec.Get("size").IsMissing() {
		return nil, Errorf(Invalid, "$sample stage must be an object of the form {size: <positive integer>}, found %s", spec)
	}
	n, err := positiveInt("$sample", spec.Get("size"), true)
	return &sampleStage{n}, err
}

// run keeps a reservoir of size documents, seeded by PipelineOptions.Seed,
// then returns it in random order.
func (s *sampleStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]Value, error) { return s.reservoir(r, in) })
}

func (s *sampleStage) reservoir(r *runState, in Source) ([]Value, error) {
	rng := rand.New(rand.NewPCG(r.opts.Seed, 0x6f6d6764622d7361))
	b := r.budget("$sample")
	var res []Value
	seen := int64(0)
	err := r.drain(in, func(doc Value) error {
		seen++
		if int64(len(res)) < s.size {
			res = append(res, doc)
			return b.grow(valueSize(doc))
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
type redactStage struct{ e expression }

func compileRedactStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	e, err := c.expr(spec)
	if err != nil {
		return nil, err
	}
	return &redactStage{e}, nil
}

func (s *redactStage) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (Value, bool, error) {
		for {
			doc, ok, err := r.pull(in)
			if err != nil || !ok {
				return Value{}, false, err
			}
			r.ec.root, r.ec.work = doc, 0
			out, keep, err := s.redact(r, doc)
			if err != nil {
				return Value{}, false, err
			}
			if keep {
				return out, true, nil
			}
		}
	}}
}

// redact applies the expression to one (sub)document as $$CURRENT.
func (s *redactStage) redact(r *runState, doc Value) (Value, bool, error) {
	r.ec.vars[0] = doc
	v, err := s.e.eval(r.ec)
	if err != nil {
		return Value{}, false, err
	}
	switch v.Str() {
	case "prune":
		return Value{}, false, nil
	case "keep":
		return doc, true, nil
	case "descend":
		if v.Kind() == String {
			return s.descend(r, doc)
		}
	}
	return Value{}, false, Errorf(Invalid, "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", v)
}

func (s *redactStage) descend(r *runState, doc Value) (Value, bool, error) {
	out := make([]Field, 0, doc.Len())
	for _, f := range doc.Fields() {
		v, keep, err := s.redactValue(r, f.Value)
		if err != nil {
			return Value{}, false, err
		}
		if keep {
			out = append(out, Field{f.Key, v})
		}
	}
	return ObjectValue(out), true, nil
}

// redactValue redacts embedded documents, in arrays too.
func (s *redactStage) redactValue(r *runState, v Value) (Value, bool, error) {
	switch v.Kind() {
	case Object:
		return s.redact(r, v)
	case Array:
		out := make([]Value, 0, v.Len())
		for _, e := range v.Array() {
			x, keep, err := s.redactValue(r, e)
			if err != nil {
				return Value{}, false, err
			}
			if keep {
				out = append(out, x)
			}
		}
		return ArrayValue(out), true, nil
	}
	return v, true, nil
}

// documentsStage is $documents: the documents an expression gives,
// instead of the input.
type documentsStage struct{ e expression }

func compileDocumentsStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	e, err := c.expr(spec)
	if err != nil {
		return nil, err
	}
	return &documentsStage{e}, nil
}

func (s *documentsStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]Value, error) {
		v, err := r.eval(s.e, ObjectValue(nil))
		if err != nil {
			return nil, err
		}
		if v.Kind() != Array {
			return nil, Errorf(Invalid, "$documents requires an array of objects, found %s", v.TypeName())
		}
		for _, d := range v.Array() {
			if d.Kind() != Object {
				return nil, Errorf(Invalid, "$documents requires an array of objects, found an element of type %s", d.TypeName())
			}
		}
		return v.Array(), nil
	})
}

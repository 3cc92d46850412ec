package agg

import (
	"slices"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $graphLookup: a breadth-first search of another collection (or the
// same one) from each input document. The values of startWith (each
// element of an array) are looked for in connectToField of the foreign
// documents that pass restrictSearchWithMatch; each document found (once,
// by _id, at the smallest depth) joins the output array, and the values
// of its connectFromField are looked for next, up to maxDepth rounds
// after the first. As in MongoDB 5.0 and later, a missing value neither
// starts nor continues a search and null matches only null. The output
// array lists the documents by depth, then in the foreign collection's
// order (MongoDB leaves it unspecified).

type graphLookupStage struct {
	from        string
	startWith   expr.Node
	connectFrom value.Path
	connectTo   value.Path
	as          []string
	maxDepth    int64    // -1: no limit
	depthField  []string // nil: none
	restrict    matcher  // nil: every foreign document
}

var graphLookupFields = []string{"from", "startWith", "connectFromField", "connectToField", "as", "maxDepth", "depthField", "restrictSearchWithMatch"}

func compileGraphLookupStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the $graphLookup specification must be an object, found %s", spec.TypeName())
	}
	s := &graphLookupStage{maxDepth: -1}
	for _, f := range spec.Fields() {
		if !slices.Contains(graphLookupFields, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "unknown argument to $graphLookup: %s%s", f.Key, errs.DidYouMean(f.Key, graphLookupFields))
		}
		if err := s.option(c, f); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"from", "startWith", "connectFromField", "connectToField", "as"} {
		if spec.Get(name).IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "$graphLookup: %s was not specified", name).
				WithHint(`write {"$graphLookup":{"from":"employees","startWith":"$reportsTo","connectFromField":"reportsTo","connectToField":"name","as":"chain"}}`)
		}
	}
	return s, nil
}

func (s *graphLookupStage) option(c *expr.Compiler, f value.Field) error {
	switch f.Key {
	case "startWith":
		n, err := c.Compile(f.Value)
		s.startWith = n
		return err
	case "maxDepth":
		return s.setMaxDepth(f.Value)
	case "restrictSearchWithMatch":
		if f.Value.Kind() != value.Object {
			return errs.Errorf(errs.Invalid, "$graphLookup: restrictSearchWithMatch must be an object, found %s", f.Value.TypeName())
		}
		if err := refuseInGraphLookup(f.Value); err != nil {
			return err
		}
		m, err := compileMatch(c, f.Value)
		s.restrict = m
		return err
	}
	if f.Value.Kind() != value.String {
		return errs.Errorf(errs.Invalid, "$graphLookup: %s must be a string, found %s", f.Key, f.Value.TypeName())
	}
	name := f.Value.Str()
	if f.Key == "from" {
		if name == "" {
			return errs.Errorf(errs.Invalid, "$graphLookup: from must name a collection")
		}
		s.from = name
		return nil
	}
	path, err := projPath("$graphLookup", name)
	if err != nil {
		return err
	}
	switch f.Key {
	case "connectFromField":
		s.connectFrom = value.ParsePath(name)
	case "connectToField":
		s.connectTo = value.ParsePath(name)
	case "as":
		s.as = path
	case "depthField":
		s.depthField = path
	}
	return nil
}

func (s *graphLookupStage) setMaxDepth(v value.Value) error {
	if !v.IsNumber() {
		return errs.Errorf(errs.Invalid, "$graphLookup: maxDepth must be numeric, found %s", v.TypeName())
	}
	f := v.Float()
	switch {
	case f < 0:
		return errs.Errorf(errs.Invalid, "$graphLookup: maxDepth must be nonnegative, found %s", v)
	case v.Kind() == value.Double && f != float64(int64(f)):
		return errs.Errorf(errs.Invalid, "$graphLookup: maxDepth must be a whole number, found %s", v)
	}
	s.maxDepth = int64(f)
	if v.IsIntegral() {
		s.maxDepth = v.Long()
	}
	return nil
}

// refuseInGraphLookup refuses what MongoDB refuses in
// restrictSearchWithMatch, at any depth: $where, $text and $near.
func refuseInGraphLookup(v value.Value) error {
	switch v.Kind() {
	case value.Object:
		for _, f := range v.Fields() {
			if f.Key == "$where" || f.Key == "$text" || f.Key == "$near" || f.Key == "$nearSphere" {
				return errs.Errorf(errs.Invalid, "$graphLookup: %s is not allowed in restrictSearchWithMatch", f.Key)
			}
			if err := refuseInGraphLookup(f.Value); err != nil {
				return err
			}
		}
	case value.Array:
		for _, e := range v.Array() {
			if err := refuseInGraphLookup(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *graphLookupStage) run(r *runState, in Source) Source {
	g := &graph{s: s, r: r}
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return value.Value{}, false, err
		}
		found, err := g.search(doc)
		if err != nil {
			return value.Value{}, false, err
		}
		return value.SetPath(doc, s.as, value.ArrayValue(found)), true, nil
	}}
}

// graph is the foreign collection of one run: loaded once, when it fits
// in MaxMemory, with an index from connectToField values to documents;
// read again for each round of a search otherwise.
type graph struct {
	s      *graphLookupStage
	r      *runState
	loaded bool
	docs   []value.Value    // the documents that pass restrictSearchWithMatch
	index  map[string][]int // key of a connectToField value -> positions in docs
}

// search returns the documents a breadth-first search from doc reaches.
func (g *graph) search(doc value.Value) ([]value.Value, error) {
	start, err := g.r.eval(g.s.startWith, doc)
	if err != nil {
		return nil, err
	}
	frontier := map[string]bool{}
	seenValues := map[string]bool{}
	addValue(frontier, seenValues, start)
	visited := map[string]bool{}
	b := g.r.budget("$graphLookup")
	var out []value.Value
	for depth := int64(0); len(frontier) > 0 && (g.s.maxDepth < 0 || depth <= g.s.maxDepth); depth++ {
		found, err := g.round(frontier, visited)
		if err != nil {
			return nil, err
		}
		frontier = map[string]bool{}
		for _, d := range found {
			for _, v := range query.Lookup(d, g.s.connectFrom.Dotted) {
				addValue(frontier, seenValues, v)
			}
			if g.s.depthField != nil {
				d = value.SetPath(d, g.s.depthField, value.LongValue(depth))
			}
			if err := b.grow(value.Size(d)); err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// addValue adds a value to look for (each element of an array), unless
// it is missing or was looked for already.
func addValue(frontier, seen map[string]bool, v value.Value) {
	if v.Kind() == value.Array {
		for _, e := range v.Array() {
			addValue(frontier, seen, e)
		}
		return
	}
	if v.IsMissing() {
		return
	}
	k := string(value.AppendKey(nil, v))
	if !seen[k] {
		seen[k], frontier[k] = true, true
	}
}

// round returns the foreign documents not yet visited whose
// connectToField holds a value of the frontier, marking them visited.
func (g *graph) round(frontier, visited map[string]bool) ([]value.Value, error) {
	if !g.loaded {
		if err := g.load(); err != nil {
			return nil, err
		}
	}
	var found []value.Value
	take := func(d value.Value) {
		id := string(value.AppendKey(nil, d.Get("_id")))
		if !visited[id] {
			visited[id] = true
			found = append(found, d)
		}
	}
	if g.docs != nil {
		var at []int
		for k := range frontier {
			at = append(at, g.index[k]...)
		}
		slices.Sort(at)
		for _, i := range slices.Compact(at) {
			take(g.docs[i])
		}
		return found, nil
	}
	err := g.scan(func(d value.Value) error {
		if g.matches(d, frontier) {
			take(d)
		}
		return nil
	})
	return found, err
}

func (g *graph) matches(d value.Value, frontier map[string]bool) bool {
	hit := false
	query.EachValue(d, &g.s.connectTo, func(v value.Value) {
		if !hit && !v.IsMissing() && frontier[string(value.AppendKey(nil, v))] {
			hit = true
		}
	})
	return hit
}

// scan calls fn with each foreign document that passes
// restrictSearchWithMatch.
func (g *graph) scan(fn func(value.Value) error) error {
	if g.r.env == nil {
		return errs.Errorf(errs.Invalid, "$graphLookup from %q needs access to other collections, and this pipeline has none", g.s.from)
	}
	src, err := g.r.env.Collection(g.r.ctx, g.s.from)
	if err != nil {
		return err
	}
	defer src.Close()
	return g.r.drain(src, func(d value.Value) error {
		if g.s.restrict != nil {
			ok, err := g.s.restrict.match(g.r, d)
			if err != nil || !ok {
				return err
			}
		}
		return fn(d)
	})
}

// load reads the foreign collection into memory if it fits; docs stays
// nil if not.
func (g *graph) load() error {
	g.loaded = true
	b := g.r.budget("$graphLookup")
	var docs []value.Value
	index := map[string][]int{}
	err := g.scan(func(d value.Value) error {
		if b.grow(value.Size(d)) != nil {
			return errTooBig
		}
		query.EachValue(d, &g.s.connectTo, func(v value.Value) {
			if v.IsMissing() {
				return
			}
			k := string(value.AppendKey(nil, v))
			if l := index[k]; len(l) == 0 || l[len(l)-1] != len(docs) {
				index[k] = append(l, len(docs))
			}
		})
		docs = append(docs, d)
		return nil
	})
	if err == errTooBig {
		return nil
	}
	g.docs, g.index = docs, index
	if g.docs == nil {
		g.docs = []value.Value{}
	}
	return err
}

package query

import (
	"slices"
	"strings"
)

// $lookup: equality form (localField/foreignField), pipeline form (let,
// pipeline), and both together. The foreign collection is read once per
// run and kept in memory (indexed by foreignField) while it fits in
// MaxMemory; a larger one is read again for each input document.

type lookupStage struct {
	from          string
	as            []string
	local         []string // localField, or nil
	foreign       []string // foreignField, or nil
	letSlots      []int
	letVals       []expression
	pipeline      []stage // nil: no pipeline
	ownsDocuments bool    // the pipeline starts with $documents: no collection is read
}

var lookupFields = []string{"from", "as", "localField", "foreignField", "let", "pipeline"}

func compileLookupStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "the $lookup stage specification must be an object, found %s", spec.TypeName())
	}
	s := &lookupStage{}
	for _, f := range spec.Fields() {
		if err := s.field(f); err != nil {
			return nil, err
		}
	}
	if err := s.check(spec); err != nil {
		return nil, err
	}
	if spec.Get("pipeline").IsMissing() {
		return s, nil
	}
	return s, s.compilePipeline(c, spec)
}

func (s *lookupStage) field(f Field) error {
	if !contains(lookupFields, f.Key) {
		return Errorf(Invalid, "unknown argument to $lookup: %s%s", f.Key, DidYouMean(f.Key, lookupFields))
	}
	if f.Key == "let" || f.Key == "pipeline" {
		return nil
	}
	if f.Value.Kind() != String {
		return Errorf(Invalid, "$lookup argument '%s' must be a string, found %s", f.Key, f.Value.TypeName())
	}
	var err error
	switch f.Key {
	case "from":
		s.from = f.Value.Str()
	case "as":
		s.as, err = projPath("$lookup", f.Value.Str())
	case "localField":
		s.local, err = projPath("$lookup", f.Value.Str())
	case "foreignField":
		s.foreign, err = projPath("$lookup", f.Value.Str())
	}
	return err
}

func (s *lookupStage) check(spec Value) error {
	switch {
	case s.as == nil:
		return Errorf(Invalid, "must specify 'as' field for a $lookup")
	case (s.local == nil) != (s.foreign == nil):
		return Errorf(Invalid, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	case s.local == nil && spec.Get("pipeline").IsMissing():
		return Errorf(Invalid, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	case !spec.Get("let").IsMissing() && spec.Get("pipeline").IsMissing():
		return Errorf(Invalid, "$lookup with 'let' must also specify 'pipeline'")
	}
	return nil
}

func (s *lookupStage) compilePipeline(c *exprCompiler, spec Value) error {
	let, pipe := spec.Get("let"), spec.Get("pipeline")
	if !let.IsMissing() && let.Kind() != Object {
		return Errorf(Invalid, "$lookup argument 'let' must be an object, found %s", let.TypeName())
	}
	for _, f := range let.Fields() {
		if err := checkVarName(f.Key); err != nil {
			return err
		}
		v, err := c.expr(f.Value)
		if err != nil {
			return err
		}
		s.letVals = append(s.letVals, v)
	}
	var restores []func()
	defer func() {
		for i := len(restores) - 1; i >= 0; i-- {
			restores[i]()
		}
	}()
	for _, f := range let.Fields() {
		slot, restore := c.bind(f.Key)
		s.letSlots = append(s.letSlots, slot)
		restores = append(restores, restore)
	}
	stages, err := compileStages(c, pipe, pipeLookup)
	if err != nil {
		return err
	}
	s.pipeline = stages
	if len(stages) > 0 {
		_, s.ownsDocuments = stages[0].(*documentsStage)
	}
	if s.from == "" && !s.ownsDocuments {
		return Errorf(Invalid, "$lookup requires 'from' unless its pipeline starts with $documents")
	}
	return nil
}

func (s *lookupStage) run(r *runState, in Source) Source {
	f := &foreignColl{r: r, name: s.from, none: s.ownsDocuments}
	if s.foreign != nil {
		fp := parsePath(strings.Join(s.foreign, "."))
		f.path = &fp
	}
	return &funcSource{in: in, next: func() (Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return Value{}, false, err
		}
		matches, err := s.lookup(r, f, doc)
		if err != nil {
			return Value{}, false, err
		}
		return setPath(doc, s.as, ArrayValue(matches)), true, nil
	}}
}

// lookup finds the joined documents of one input document; together
// they may take at most MaxMemory.
func (s *lookupStage) lookup(r *runState, f *foreignColl, doc Value) ([]Value, error) {
	var src Source
	var err error
	if s.local != nil {
		src, err = f.matching(localValues(doc, s.local))
	} else {
		src, err = f.all()
	}
	if err != nil {
		return nil, err
	}
	for i, slot := range s.letSlots {
		v, err := r.eval(s.letVals[i], doc)
		if err != nil {
			src.Close()
			return nil, err
		}
		r.ec.vars[slot] = v
	}
	return collect(r, r.runStages(s.pipeline, src), r.budget("$lookup"))
}

// localValues are the values localField names, as MongoDB looks them
// up: through arrays of documents, the elements of an array at the end;
// none at all is null.
func localValues(doc Value, path []string) []Value {
	var out []Value
	for _, v := range Lookup(doc, strings.Join(path, ".")) {
		if v.Kind() == Array {
			out = append(out, v.Array()...)
		} else {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = append(out, NullValue())
	}
	return out
}

// keyCollector gathers the keys of the values a path walk yields.
type keyCollector struct{ keys [][]byte }

func (k *keyCollector) matchValue(v Value, _ *matchCtx) bool {
	k.keys = append(k.keys, AppendKey(nil, v))
	return false
}

// foreignKeys are the keys under which a foreign document matches an
// equality on foreignField, with the filter language's path rules: each
// value the path yields (array elements and the array itself), missing as
// null.
func foreignKeys(doc Value, fp *fieldPath) [][]byte {
	k := &keyCollector{}
	w := pathWalk{path: fp, leafArrays: true, pred: k}
	w.run(doc)
	if len(k.keys) == 0 {
		k.keys = append(k.keys, AppendKey(nil, NullValue()))
	}
	return k.keys
}

// foreignColl is the foreign collection of a $lookup during one run.
type foreignColl struct {
	r      *runState
	name   string
	path   *fieldPath // foreignField, or nil
	none   bool       // no collection: the sub-pipeline makes its documents
	loaded bool
	docs   []Value          // the whole collection, when it fits in memory
	index  map[string][]int // foreign key -> positions in docs
}

func (f *foreignColl) open() (Source, error) {
	if f.r.env == nil {
		return nil, Errorf(Invalid, "$lookup from %q needs access to other collections, and this pipeline has none", f.name)
	}
	return f.r.env.Collection(f.r.ctx, f.name)
}

// load reads the collection into memory if it fits; docs stays nil if not.
func (f *foreignColl) load() error {
	f.loaded = true
	src, err := f.open()
	if err != nil {
		return err
	}
	defer src.Close()
	b := f.r.budget("$lookup")
	var docs []Value
	index := map[string][]int{}
	err = f.r.drain(src, func(d Value) error {
		if b.grow(valueSize(d)) != nil {
			return errTooBig
		}
		for _, k := range f.keys(d) {
			if l := index[string(k)]; len(l) == 0 || l[len(l)-1] != len(docs) {
				index[string(k)] = append(l, len(docs))
			}
		}
		docs = append(docs, d)
		return nil
	})
	if err == errTooBig {
		return nil
	}
	f.docs, f.index = docs, index
	if f.docs == nil {
		f.docs = []Value{}
	}
	return err
}

// keys are the index keys of a foreign document (none without
// foreignField).
func (f *foreignColl) keys(d Value) [][]byte {
	if f.path == nil {
		return nil
	}
	return foreignKeys(d, f.path)
}

var errTooBig = &Error{Kind: Limit, Message: "too big"} // not Errorf: no fmt at package initialisation

// all returns every foreign document.
func (f *foreignColl) all() (Source, error) {
	if f.none {
		return SliceSource(nil), nil
	}
	if !f.loaded {
		if err := f.load(); err != nil {
			return nil, err
		}
	}
	if f.docs != nil {
		return SliceSource(f.docs), nil
	}
	return f.open()
}

// matching returns the foreign documents whose foreignField equals one of
// the local values.
func (f *foreignColl) matching(local []Value) (Source, error) {
	if f.none {
		return SliceSource(nil), nil
	}
	if !f.loaded {
		if err := f.load(); err != nil {
			return nil, err
		}
	}
	want := map[string]bool{}
	for _, v := range local {
		want[string(AppendKey(nil, v))] = true
	}
	if f.docs == nil {
		src, err := f.open()
		if err != nil {
			return nil, err
		}
		return filterSource(f.r, src, func(d Value) bool { return anyKey(foreignKeys(d, f.path), want) }), nil
	}
	var pos []int
	for k := range want {
		pos = append(pos, f.index[k]...)
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	out := make([]Value, len(pos))
	for i, p := range pos {
		out[i] = f.docs[p]
	}
	return SliceSource(out), nil
}

func anyKey(keys [][]byte, want map[string]bool) bool {
	for _, k := range keys {
		if want[string(k)] {
			return true
		}
	}
	return false
}

// filterSource passes the documents of src that keep accepts.
func filterSource(r *runState, src Source, keep func(Value) bool) Source {
	return &funcSource{in: src, next: func() (Value, bool, error) {
		for {
			d, ok, err := r.pull(src)
			if err != nil || !ok || keep(d) {
				return d, ok, err
			}
		}
	}}
}

// unionWithStage is $unionWith: the input, then the documents of another
// collection through an optional pipeline.
type unionWithStage struct {
	coll     string
	pipeline []stage
}

func compileUnionWithStage(c *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	s := &unionWithStage{}
	switch spec.Kind() {
	case String:
		s.coll = spec.Str()
		return s, nil
	case Object:
	default:
		return nil, Errorf(Invalid, "the $unionWith stage takes a collection name or an object {coll, pipeline}, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		switch f.Key {
		case "coll":
			if f.Value.Kind() != String {
				return nil, Errorf(Invalid, "$unionWith 'coll' must be a string, found %s", f.Value.TypeName())
			}
			s.coll = f.Value.Str()
		case "pipeline":
			stages, err := compileStages(c, f.Value, pipeLookup)
			if err != nil {
				return nil, err
			}
			s.pipeline = stages
		default:
			return nil, Errorf(Invalid, "unknown argument to $unionWith: %s%s", f.Key, DidYouMean(f.Key, []string{"coll", "pipeline"}))
		}
	}
	_, docs := firstStage(s.pipeline).(*documentsStage)
	if s.coll == "" && !docs {
		return nil, Errorf(Invalid, "$unionWith requires 'coll' unless its pipeline starts with $documents")
	}
	return s, nil
}

func firstStage(stages []stage) stage {
	if len(stages) == 0 {
		return nil
	}
	return stages[0]
}

func (s *unionWithStage) run(r *runState, in Source) Source {
	var other Source
	src := &funcSource{next: func() (Value, bool, error) {
		if other == nil {
			d, ok, err := r.pull(in)
			if err != nil || ok {
				return d, ok, err
			}
			if other, err = s.open(r); err != nil {
				return Value{}, false, err
			}
		}
		return r.pull(other)
	}}
	src.onClose = func() error {
		err := in.Close()
		if other != nil {
			if oerr := other.Close(); err == nil {
				err = oerr
			}
		}
		return err
	}
	return src
}

func (s *unionWithStage) open(r *runState) (Source, error) {
	var base Source = SliceSource(nil)
	if _, docs := firstStage(s.pipeline).(*documentsStage); !docs {
		if r.env == nil {
			return nil, Errorf(Invalid, "$unionWith %q needs access to other collections, and this pipeline has none", s.coll)
		}
		var err error
		if base, err = r.env.Collection(r.ctx, s.coll); err != nil {
			return nil, err
		}
	}
	return r.runStages(s.pipeline, base), nil
}

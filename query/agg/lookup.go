package agg

import (
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
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
	letVals       []expr.Node
	pipeline      []stage // nil: no pipeline
	ownsDocuments bool    // the pipeline starts with $documents: no collection is read
}

var lookupFields = []string{"from", "as", "localField", "foreignField", "let", "pipeline"}

func compileLookupStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the $lookup stage specification must be an object, found %s", spec.TypeName())
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

func (s *lookupStage) field(f value.Field) error {
	if !slices.Contains(lookupFields, f.Key) {
		return errs.Errorf(errs.Invalid, "unknown argument to $lookup: %s%s", f.Key, errs.DidYouMean(f.Key, lookupFields))
	}
	if f.Key == "let" || f.Key == "pipeline" {
		return nil
	}
	if f.Value.Kind() != value.String {
		return errs.Errorf(errs.Invalid, "$lookup argument '%s' must be a string, found %s", f.Key, f.Value.TypeName())
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

func (s *lookupStage) check(spec value.Value) error {
	switch {
	case s.as == nil:
		return errs.Errorf(errs.Invalid, "must specify 'as' field for a $lookup")
	case (s.local == nil) != (s.foreign == nil):
		return errs.Errorf(errs.Invalid, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	case s.local == nil && spec.Get("pipeline").IsMissing():
		return errs.Errorf(errs.Invalid, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	case !spec.Get("let").IsMissing() && spec.Get("pipeline").IsMissing():
		return errs.Errorf(errs.Invalid, "$lookup with 'let' must also specify 'pipeline'")
	}
	return nil
}

func (s *lookupStage) compilePipeline(c *expr.Compiler, spec value.Value) error {
	let, pipe := spec.Get("let"), spec.Get("pipeline")
	if !let.IsMissing() && let.Kind() != value.Object {
		return errs.Errorf(errs.Invalid, "$lookup argument 'let' must be an object, found %s", let.TypeName())
	}
	for _, f := range let.Fields() {
		if err := expr.CheckVarName(f.Key); err != nil {
			return err
		}
		v, err := c.Compile(f.Value)
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
		slot, restore := c.Bind(f.Key)
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
		return errs.Errorf(errs.Invalid, "$lookup requires 'from' unless its pipeline starts with $documents")
	}
	return nil
}

func (s *lookupStage) run(r *runState, in Source) Source {
	f := &foreignColl{r: r, name: s.from, none: s.ownsDocuments}
	if s.foreign != nil {
		fp := value.ParsePath(strings.Join(s.foreign, "."))
		f.path = &fp
	}
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return value.Value{}, false, err
		}
		matches, err := s.lookup(r, f, doc)
		if err != nil {
			return value.Value{}, false, err
		}
		return value.SetPath(doc, s.as, value.ArrayValue(matches)), true, nil
	}}
}

// lookup finds the joined documents of one input document; together
// they may take at most MaxMemory.
func (s *lookupStage) lookup(r *runState, f *foreignColl, doc value.Value) ([]value.Value, error) {
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
		r.ec.Vars[slot] = v
	}
	return collect(r, r.runStages(s.pipeline, src), r.budget("$lookup"))
}

// localValues are the values localField names, as MongoDB looks them
// up: through arrays of documents, the elements of an array at the end;
// none at all is null.
func localValues(doc value.Value, path []string) []value.Value {
	var out []value.Value
	for _, v := range query.Lookup(doc, strings.Join(path, ".")) {
		if v.Kind() == value.Array {
			out = append(out, v.Array()...)
		} else {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = append(out, value.NullValue())
	}
	return out
}

// foreignKeys are the keys under which a foreign document matches an
// equality on foreignField, with the filter language's path rules: each
// value the path yields (array elements and the array itself), missing as
// null.
func foreignKeys(doc value.Value, fp *value.Path) [][]byte {
	var keys [][]byte
	query.EachValue(doc, fp, func(v value.Value) { keys = append(keys, value.AppendKey(nil, v)) })
	if len(keys) == 0 {
		keys = append(keys, value.AppendKey(nil, value.NullValue()))
	}
	return keys
}

// foreignColl is the foreign collection of a $lookup during one run.
type foreignColl struct {
	r      *runState
	name   string
	path   *value.Path // foreignField, or nil
	none   bool        // no collection: the sub-pipeline makes its documents
	loaded bool
	docs   []value.Value    // the whole collection, when it fits in memory
	index  map[string][]int // foreign key -> positions in docs
}

func (f *foreignColl) open() (Source, error) {
	if f.r.env == nil {
		return nil, errs.Errorf(errs.Invalid, "$lookup from %q needs access to other collections, and this pipeline has none", f.name)
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
	var docs []value.Value
	index := map[string][]int{}
	err = f.r.drain(src, func(d value.Value) error {
		if b.grow(value.Size(d)) != nil {
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
		f.docs = []value.Value{}
	}
	return err
}

// keys are the index keys of a foreign document (none without
// foreignField).
func (f *foreignColl) keys(d value.Value) [][]byte {
	if f.path == nil {
		return nil
	}
	return foreignKeys(d, f.path)
}

var errTooBig = &errs.Error{Kind: errs.Limit, Message: "too big"} // not Errorf: no fmt at package initialisation

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
func (f *foreignColl) matching(local []value.Value) (Source, error) {
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
		want[string(value.AppendKey(nil, v))] = true
	}
	if f.docs == nil {
		src, err := f.open()
		if err != nil {
			return nil, err
		}
		return filterSource(f.r, src, func(d value.Value) bool { return anyKey(foreignKeys(d, f.path), want) }), nil
	}
	var pos []int
	for k := range want {
		pos = append(pos, f.index[k]...)
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	out := make([]value.Value, len(pos))
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
func filterSource(r *runState, src Source, keep func(value.Value) bool) Source {
	return &funcSource{in: src, next: func() (value.Value, bool, error) {
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

func compileUnionWithStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	s := &unionWithStage{}
	switch spec.Kind() {
	case value.String:
		s.coll = spec.Str()
		return s, nil
	case value.Object:
	default:
		return nil, errs.Errorf(errs.Invalid, "the $unionWith stage takes a collection name or an object {coll, pipeline}, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		switch f.Key {
		case "coll":
			if f.Value.Kind() != value.String {
				return nil, errs.Errorf(errs.Invalid, "$unionWith 'coll' must be a string, found %s", f.Value.TypeName())
			}
			s.coll = f.Value.Str()
		case "pipeline":
			stages, err := compileStages(c, f.Value, pipeLookup)
			if err != nil {
				return nil, err
			}
			s.pipeline = stages
		default:
			return nil, errs.Errorf(errs.Invalid, "unknown argument to $unionWith: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"coll", "pipeline"}))
		}
	}
	_, docs := firstStage(s.pipeline).(*documentsStage)
	if s.coll == "" && !docs {
		return nil, errs.Errorf(errs.Invalid, "$unionWith requires 'coll' unless its pipeline starts with $documents")
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
	src := &funcSource{next: func() (value.Value, bool, error) {
		if other == nil {
			d, ok, err := r.pull(in)
			if err != nil || ok {
				return d, ok, err
			}
			if other, err = s.open(r); err != nil {
				return value.Value{}, false, err
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
			return nil, errs.Errorf(errs.Invalid, "$unionWith %q needs access to other collections, and this pipeline has none", s.coll)
		}
		var err error
		if base, err = r.env.Collection(r.ctx, s.coll); err != nil {
			return nil, err
		}
	}
	return r.runStages(s.pipeline, base), nil
}

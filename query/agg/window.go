package agg

import (
	"bytes"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $setWindowFields: each output field is computed, for every document,
// over a window of the documents of its partition (the documents with the
// same partitionBy value), in sortBy order. The stage reads its whole
// input (within MaxMemory, or past it through temporary files with a
// SpillDir: window_spill.go), sorts it by partition, then by sortBy (ties
// and no sortBy keep the input order), and returns the documents in that
// order, as MongoDB does. The window functions are in window_funcs.go.

type windowStage struct {
	partition expr.Node       // nil: one partition
	sort      *value.SortSpec // nil: input order
	sortPath  string          // the sortBy field, when sortBy has exactly one
	sortDesc  bool
	outputs   []windowOutput
}

type windowOutput struct {
	path []string
	fn   windowFunc
}

// windowFunc computes an output for every document of a partition.
type windowFunc interface {
	compute(r *runState, p *partition) ([]value.Value, error)
}

// partition is the documents of one partition in sortBy order.
type partition struct {
	st   *windowStage
	docs []value.Value
	keys [][]value.SortVal // sort keys, when there is a sortBy
	xs   []value.Value     // the sortBy field's values, made on first use
}

var windowFields = []string{"partitionBy", "sortBy", "output"}

func compileWindowStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the $setWindowFields specification must be an object, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		if !slices.Contains(windowFields, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "$setWindowFields: unknown field %s%s", f.Key, errs.DidYouMean(f.Key, windowFields))
		}
	}
	s := &windowStage{}
	var err error
	if p := spec.Get("partitionBy"); !p.IsMissing() {
		if s.partition, err = c.Compile(p); err != nil {
			return nil, err
		}
	}
	if sb := spec.Get("sortBy"); !sb.IsMissing() {
		if s.sort, err = value.CompileSortSpec("$setWindowFields", sb); err != nil {
			return nil, err
		}
		if sb.Len() == 1 {
			s.sortPath = sb.Fields()[0].Key
			s.sortDesc, _ = value.SortDirection(s.sortPath, sb.Fields()[0].Value)
		}
	}
	out := spec.Get("output")
	if out.Kind() != value.Object || out.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "$setWindowFields requires a non-empty 'output' object, found %s", out).
			WithHint(`write {"$setWindowFields":{"sortBy":{"date":1},"output":{"total":{"$sum":"$qty","window":{"documents":["unbounded","current"]}}}}}`)
	}
	for _, f := range out.Fields() {
		path, err := projPath("$setWindowFields", f.Key)
		if err != nil {
			return nil, err
		}
		fn, err := s.compileOutput(c, f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		s.outputs = append(s.outputs, windowOutput{path: path, fn: fn})
	}
	return s, nil
}

func (s *windowStage) run(r *runState, in Source) Source {
	if r.opts.SpillDir != "" {
		return s.runSpilling(r, in)
	}
	return bufferedSource(in, func() ([]value.Value, error) { return s.all(r, in) })
}

// windowItem is an input document with what orders it.
type windowItem struct {
	doc  value.Value
	part []byte
	keys []value.SortVal
}

// all reads, orders and computes the whole input.
func (s *windowStage) all(r *runState, in Source) ([]value.Value, error) {
	b := r.budget("$setWindowFields")
	var items []windowItem
	err := r.drain(in, func(doc value.Value) error {
		it, err := s.item(r, doc)
		if err != nil {
			return err
		}
		items = append(items, it)
		return b.grow(itemSize(doc))
	})
	if err != nil {
		return nil, err
	}
	return s.computeAll(r, items)
}

// itemSize is what a buffered document counts against MaxMemory.
func itemSize(doc value.Value) int64 { return value.Size(doc) + 64 }

// item is doc with its partition key (value.AppendKey of partitionBy's
// value, null for missing) and its sort keys.
func (s *windowStage) item(r *runState, doc value.Value) (windowItem, error) {
	it := windowItem{doc: doc}
	if s.partition != nil {
		v, err := r.eval(s.partition, doc)
		if err != nil {
			return it, err
		}
		if v.Kind() == value.Array {
			return it, errs.Errorf(errs.Invalid, "$setWindowFields: partitionBy may not evaluate to an array, found %s", v)
		}
		if v.IsMissing() {
			v = value.NullValue()
		}
		it.part = value.AppendKey(nil, v)
	}
	if s.sort != nil {
		it.keys = s.sort.Keys(doc)
	}
	return it, nil
}

// computeAll orders items by partition and sortBy (stable) and computes
// every partition.
func (s *windowStage) computeAll(r *runState, items []windowItem) ([]value.Value, error) {
	slices.SortStableFunc(items, func(a, b windowItem) int {
		if c := bytes.Compare(a.part, b.part); c != 0 {
			return c
		}
		if s.sort == nil {
			return 0
		}
		return s.sort.CompareKeys(a.keys, b.keys)
	})
	out := make([]value.Value, 0, len(items))
	for start := 0; start < len(items); {
		end := start + 1
		for end < len(items) && bytes.Equal(items[end].part, items[start].part) {
			end++
		}
		docs, err := s.computePartition(r, items[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
		start = end
	}
	return out, nil
}

func (s *windowStage) computePartition(r *runState, items []windowItem) ([]value.Value, error) {
	p := &partition{st: s, docs: make([]value.Value, len(items))}
	for i, it := range items {
		p.docs[i] = it.doc
		if s.sort != nil {
			p.keys = append(p.keys, it.keys)
		}
	}
	results := make([][]value.Value, len(s.outputs))
	for k, o := range s.outputs {
		vals, err := o.fn.compute(r, p)
		if err != nil {
			return nil, err
		}
		results[k] = vals
	}
	out := make([]value.Value, len(p.docs))
	for i, doc := range p.docs {
		for k, o := range s.outputs {
			doc = value.SetPath(doc, o.path, results[k][i])
		}
		out[i] = doc
	}
	return out, nil
}

// sortValues returns the values of the sortBy field, which range windows,
// $derivative, $integral and $linearFill measure distances on.
func (p *partition) sortValues() []value.Value {
	if p.xs == nil {
		p.xs = make([]value.Value, len(p.docs))
		for i, d := range p.docs {
			if vs := query.Lookup(d, p.st.sortPath); len(vs) > 0 {
				p.xs[i] = vs[0]
			}
		}
	}
	return p.xs
}

// needSort refuses a window function that needs sortBy, or a sortBy of
// exactly one field, without it.
func (s *windowStage) needSort(op string, single bool) error {
	switch {
	case s.sort == nil:
		return errs.Errorf(errs.Invalid, "$setWindowFields: %s requires a sortBy", op).
			WithHint(`add "sortBy":{"date":1} to the stage`)
	case single && s.sortPath == "":
		return errs.Errorf(errs.Invalid, "$setWindowFields: %s requires a sortBy with exactly one field", op)
	}
	return nil
}

// readsNoDocument reports whether an expression reads nothing of the
// document: no field path and no $$ROOT or $$CURRENT.
func readsNoDocument(v value.Value) bool {
	switch v.Kind() {
	case value.String:
		s := v.Str()
		if strings.HasPrefix(s, "$$") {
			name, _, _ := strings.Cut(s[2:], ".")
			return name != "ROOT" && name != "CURRENT"
		}
		return !strings.HasPrefix(s, "$")
	case value.Array:
		for _, e := range v.Array() {
			if !readsNoDocument(e) {
				return false
			}
		}
	case value.Object:
		for _, f := range v.Fields() {
			if f.Key == "$literal" {
				continue
			}
			if !readsNoDocument(f.Value) {
				return false
			}
		}
	}
	return true
}

package agg

import (
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $sort: sorts the whole input. Documents with equal keys are ordered by
// _id, as find's sort does (MongoDB leaves their order unspecified), then
// kept in input order. Followed by $limit, it keeps only the documents the
// limit will pass.

type sortStage struct {
	spec  *value.SortSpec
	limit int64 // 0: no limit
	coll  *collation.Collation
}

func compileSortStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	s, err := value.CompileSortSpec("$sort", spec)
	if err != nil {
		return nil, err
	}
	return &sortStage{spec: s, coll: c.Collation}, nil
}

// keyDoc is what the sort keys are read from: doc itself, or with a
// collation, the top-level fields the keys read with their strings
// mapped to collation keys (and _id, for ties, as it is unless a key
// reads it).
func (s *sortStage) keyDoc(doc value.Value) value.Value {
	if s.coll == nil || doc.Kind() != value.Object {
		return doc
	}
	fields := []value.Field{{Key: "_id", Value: doc.Get("_id")}}
	for i := range s.spec.Len() {
		path, _ := s.spec.Key(i)
		first, _, _ := strings.Cut(path, ".")
		if first == "_id" {
			fields[0].Value = s.coll.Map(fields[0].Value)
			continue
		}
		fields = append(fields, value.Field{Key: first, Value: s.coll.Map(doc.Get(first))})
	}
	return value.ObjectValue(fields)
}

type sortItem struct {
	doc  value.Value
	keys []value.SortVal
	size int64
}

func (s *sortStage) run(r *runState, in Source) Source {
	if s.limit == 0 && r.opts.SpillDir != "" {
		return s.runSpilling(r, in)
	}
	return bufferedSource(in, func() ([]value.Value, error) {
		items, err := s.sorted(r, in)
		docs := make([]value.Value, len(items))
		for i, it := range items {
			docs[i] = it.doc
		}
		return docs, err
	})
}

func (s *sortStage) sorted(r *runState, in Source) ([]sortItem, error) {
	b := r.budget("$sort")
	var items []sortItem
	err := r.drain(in, func(doc value.Value) error {
		it := sortItem{doc, s.spec.Keys(s.keyDoc(doc)), value.Size(doc)}
		items = append(items, it)
		if s.limit > 0 && int64(len(items)) >= 2*s.limit+64 {
			var err error
			if items, err = s.truncate(r, b, items); err != nil {
				return err
			}
		}
		return b.grow(it.size)
	})
	if err != nil {
		return nil, err
	}
	if err := s.sort(r, items); err != nil {
		return nil, err
	}
	if s.limit > 0 && int64(len(items)) > s.limit {
		items = items[:s.limit]
	}
	return items, nil
}

func (s *sortStage) sort(r *runState, items []sortItem) error {
	return expr.SortStable(r.ctx, items, func(a, b sortItem) int {
		if c := s.spec.CompareKeys(a.keys, b.keys); c != 0 {
			return c
		}
		return value.Compare(a.doc.Get("_id"), b.doc.Get("_id"))
	})
}

// truncate sorts items and drops those past the limit.
func (s *sortStage) truncate(r *runState, b *budget, items []sortItem) ([]sortItem, error) {
	if err := s.sort(r, items); err != nil {
		return nil, err
	}
	for _, it := range items[s.limit:] {
		b.used -= it.size
	}
	clear(items[s.limit:])
	return items[:s.limit], nil
}

// runSpilling sorts in memory up to MaxMemory, and past it goes on as an
// external sort (spill.go): every document with its key
// (value.SortSpec.AppendKey, which breaks ties by _id as sort does), read
// back in order. The spill is stable, as the sort in memory is.
func (s *sortStage) runSpilling(r *runState, in Source) Source {
	var out []value.Value
	var sp *spilled
	started := false
	src := &funcSource{next: func() (value.Value, bool, error) {
		if !started {
			started = true
			var err error
			if out, sp, err = s.fill(r, in); err != nil {
				return value.Value{}, false, err
			}
		}
		if sp != nil {
			ok := sp.next()
			return sp.doc, ok, sp.err
		}
		if len(out) == 0 {
			return value.Value{}, false, nil
		}
		d := out[0]
		out = out[1:]
		return d, true, nil
	}}
	src.onClose = func() error {
		if sp != nil {
			sp.it.Close()
		}
		return in.Close()
	}
	return src
}

// fill reads the input: sorted in memory when it fits, else spilled.
func (s *sortStage) fill(r *runState, in Source) ([]value.Value, *spilled, error) {
	b := r.budget("$sort")
	var items []sortItem
	var sp *spiller
	add := func(doc value.Value) error {
		sp.key = s.spec.AppendKey(sp.key[:0], s.keyDoc(doc))
		return sp.add(sp.key, doc)
	}
	err := r.drain(in, func(doc value.Value) error {
		if sp != nil {
			return add(doc)
		}
		it := sortItem{doc, s.spec.Keys(s.keyDoc(doc)), value.Size(doc)}
		if b.used+it.size <= b.max {
			b.used += it.size
			items = append(items, it)
			return nil
		}
		sp = r.spiller()
		for _, it := range items {
			if err := add(it.doc); err != nil {
				return err
			}
		}
		items = nil
		return add(doc)
	})
	if err != nil {
		if sp != nil {
			sp.s.Close()
		}
		return nil, nil, err
	}
	if sp == nil {
		if err := s.sort(r, items); err != nil {
			return nil, nil, err
		}
		out := make([]value.Value, len(items))
		for i, it := range items {
			out[i] = it.doc
		}
		return out, nil, nil
	}
	it, err := sp.s.Sort()
	if err != nil {
		return nil, nil, spillError(err)
	}
	return nil, &spilled{it: it}, nil
}

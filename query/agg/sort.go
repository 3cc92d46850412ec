package agg

import (
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
}

func compileSortStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	s, err := value.CompileSortSpec("$sort", spec)
	if err != nil {
		return nil, err
	}
	return &sortStage{spec: s}, nil
}

type sortItem struct {
	doc  value.Value
	keys []value.SortVal
	size int64
}

func (s *sortStage) run(r *runState, in Source) Source {
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
		it := sortItem{doc, s.spec.Keys(doc), value.Size(doc)}
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

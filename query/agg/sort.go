package query

import (
	"slices"
)

// $sort: sorts the whole input. Documents with equal keys are ordered by
// _id, as find's sort does (MongoDB leaves their order unspecified), then
// kept in input order. Followed by $limit, it keeps only the documents the
// limit will pass.

type sortStage struct {
	spec  *sortSpec
	limit int64 // 0: no limit
}

func compileSortStage(_ *exprCompiler, spec Value, _ pipeWhere) (stage, error) {
	s, err := compileSortSpec("$sort", spec)
	if err != nil {
		return nil, err
	}
	return &sortStage{spec: s}, nil
}

type sortItem struct {
	doc  Value
	keys []sortVal
	size int64
}

func (s *sortStage) run(r *runState, in Source) Source {
	return bufferedSource(in, func() ([]Value, error) {
		items, err := s.sorted(r, in)
		docs := make([]Value, len(items))
		for i, it := range items {
			docs[i] = it.doc
		}
		return docs, err
	})
}

func (s *sortStage) sorted(r *runState, in Source) ([]sortItem, error) {
	b := r.budget("$sort")
	var items []sortItem
	err := r.drain(in, func(doc Value) error {
		it := sortItem{doc, s.spec.keys(doc), valueSize(doc)}
		items = append(items, it)
		if s.limit > 0 && int64(len(items)) >= 2*s.limit+64 {
			items = s.truncate(b, items)
		}
		return b.grow(it.size)
	})
	if err != nil {
		return nil, err
	}
	s.sort(items)
	if s.limit > 0 && int64(len(items)) > s.limit {
		items = items[:s.limit]
	}
	return items, nil
}

func (s *sortStage) sort(items []sortItem) {
	slices.SortStableFunc(items, func(a, b sortItem) int {
		if c := s.spec.compareKeys(a.keys, b.keys); c != 0 {
			return c
		}
		return Compare(a.doc.Get("_id"), b.doc.Get("_id"))
	})
}

// truncate sorts items and drops those past the limit.
func (s *sortStage) truncate(b *budget, items []sortItem) []sortItem {
	s.sort(items)
	for _, it := range items[s.limit:] {
		b.used -= it.size
	}
	clear(items[s.limit:])
	return items[:s.limit]
}

package changes

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// ScanAt returns the documents of a collection as they were at a
// revision, in _id order, as a agg.Source. It reads the current
// documents and undoes, lazily per document, the journal records after
// the revision: only documents touched since differ, so the cost is one
// scan plus the records after the revision.
func ScanAt(ctx context.Context, tx *store.Tx, coll string, rev Revision) (agg.Source, error) {
	u, err := undoAfter(ctx, tx, rev.LSN, coll)
	if err != nil {
		return nil, err
	}
	c, err := tx.Collection(coll)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	existed, known := u.colls[coll]
	if !known {
		existed = c != nil
	}
	if !existed {
		if c == nil && len(u.colls) == 0 {
			return nil, err // never existed: the store's own error, with its did-you-mean
		}
		return nil, wrap(errs.NotFound, ErrNotFound, "collection `%s` did not exist at revision %s (lsn %d)", coll, rev.Spec, rev.LSN).
			WithHint("pick a later revision; `omgdb history %s --coll %s` lists its changes", tx.DB().Path(), coll)
	}
	src := &atSource{ctx: ctx, over: u.sorted()}
	if c != nil {
		src.cur = c.Scan()
	}
	return src, nil
}

// FindAt is ScanAt with q applied: filter, sort, skip, limit and
// projection, exactly as a find now would apply them.
func FindAt(ctx context.Context, tx *store.Tx, coll string, rev Revision, q store.Query) (agg.Source, error) {
	src, err := ScanAt(ctx, tx, coll, rev)
	if err != nil {
		return nil, err
	}
	return store.FindIn(ctx, src, q), nil
}

// CountAt counts the documents of coll matching filter (nil: all) at rev.
func CountAt(ctx context.Context, tx *store.Tx, coll string, rev Revision, filter *query.Filter) (int64, error) {
	src, err := FindAt(ctx, tx, coll, rev, store.Query{Filter: filter})
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var n int64
	for src.Next() {
		n++
	}
	return n, src.Err()
}

// atSource merges the current documents with the states at the revision
// of the documents touched since, both in key order.
type atSource struct {
	ctx     context.Context
	cur     *store.Cursor // nil when the collection does not exist now
	curKey  []byte        // the cursor's current key; nil when it must advance
	curDone bool
	over    []*docState // touched since the revision, by key
	i       int
	doc     value.Value
	err     error
	n       int
}

func (s *atSource) Next() bool {
	for s.err == nil {
		if s.n++; s.n%1024 == 0 {
			if s.err = s.ctx.Err(); s.err != nil {
				return false
			}
		}
		s.advanceCursor()
		cmp := 1 // which comes first: -1 the past state, +1 the current document
		switch {
		case s.i == len(s.over) && s.curDone:
			return false
		case s.i == len(s.over):
		case s.curDone:
			cmp = -1
		default:
			o := s.over[s.i]
			cmp = strings.Compare(o.key[keyStart(o):], string(s.curKey))
		}
		if cmp > 0 {
			s.doc, s.curKey = s.cur.Doc(), nil
			if s.err = s.cur.Err(); s.err != nil {
				return false
			}
			return true
		}
		if cmp == 0 {
			s.curKey = nil // the current version is replaced by the past one
		}
		o := s.over[s.i]
		s.i++
		if !o.state.IsMissing() {
			s.doc = o.state
			return true
		}
	}
	return false
}

// keyStart returns where the _id key starts in a docKey.
func keyStart(o *docState) int { return len(o.coll) + 1 }

func (s *atSource) advanceCursor() {
	if s.curKey != nil || s.curDone {
		return
	}
	if s.cur == nil || !s.cur.Next() {
		s.curDone = true
		if s.cur != nil {
			s.err = s.cur.Err()
		}
		return
	}
	s.curKey = bytes.Clone(s.cur.Key())
}

func (s *atSource) Doc() value.Value { return s.doc }
func (s *atSource) Err() error       { return s.err }
func (s *atSource) Close() error {
	if s.cur != nil {
		return s.cur.Close()
	}
	return nil
}

// AggregateAt runs a compiled pipeline over coll as it was at rev; $lookup
// and $unionWith read the other collections as of the same revision.
func AggregateAt(ctx context.Context, tx *store.Tx, coll string, rev Revision, p *agg.Pipeline) (agg.Source, error) {
	src, err := ScanAt(ctx, tx, coll, rev)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, src, envAt{tx: tx, rev: rev}), nil
}

// envAt is the environment of a pipeline run at a revision.
type envAt struct {
	tx  *store.Tx
	rev Revision
}

func (e envAt) Collection(ctx context.Context, name string) (agg.Source, error) {
	return ScanAt(ctx, e.tx, name, e.rev)
}

package store

import (
	"bytes"
	"context"
	"runtime"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// entryScan walks the entries of a plan's ranges, in order (or in reverse
// order), skipping those whose checked components fall outside their
// bounds. It counts the keys it examines.
type entryScan struct {
	p       *Plan
	cur     *bolt.Cursor
	ri      int  // current range
	started bool // positioned within range ri
	key     []byte
	idKey   []byte
	keys    int64 // keys examined
	comps   [][]byte
	err     error
}

func newEntryScan(p *Plan) *entryScan {
	return &entryScan{p: p, cur: p.bucket.Cursor(), comps: make([][]byte, len(p.spec.Fields))}
}

// next advances to the next entry within bounds.
func (s *entryScan) next() bool {
	for s.ri < len(s.p.ranges) {
		r := s.p.ranges[s.ri]
		if s.p.reverse {
			r = s.p.ranges[len(s.p.ranges)-1-s.ri]
		}
		k := s.step(r)
		if k == nil {
			s.ri, s.started = s.ri+1, false
			continue
		}
		s.keys++
		if !isEntry(k) {
			continue
		}
		if !s.split(k) {
			s.err = wrap(errs.IO, ErrCorrupt, "index `%s` holds a malformed key %x", s.p.Index, k)
			return false
		}
		if s.inBounds() {
			s.key = k
			return true
		}
	}
	return false
}

// step moves the cursor within r and returns the key, or nil past r.
func (s *entryScan) step(r keyRange) []byte {
	var k []byte
	switch {
	case !s.started && !s.p.reverse:
		k, _ = s.cur.Seek(r.lo)
	case !s.started:
		if r.hi == nil {
			k, _ = s.cur.Last()
		} else if k, _ = s.cur.Seek(r.hi); k == nil {
			k, _ = s.cur.Last()
		} else {
			k, _ = s.cur.Prev()
		}
		for k != nil && r.hi != nil && bytes.Compare(k, r.hi) >= 0 {
			k, _ = s.cur.Prev()
		}
	case !s.p.reverse:
		k, _ = s.cur.Next()
	default:
		k, _ = s.cur.Prev()
	}
	s.started = true
	if k == nil {
		return nil
	}
	if s.p.reverse {
		if bytes.Compare(k, r.lo) < 0 {
			return nil
		}
	} else if r.hi != nil && bytes.Compare(k, r.hi) >= 0 {
		return nil
	}
	return k
}

// split cuts an entry key into its field components and _id key.
func (s *entryScan) split(k []byte) bool {
	if s.p.idIndex {
		s.comps[0], s.idKey = k, k
		return true
	}
	off := 0
	for i, f := range s.p.spec.Fields {
		n := value.KeyLen(k[off:], f.Desc)
		if n < 0 {
			return false
		}
		s.comps[i] = k[off : off+n]
		off += n
	}
	s.idKey = k[off:]
	return len(s.idKey) > 0
}

func (s *entryScan) inBounds() bool {
	for _, i := range s.p.check {
		ok := false
		for _, sp := range s.p.spans[i] {
			if sp.contains(s.comps[i]) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// groupLen returns the length of the entry's first n components.
func (s *entryScan) groupLen(n int) int {
	l := 0
	for i := 0; i < n; i++ {
		l += len(s.comps[i])
	}
	return l
}

// countCovered counts the entries in bounds, for a covered count.
func (p *Plan) countCovered(ctx context.Context) (int64, int64, error) {
	s := newEntryScan(p)
	var n int64
	if len(p.check) == 0 && len(p.spec.Fields) == 1 {
		return p.countRanges(ctx)
	}
	for s.next() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return n, s.keys, ctx.Err()
		}
	}
	return n, s.keys, s.err
}

// countRanges counts the entries of the ranges without splitting keys.
func (p *Plan) countRanges(ctx context.Context) (int64, int64, error) {
	var n int64
	c := p.bucket.Cursor()
	for _, r := range p.ranges {
		for k, _ := c.Seek(r.lo); k != nil && (r.hi == nil || bytes.Compare(k, r.hi) < 0); k, _ = c.Next() {
			if n++; n%8192 == 0 && ctx.Err() != nil {
				return n, n, ctx.Err()
			}
		}
	}
	return n, n, nil
}

// ixSource streams the documents of an index plan that match the filter.
// Without a sort from the index it returns them in _id order: when the
// index order is not _id order, it first collects the matching _id keys
// and sorts them.
type ixSource struct {
	ctx      context.Context
	c        *Collection
	p        *Plan
	filter   *query.Filter
	scan     *entryScan
	ordered  bool     // stream in index order (index sort, or any order will do)
	ids      [][]byte // the _id keys to fetch, in order
	pos      int
	loaded   bool
	seen     map[string]struct{}
	match    *query.JSONMatcher // the filter's, made on first use
	fetch    *fetcher           // fetches the sorted ids on several goroutines, when many
	cur      *bolt.Cursor       // reads the documents by _id, made on first use
	js       []byte             // the current document's JSON, valid until Next
	doc      value.Value        // the current document, once decoded
	decoded  bool
	docs     int64 // documents fetched
	err      error
	groupKey []byte // the sort components of the current group
	pending  bool   // the scan stands on an entry not yet read into a group
	scanDone bool
}

func (c *Collection) indexSource(ctx context.Context, p *Plan, filter *query.Filter, anyOrder bool) *ixSource {
	s := &ixSource{ctx: ctx, c: c, p: p, filter: filter, scan: newEntryScan(p)}
	s.ordered = anyOrder && p.sortGroup == 0
	if p.multikey {
		s.seen = map[string]struct{}{}
	}
	return s
}

func (s *ixSource) Next() bool {
	if !s.loaded && s.sortsIDs() {
		s.loadIDs()
		if s.err == nil && len(s.ids) >= parallelFetchMin && runtime.GOMAXPROCS(0) > 1 && s.c.tx.db.fetchesInParallel() {
			s.fetch = newFetcher(s)
		}
	}
	if s.fetch != nil {
		s.js, s.decoded = nil, false
		var ok bool
		s.js, ok = s.fetch.next()
		return ok
	}
	for s.err == nil {
		id, ok := s.nextID()
		if !ok {
			return false
		}
		if s.docs++; s.ctx.Err() != nil {
			s.err = s.ctx.Err()
			return false
		}
		if s.cur == nil {
			s.cur = s.c.docs.Cursor()
		}
		raw := seekValue(s.cur, id)
		if raw == nil {
			s.err = s.missing(id)
			return false
		}
		if s.js, s.err = docJSON(raw); s.err != nil {
			return false
		}
		s.decoded = false
		if s.matches() {
			return true
		}
	}
	return false
}

// missing is the error for an index entry whose document is not there.
func (s *ixSource) missing(id []byte) error {
	return wrap(errs.IO, ErrCorrupt, "index `%s` of collection `%s` points to a missing document (key %x)", s.p.Index, s.c.name, id)
}

// newMatcher returns a matcher of the filter on stored JSON, nil when
// there is no filter.
func (s *ixSource) newMatcher() *query.JSONMatcher {
	if s.filter == nil {
		return nil
	}
	return s.filter.JSONMatcherContext(s.ctx)
}

// matches reports whether the current document matches the filter, on
// its stored JSON as a collection scan matches.
func (s *ixSource) matches() bool {
	if s.filter == nil {
		return true
	}
	if s.match == nil {
		s.match = s.newMatcher()
	}
	ok, err := s.match.Match(s.js)
	if err != nil {
		s.err = matchFailed(err)
	}
	return ok && err == nil
}

// fetchFrom reads the documents of ids from docs, in order, and keeps
// those m matches (every one when m is nil). It stops at the first
// error, keeping the documents before it.
func (s *ixSource) fetchFrom(docs *bolt.Bucket, m *query.JSONMatcher, ids [][]byte) *fetched {
	out := &fetched{docs: make([][]byte, 0, len(ids))}
	cur := docs.Cursor()
	for _, id := range ids {
		raw := seekValue(cur, id)
		if raw == nil {
			out.err = s.missing(id)
			return out
		}
		js, err := docJSON(raw)
		if err != nil {
			out.err = err
			return out
		}
		if m != nil {
			ok, err := m.Match(js)
			if err != nil {
				out.err = matchFailed(err)
				return out
			}
			if !ok {
				continue
			}
		}
		out.docs = append(out.docs, js)
	}
	return out
}

// seekValue returns the value of key, nil when there is none. It is
// Bucket.Get on a cursor used again for every key: Get makes a cursor
// whose path through the tree grows anew on each call.
func seekValue(cur *bolt.Cursor, key []byte) []byte {
	k, v := cur.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// sortsIDs reports whether the scan collects the _id keys in bounds and
// sorts them before fetching (see nextID).
func (s *ixSource) sortsIDs() bool {
	return !(s.ordered || s.p.idOrder && !s.p.reverse && s.p.sortGroup == 0) && s.p.sortGroup == 0
}

// nextID returns the next _id key to fetch.
func (s *ixSource) nextID() ([]byte, bool) {
	switch {
	case s.ordered || s.p.idOrder && !s.p.reverse && s.p.sortGroup == 0:
		for s.scan.next() {
			if s.dedupe(s.scan.idKey) {
				return s.scan.idKey, true
			}
		}
		s.err = s.scan.err
		return nil, false
	case s.p.sortGroup > 0:
		return s.nextInGroup()
	}
	if !s.loaded {
		s.loadIDs()
	}
	if s.pos >= len(s.ids) {
		return nil, false
	}
	s.pos++
	return s.ids[s.pos-1], true
}

func (s *ixSource) dedupe(id []byte) bool {
	if s.seen == nil {
		return true
	}
	if _, dup := s.seen[string(id)]; dup {
		return false
	}
	s.seen[string(id)] = struct{}{}
	return true
}

// loadIDs collects the _id keys of every entry in bounds, sorted and
// without duplicates.
func (s *ixSource) loadIDs() {
	s.loaded = true
	var keys []byte // the keys one after another, copied out of the index
	var ends []int
	for s.scan.next() {
		keys = append(keys, s.scan.idKey...)
		ends = append(ends, len(keys))
		if len(ends)%4096 == 0 && s.ctx.Err() != nil {
			s.err = s.ctx.Err()
			return
		}
	}
	if s.err = s.scan.err; s.err != nil {
		return
	}
	s.ids = make([][]byte, len(ends))
	for i, start := 0, 0; i < len(ends); i++ {
		s.ids[i], start = keys[start:ends[i]:ends[i]], ends[i]
	}
	slices.SortFunc(s.ids, bytes.Compare)
	s.ids = slices.CompactFunc(s.ids, bytes.Equal)
}

// nextInGroup returns _id keys in index order by group of equal sort
// components, each group in _id order.
func (s *ixSource) nextInGroup() ([]byte, bool) {
	for {
		if s.pos < len(s.ids) {
			s.pos++
			if id := s.ids[s.pos-1]; s.dedupe(id) {
				return id, true
			}
			continue
		}
		if !s.readGroup() {
			return nil, false
		}
	}
}

// readGroup reads the next group of entries into ids.
func (s *ixSource) readGroup() bool {
	s.ids, s.pos = s.ids[:0], 0
	if !s.pending {
		if s.scanDone || !s.scan.next() {
			s.err = s.scan.err
			return false
		}
	}
	s.pending = false
	s.groupKey = append(s.groupKey[:0], s.scan.key[:s.scan.groupLen(s.p.sortGroup)]...)
	for {
		s.ids = append(s.ids, append([]byte(nil), s.scan.idKey...))
		if !s.scan.next() {
			s.err, s.scanDone = s.scan.err, true
			break
		}
		if !bytes.Equal(s.scan.key[:s.scan.groupLen(s.p.sortGroup)], s.groupKey) {
			s.pending = true
			break
		}
	}
	slices.SortFunc(s.ids, bytes.Compare)
	return true
}

// Doc returns the current document, decoded on first use.
func (s *ixSource) Doc() value.Value {
	if !s.decoded {
		s.decoded = true
		var err error
		if s.doc, err = value.Parse(s.js); err != nil {
			s.doc, s.err = value.Value{}, corruptValue(err.Error())
		}
	}
	return s.doc
}

// RawJSON implements RawSource.
func (s *ixSource) RawJSON() []byte {
	if s.err != nil {
		return nil
	}
	return s.js
}

func (s *ixSource) Err() error { return s.err }

// Close stops the goroutines fetching documents, if any.
func (s *ixSource) Close() error {
	if s.fetch != nil {
		s.fetch.close()
		s.fetch = nil
	}
	return nil
}

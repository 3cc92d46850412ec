package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// SetBuildProgress sets a function that index builds in this collection
// call, from time to time, with the documents done and the total. It is
// called in the goroutine of the transaction.
func (c *Collection) SetBuildProgress(fn func(done, total int64)) { c.buildProgress = fn }

// buildEntry locates one entry (index key, then _id key) in a build arena.
// pre and pre2 hold the entry's first 16 bytes, big-endian and
// zero-padded, so that most comparisons of the sort need not read the
// arena (a number's key is 9 bytes).
type buildEntry struct {
	pre   uint64
	pre2  uint64
	off   uint32
	fkLen uint16 // the index key's length; the _id key follows it
	n     uint16 // the entry's length (at most MaxIndexKeySize)
}

// buildPart is what one worker of a build collects for one index.
type buildPart struct {
	arena   []byte
	entries []buildEntry
	mask    uint64
	docs    int64 // documents done
	total   int64 // documents expected, to size the arena
}

// buildWorker is one worker of a build: a part for each index, and the
// first error it met.
type buildWorker struct {
	parts []*buildPart
	err   error
	errAt int64 // the position of the document that failed
}

// buildBatch is a run of documents handed to a worker: their keys (the
// encoded _id) and stored values, which alias the transaction's memory
// and stay valid while the build writes nothing.
type buildBatch struct {
	first      int64 // position of the first document in the scan
	keys, vals [][]byte
}

const buildBatchDocs = 512

// Build indexes every document (see buildBTrees).
func (btreeKind) Build(ix *Index, docs *Cursor) error {
	return buildBTrees([]*Index{ix}, docs)
}

// buildBTrees builds several B-tree indexes in one scan of the documents:
// workers (two when there are two cores) decode only the indexed paths of
// each document, once for all the indexes, and encode its entries; each
// sorts what it collected; for each index the sorted runs are merged,
// checked for uniqueness on neighbours, and written in key order, which
// fills the index's pages completely. The documents are read in the
// transaction's goroutine; nothing is written until every worker is done,
// and nothing until every unique index is checked.
func buildBTrees(ixs []*Index, docs *Cursor) error {
	ts := make([]*btree, len(ixs))
	for i, ix := range ixs {
		t, err := btreeOf(ix)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	workers, err := collect(ts, docs)
	if err != nil {
		return err
	}
	type built struct {
		arena   []byte
		entries []buildEntry
		mask    uint64
	}
	out := make([]built, len(ts))
	for i, t := range ts {
		parts := make([]*buildPart, len(workers))
		for w, wk := range workers {
			parts[w] = wk.parts[i]
			out[i].mask |= wk.parts[i].mask
			wk.parts[i] = nil
		}
		arena, entries, err := mergeParts(t.ix, parts)
		if err != nil {
			return err
		}
		if t.spec.Unique {
			if err := t.checkSorted(entries, func(e buildEntry) []byte { return arena[e.off : e.off+uint32(e.n)] }); err != nil {
				return err
			}
		}
		out[i].arena, out[i].entries = arena, entries
	}
	for i, t := range ts {
		arena := out[i].arena
		b := t.ix.bucket
		b.FillPercent = 1.0
		for _, e := range out[i].entries {
			if err := b.Put(arena[e.off:e.off+uint32(e.n)], emptyValue); err != nil {
				return err
			}
		}
		out[i] = built{mask: out[i].mask}
		if err := t.noteMultikey(out[i].mask); err != nil {
			return err
		}
	}
	return nil
}

// collect scans the documents and has the workers encode and sort the
// entries of every index. The error is that of the first document (in
// scan order) that one of the indexes cannot hold.
func collect(ts []*btree, docs *Cursor) ([]*buildWorker, error) {
	n := min(2, runtime.GOMAXPROCS(0))
	coll := ts[0].ix.coll
	total, progress := coll.count, coll.buildProgress
	var paths []string
	for _, t := range ts {
		for _, f := range t.spec.Fields {
			paths = append(paths, f.Path)
		}
	}
	fields := value.NewFieldSet(paths)
	work := make(chan *buildBatch, 2*n)
	free := make(chan *buildBatch, 2*n+2)
	workers := make([]*buildWorker, n)
	var wg sync.WaitGroup
	for i := range workers {
		w := &buildWorker{errAt: -1}
		for range ts {
			p := &buildPart{total: total/int64(n) + 1}
			if total > 0 {
				p.entries = make([]buildEntry, 0, total/int64(n)+1024)
			}
			w.parts = append(w.parts, p)
		}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ts, fields, work, free)
		}()
	}
	var done int64
	b := &buildBatch{}
	for docs.Next() {
		b.keys, b.vals = append(b.keys, docs.key), append(b.vals, docs.raw)
		if len(b.keys) == buildBatchDocs {
			work <- b
			if done += buildBatchDocs; progress != nil && done%4096 == 0 {
				progress(done, total)
			}
			select {
			case b = <-free:
				b.keys, b.vals = b.keys[:0], b.vals[:0]
			default:
				b = &buildBatch{}
			}
			b.first = done
		}
	}
	if len(b.keys) > 0 {
		done += int64(len(b.keys))
		work <- b
	}
	close(work)
	wg.Wait()
	if err := docs.Err(); err != nil {
		return nil, err
	}
	var first *buildWorker
	for _, w := range workers {
		if w.err != nil && (first == nil || w.errAt < first.errAt) {
			first = w
		}
	}
	if first != nil {
		return nil, first.err
	}
	if progress != nil {
		progress(done, total)
	}
	return workers, nil
}

// run encodes the entries of the batches it receives into w's parts,
// then sorts them. After an error it only drains its batches.
func (w *buildWorker) run(ts []*btree, fields *value.FieldSet, work <-chan *buildBatch, free chan<- *buildBatch) {
	gens := make([]*keyGen, len(ts))
	for i, t := range ts {
		gens[i] = newKeyGen(t.spec)
	}
	var keys keySet
	for b := range work {
		for i := range b.keys {
			if w.err != nil {
				break
			}
			if err := w.buildDoc(ts, gens, &keys, fields, b.keys[i], b.vals[i]); err != nil {
				w.err, w.errAt = err, b.first+int64(i)
			}
		}
		select {
		case free <- b:
		default:
		}
	}
	if w.err == nil {
		for _, p := range w.parts {
			sortEntries(p.arena, p.entries)
		}
	}
}

// buildDoc decodes one document and appends its entries in every index.
func (w *buildWorker) buildDoc(ts []*btree, gens []*keyGen, keys *keySet, fields *value.FieldSet, idKey, raw []byte) error {
	js, err := docJSON(raw)
	if err != nil {
		return err
	}
	doc, err := value.ParseFields(js, fields)
	if err != nil {
		return corruptValue(err.Error())
	}
	for i, t := range ts {
		if err := t.addEntries(w.parts[i], gens[i], keys, js, doc, idKey); err != nil {
			return err
		}
	}
	return nil
}

// addEntries appends the entries of one document to p.
func (t *btree) addEntries(p *buildPart, gen *keyGen, keys *keySet, js []byte, doc value.Value, idKey []byte) error {
	keys.reset()
	m, err := gen.keys(doc, keys)
	if err != nil {
		return t.keyError(wholeDoc(js), err)
	}
	p.mask |= m
	for _, k := range keys.keys {
		n := len(k) + len(idKey)
		if n > MaxIndexKeySize {
			return t.keyError(wholeDoc(js), errs.Errorf(errs.Limit, "its key is %d bytes, over the %d-byte index key limit", n, MaxIndexKeySize).
				WithHint("index a shorter field, or leave this field out of the index"))
		}
		if len(p.arena)+n > 1<<32-1 {
			return errs.Errorf(errs.Limit, "index `%s` is too large to build in one pass (over 4 GiB of keys)", t.ix.Def.Name)
		}
		if len(p.arena)+n > cap(p.arena) {
			p.grow(n)
		}
		off := len(p.arena)
		p.arena = append(append(p.arena, k...), idKey...)
		e := p.arena[off:]
		p.entries = append(p.entries, buildEntry{pre: prefix8(e), pre2: prefix8(e[min(8, len(e)):]), off: uint32(off), fkLen: uint16(len(k)), n: uint16(n)})
	}
	p.docs++
	return nil
}

// grow makes room for n more bytes in the arena, sized from the documents
// done for the documents expected, so that it is not copied at every
// doubling (a large copy also holds up the garbage collector).
func (p *buildPart) grow(n int) {
	want := 2*cap(p.arena) + n
	if p.docs >= 256 && p.docs < p.total {
		want = max(len(p.arena)+n, int(float64(len(p.arena))/float64(p.docs)*float64(p.total)*1.05))
	}
	p.arena = slices.Grow(p.arena, want-len(p.arena))
}

// wholeDoc decodes a document for an error message (it names the _id).
func wholeDoc(js []byte) value.Value {
	doc, _ := value.Parse(js)
	return doc
}

// prefix8 returns the first 8 bytes of b, big-endian, zero-padded.
func prefix8(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var x uint64
	for i := 0; i < 8; i++ {
		x <<= 8
		if i < len(b) {
			x |= uint64(b[i])
		}
	}
	return x
}

// compareEntries orders entries as their bytes.
func compareEntries(arena []byte, a, b buildEntry) int {
	if a.pre != b.pre {
		if a.pre < b.pre {
			return -1
		}
		return 1
	}
	if a.pre2 != b.pre2 {
		if a.pre2 < b.pre2 {
			return -1
		}
		return 1
	}
	return bytes.Compare(arena[a.off:a.off+uint32(a.n)], arena[b.off:b.off+uint32(b.n)])
}

// sortEntries sorts entries as their bytes: a most-significant-byte-first
// radix sort on the 16-byte prefix held in each entry, which needs few
// passes over keys that share long prefixes (an e-mail's key starts with
// its type byte and "user"), and a comparison sort only for entries whose
// prefixes are equal.
func sortEntries(arena []byte, entries []buildEntry) {
	if len(entries) < radixMin {
		sortEntriesCmp(arena, entries)
		return
	}
	radixSort(arena, entries, make([]buildEntry, len(entries)), 0)
}

// radixMin is the size under which a run is sorted by comparisons.
const radixMin = 48

func sortEntriesCmp(arena []byte, entries []buildEntry) {
	slices.SortFunc(entries, func(a, b buildEntry) int { return compareEntries(arena, a, b) })
}

// prefixByte returns byte d (0 to 15) of an entry's 16-byte prefix.
func prefixByte(e *buildEntry, d int) byte {
	if d < 8 {
		return byte(e.pre >> (56 - 8*d))
	}
	return byte(e.pre2 >> (56 - 8*(d-8)))
}

// radixSort sorts es, whose prefixes agree on their first d bytes, by
// their remaining prefix bytes and then their bytes; tmp is scratch space
// as long as es.
func radixSort(arena []byte, es, tmp []buildEntry, d int) {
	for ; d < 16; d++ {
		if len(es) < radixMin {
			sortEntriesCmp(arena, es)
			return
		}
		var count [256]int
		for i := range es {
			count[prefixByte(&es[i], d)]++
		}
		if count[prefixByte(&es[0], d)] == len(es) {
			continue // one byte for all: go on to the next
		}
		var start [256]int
		pos := 0
		for b, n := range count {
			start[b] = pos
			pos += n
		}
		next := start
		for i := range es {
			b := prefixByte(&es[i], d)
			tmp[next[b]] = es[i]
			next[b]++
		}
		copy(es, tmp[:len(es)])
		for b, n := range count {
			if n > 1 {
				lo := start[b]
				radixSort(arena, es[lo:lo+n], tmp[lo:lo+n], d+1)
			}
		}
		return
	}
	sortEntriesCmp(arena, es) // equal prefixes: the arena decides
}

// mergeParts concatenates the workers' arenas and merges their sorted
// entries into one sorted list.
func mergeParts(ix *Index, parts []*buildPart) ([]byte, []buildEntry, error) {
	size, n := 0, 0
	for _, p := range parts {
		size += len(p.arena)
		n += len(p.entries)
	}
	if uint64(size) > 1<<32-1 {
		return nil, nil, errs.Errorf(errs.Limit, "index `%s` is too large to build in one pass (over 4 GiB of keys)", ix.Def.Name)
	}
	if len(parts) == 1 {
		return parts[0].arena, parts[0].entries, nil
	}
	arena := make([]byte, 0, size)
	runs := make([][]buildEntry, len(parts))
	for i, p := range parts {
		base := uint32(len(arena))
		arena = append(arena, p.arena...)
		for j := range p.entries {
			p.entries[j].off += base
		}
		runs[i] = p.entries
		p.arena = nil
	}
	out := make([]buildEntry, 0, n)
	for {
		best := -1
		for i, r := range runs {
			if len(r) > 0 && (best < 0 || compareEntries(arena, r[0], runs[best][0]) < 0) {
				best = i
			}
		}
		if best < 0 {
			return arena, out, nil
		}
		out = append(out, runs[best][0])
		runs[best] = runs[best][1:]
	}
}

// checkSorted finds two neighbouring entries with equal keys.
func (t *btree) checkSorted(entries []buildEntry, at func(buildEntry) []byte) error {
	for i := 1; i < len(entries); i++ {
		a, b := at(entries[i-1]), at(entries[i])
		fk := a[:entries[i-1].fkLen]
		if int(entries[i].fkLen) != len(fk) || !bytes.Equal(b[:len(fk)], fk) {
			continue
		}
		raw := t.ix.coll.docs.Get(b[len(fk):])
		doc, err := decodeDoc(raw)
		if err != nil {
			return err
		}
		return t.duplicate(doc, fk, a[len(fk):])
	}
	return nil
}

// Check recomputes every document's entries and checks that the index
// holds exactly those, and that its multikey flags cover the documents.
func (btreeKind) Check(ix *Index) []string {
	s, err := ParseBTreeSpec(ix.Def)
	if err != nil {
		return []string{err.Error()}
	}
	var flags uint64
	if t, err := btreeOf(ix); err == nil {
		flags = t.multikey
	}
	gen := newKeyGen(s)
	var (
		problems []string
		want     int64
		keys     keySet
		buf      []byte
	)
	c := ix.bucket.Cursor()
	cur := ix.coll.Scan()
	for cur.Next() && len(problems) < 20 {
		doc := cur.Doc()
		if cur.Err() != nil {
			break // verifyCollection reports undecodable documents
		}
		keys.reset()
		mask, err := gen.keys(doc, &keys)
		if err != nil {
			problems = append(problems, fmt.Sprintf("document %s cannot be indexed: %v", doc.Get("_id"), err))
			continue
		}
		if mask&^flags != 0 {
			problems = append(problems, fmt.Sprintf("document %s has an array on a field not flagged multikey", doc.Get("_id")))
		}
		idKey := value.AppendKey(nil, doc.Get("_id"))
		for _, k := range keys.keys {
			want++
			buf = append(append(buf[:0], k...), idKey...)
			if got, _ := c.Seek(buf); !bytes.Equal(got, buf) {
				problems = append(problems, fmt.Sprintf("entry %x of document %s is missing", buf, doc.Get("_id")))
			}
		}
	}
	if got := ix.Entries(); len(problems) == 0 && got != want {
		problems = append(problems, fmt.Sprintf("has %d entries, the documents give %d", got, want))
	}
	return problems
}

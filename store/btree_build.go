package store

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/omgdb/omgdb/query"
)

// SetBuildProgress sets a function that index builds in this collection
// call, from time to time, with the documents done and the total. It is
// called in the goroutine of the transaction.
func (c *Collection) SetBuildProgress(fn func(done, total int64)) { c.buildProgress = fn }

// buildEntry locates one entry in the build arena.
type buildEntry struct {
	off, fkLen, n uint32
}

// Build indexes every document: it collects all entries, sorts them, checks
// uniqueness on neighbours, and writes them in key order, which fills the
// index's pages completely.
func (btreeKind) Build(ix *Index, docs *Cursor) error {
	t, err := btreeOf(ix)
	if err != nil {
		return err
	}
	var (
		arena   []byte
		entries []buildEntry
		mask    uint64
		done    int64
		keys    keySet
	)
	total, progress := ix.coll.count, ix.coll.buildProgress
	// Decode only _id and the indexed paths: the keys read nothing else,
	// and a whole decode cost several times the rest of the build.
	paths := []string{"_id"}
	for _, f := range t.spec.Fields {
		paths = append(paths, f.Path)
	}
	fields := query.NewFieldSet(paths)
	for docs.Next() {
		js, err := docs.JSON()
		if err != nil {
			return err
		}
		doc, err := query.ParseFields(js, fields)
		if err != nil {
			return corruptValue(err.Error())
		}
		keys.reset()
		m, err := t.gen.keys(doc, &keys)
		if err != nil {
			return t.keyError(doc, err)
		}
		mask |= m
		idKey := query.AppendKey(nil, doc.Get("_id"))
		for _, k := range keys.keys {
			if n := len(k) + len(idKey); n > MaxIndexKeySize {
				return t.keyError(doc, query.Errorf(query.Limit, "its key is %d bytes, over the %d-byte index key limit", n, MaxIndexKeySize).
					WithHint("index a shorter field, or leave this field out of the index"))
			}
			entries = append(entries, buildEntry{off: uint32(len(arena)), fkLen: uint32(len(k)), n: uint32(len(k) + len(idKey))})
			arena = append(append(arena, k...), idKey...)
		}
		if done++; progress != nil && done%4096 == 0 {
			progress(done, total)
		}
	}
	if err := docs.Err(); err != nil {
		return err
	}
	if uint64(len(arena)) > 1<<32-1 {
		return query.Errorf(query.Limit, "index `%s` is too large to build in one pass (over 4 GiB of keys)", ix.Def.Name)
	}
	at := func(e buildEntry) []byte { return arena[e.off : e.off+e.n] }
	slices.SortFunc(entries, func(a, b buildEntry) int { return bytes.Compare(at(a), at(b)) })
	if t.spec.Unique {
		if err := t.checkSorted(entries, at); err != nil {
			return err
		}
	}
	ix.bucket.FillPercent = 1.0
	for _, e := range entries {
		if err := ix.bucket.Put(at(e), emptyValue); err != nil {
			return err
		}
	}
	if progress != nil {
		progress(done, total)
	}
	return t.noteMultikey(mask)
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
		idKey := query.AppendKey(nil, doc.Get("_id"))
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

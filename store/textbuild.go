package store

import (
	"bytes"
	"encoding/binary"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// TextBuild is the whole content of a full-text index, built in memory to
// replace an index's data (TextIndex.Write) or to check it
// (TextIndex.Compare). Its entries are packed in one byte arena (about 60
// bytes per posting) rather than a map, and sorted by key once.
type TextBuild struct {
	arena  []byte
	ents   []entryRef
	sorted bool
}

type entryRef struct {
	off        int
	klen, vlen int32
}

// AddPosting adds the posting of term in a document's field.
func (b *TextBuild) AddPosting(field, term string, docKey []byte, length uint64, pos []uint32) {
	b.add(postingKey(field, term, docKey), encodePosting(length, pos))
}

// AddDoc adds a document's field lengths and _id.
func (b *TextBuild) AddDoc(docKey []byte, lengths []uint64, id []byte) {
	b.add(docRecordKey(docKey), encodeDocRecord(lengths, id))
}

// AddDocFreq adds the document frequency of a term.
func (b *TextBuild) AddDocFreq(field, term string, n uint64) {
	b.add(termKey(field, term), binary.AppendUvarint(nil, n))
}

// SetStats sets the statistics; call it once.
func (b *TextBuild) SetStats(st []FieldStats) {
	b.add(keyTextStats, encodeTextStats(st))
}

func (b *TextBuild) add(k, v []byte) {
	b.ents = append(b.ents, entryRef{len(b.arena), int32(len(k)), int32(len(v))})
	b.arena = append(append(b.arena, k...), v...)
	b.sorted = false
}

func (b *TextBuild) key(i int) []byte {
	e := b.ents[i]
	return b.arena[e.off : e.off+int(e.klen)]
}

func (b *TextBuild) val(i int) []byte {
	e := b.ents[i]
	return b.arena[e.off+int(e.klen) : e.off+int(e.klen)+int(e.vlen)]
}

// sort puts the entries in key order, once.
func (b *TextBuild) sort() {
	if b.sorted {
		return
	}
	sort.Slice(b.ents, func(i, j int) bool {
		x, y := b.ents[i], b.ents[j]
		return bytes.Compare(b.arena[x.off:x.off+int(x.klen)], b.arena[y.off:y.off+int(y.klen)]) < 0
	})
	b.sorted = true
}

// Write replaces the index's data with the build's, writing in key order
// (bbolt splits pages only at commit, so random inserts into a new bucket
// in one transaction cost quadratic time, while ordered inserts append).
func (t TextIndex) Write(b *TextBuild) error {
	if err := t.Clear(); err != nil {
		return err
	}
	b.sort()
	for i := range b.ents {
		if err := t.ix.bucket.Put(b.key(i), b.val(i)); err != nil {
			return err
		}
	}
	return nil
}

// Compare compares the index's stored data with the build's, entry by
// entry, and calls problem for each difference.
func (t TextIndex) Compare(b *TextBuild, problem func(format string, args ...any)) {
	b.sort()
	i := 0
	c := t.ix.bucket.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		for i < len(b.ents) && bytes.Compare(b.key(i), k) < 0 {
			problem("missing entry %q", b.key(i))
			i++
		}
		switch {
		case i == len(b.ents) || !bytes.Equal(b.key(i), k):
			problem("unexpected entry %q", k)
			continue
		case !bytes.Equal(b.val(i), v):
			problem("entry %q is %x, want %x", k, v, b.val(i))
		}
		i++
	}
	for ; i < len(b.ents); i++ {
		problem("missing entry %q", b.key(i))
	}
}

// verifyText checks the layout of a full-text index's data: every key in
// one of the index's areas, every value readable, every posting complete,
// and every document frequency equal to its term's number of postings.
func verifyText(b *bolt.Bucket, problem func(string, ...any)) {
	postings := map[string]uint64{} // field 0 term -> postings
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case v == nil:
			problem("unexpected nested bucket %q", k)
		case bytes.Equal(k, keyTextStats):
			if !uvarints(v, -1) {
				problem("statistics record is damaged")
			}
		case k[0] == prefixTerm:
			if n, m := binary.Uvarint(v); m != len(v) || n == 0 || bytes.IndexByte(k, 0) < 0 {
				problem("term entry %q is damaged", k)
			}
		case k[0] == prefixPosting:
			ft, ok := postingTerm(k)
			if !ok || !postingValid(v) {
				problem("posting %q is damaged", k)
				continue
			}
			postings[string(ft)]++
		case k[0] == prefixDoc:
			if len(k) < 2 {
				problem("document entry %q is damaged", k)
			}
		default:
			problem("unknown entry %q", k)
		}
	}
	for k, v := c.Seek([]byte{prefixTerm}); k != nil && k[0] == prefixTerm; k, v = c.Next() {
		df, _ := binary.Uvarint(v)
		if n := postings[string(k[1:])]; n != df {
			problem("term %q has document frequency %d but %d postings", k[1:], df, n)
		}
		delete(postings, string(k[1:]))
	}
	for ft, n := range postings {
		problem("%d postings of term %q have no term entry", n, ft)
	}
}

// postingTerm returns the field 0 term part of a posting key.
func postingTerm(k []byte) ([]byte, bool) {
	f := bytes.IndexByte(k[1:], 0)
	if f < 0 {
		return nil, false
	}
	t := bytes.IndexByte(k[2+f:], 0)
	if t < 0 || 2+f+t+1 == len(k) {
		return nil, false
	}
	return k[1 : 1+f+1+t], true
}

// postingValid reports whether v is a whole posting: a length, a count
// and that many positions, nothing after.
func postingValid(v []byte) bool {
	_, k := binary.Uvarint(v)
	if k <= 0 {
		return false
	}
	n, m := binary.Uvarint(v[k:])
	if m <= 0 || n > uint64(len(v)) {
		return false
	}
	return uvarints(v[k+m:], int(n))
}

// uvarints reports whether v is exactly n uvarints (any number when n < 0).
func uvarints(v []byte, n int) bool {
	count := 0
	for len(v) > 0 {
		_, k := binary.Uvarint(v)
		if k <= 0 {
			return false
		}
		v, count = v[k:], count+1
	}
	return n < 0 || count == n
}

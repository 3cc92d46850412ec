package store

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// A full-text index keeps in its index bucket:
//
//	"s"                        statistics: per field, documents, tokens and distinct terms (uvarints)
//	"t" field 0 term           document frequency (uvarint)
//	"p" field 0 term 0 key     posting: the field's tokens in the document, the term frequency, then position deltas (uvarints)
//	"l" key                    per field, the document's tokens (uvarints); then _id as JSON
//
// where key is the key of the document's _id (value.AppendKey).
var keyTextStats = []byte("s")

const (
	prefixTerm    = byte('t')
	prefixPosting = byte('p')
	prefixDoc     = byte('l')
)

// FieldStats are the statistics of one field of a full-text index.
type FieldStats struct {
	Docs   uint64 // documents with text in the field
	Tokens uint64 // tokens in all of them
	Terms  uint64 // distinct terms
}

// TextIndex is the data of a full-text index within one transaction:
// postings (field, term, document -> length and positions), document
// frequencies, per-document field lengths with the document's _id, and
// per-field statistics. Postings and documents written with Put… and
// Delete… are buffered and written in key order when the store flushes
// the index; HasDoc sees them. The other writes go to the file at once.
type TextIndex struct{ ix *Index }

// Text returns the full-text data of the index.
func (ix *Index) Text() TextIndex { return TextIndex{ix} }

// Stats returns the statistics of the index's first n fields (zeros for
// those not stored).
func (t TextIndex) Stats(n int) []FieldStats {
	st := make([]FieldStats, n)
	v := t.ix.bucket.Get(keyTextStats)
	for i := 0; i < n && len(v) > 0; i++ {
		for _, p := range []*uint64{&st[i].Docs, &st[i].Tokens, &st[i].Terms} {
			var k int
			*p, k = binary.Uvarint(v)
			v = v[k:]
		}
	}
	return st
}

// SetStats stores the statistics of every field.
func (t TextIndex) SetStats(st []FieldStats) error {
	return t.ix.bucket.Put(keyTextStats, encodeTextStats(st))
}

func encodeTextStats(st []FieldStats) []byte {
	var out []byte
	for _, s := range st {
		out = binary.AppendUvarint(out, s.Docs)
		out = binary.AppendUvarint(out, s.Tokens)
		out = binary.AppendUvarint(out, s.Terms)
	}
	return out
}

// DocFreq returns the number of documents whose field has term.
func (t TextIndex) DocFreq(field, term string) uint64 {
	n, _ := binary.Uvarint(t.ix.bucket.Get(termKey(field, term)))
	return n
}

// SetDocFreq stores the document frequency of a term; 0 removes the term.
func (t TextIndex) SetDocFreq(field, term string, n uint64) error {
	if n == 0 {
		return t.ix.bucket.Delete(termKey(field, term))
	}
	return t.ix.bucket.Put(termKey(field, term), binary.AppendUvarint(nil, n))
}

// PutPosting stores the posting of term in a document's field: the
// field's length in tokens and the term's positions, ascending.
func (t TextIndex) PutPosting(field, term string, docKey []byte, length uint64, pos []uint32) {
	t.ix.pending.put(postingKey(field, term, docKey), encodePosting(length, pos))
}

// DeletePosting removes the posting of term in a document's field.
func (t TextIndex) DeletePosting(field, term string, docKey []byte) {
	t.ix.pending.del(postingKey(field, term, docKey))
}

// PutDoc stores a document's field lengths and its _id (canonical JSON).
func (t TextIndex) PutDoc(docKey []byte, lengths []uint64, id []byte) {
	t.ix.pending.put(docRecordKey(docKey), encodeDocRecord(lengths, id))
}

// DeleteDoc removes a document's lengths record.
func (t TextIndex) DeleteDoc(docKey []byte) { t.ix.pending.del(docRecordKey(docKey)) }

// HasDoc reports whether the index holds the document.
func (t TextIndex) HasDoc(docKey []byte) bool {
	return t.ix.pending.get(t.ix.bucket, docRecordKey(docKey)) != nil
}

// Doc returns the stored lengths of a document's first n fields and its
// _id, or ok false when the index does not hold it.
func (t TextIndex) Doc(docKey []byte, n int) (lengths []uint64, id []byte, ok bool) {
	v := t.ix.bucket.Get(docRecordKey(docKey))
	if v == nil {
		return nil, nil, false
	}
	for i := 0; i < n && len(v) > 0; i++ {
		l, k := binary.Uvarint(v)
		lengths, v = append(lengths, l), v[k:]
	}
	return lengths, v, true
}

// Clear removes all the index's data and drops its buffered writes.
func (t TextIndex) Clear() error {
	clear(t.ix.pending.pending)
	return clearBucket(t.ix.bucket)
}

// Terms returns a cursor over the terms of field that start with prefix,
// in byte order.
func (t TextIndex) Terms(field, prefix string) TextCursor {
	p := termKey(field, prefix)
	return TextCursor{prefixCursor{c: t.ix.bucket.Cursor(), prefix: p}, len(p) - len(prefix)}
}

// Postings returns a cursor over the postings of term in field, in order
// of the documents' keys.
func (t TextIndex) Postings(field, term string) TextCursor {
	p := postingPrefix(field, term)
	return TextCursor{prefixCursor{c: t.ix.bucket.Cursor(), prefix: p}, len(p)}
}

// Docs returns a cursor over the documents the index holds, in key order.
func (t TextIndex) Docs() TextCursor {
	return TextCursor{prefixCursor{c: t.ix.bucket.Cursor(), prefix: []byte{prefixDoc}}, 1}
}

// TextCursor walks terms, postings or documents of a full-text index; use
// it as a variable (for c := t.Postings(f, term); c.Next(); {…}), so that
// it costs no allocation. The slices it returns are the file's memory:
// valid inside the transaction, never to be written.
type TextCursor struct {
	prefixCursor
	skip int // bytes of a key before what Key returns
}

// Next moves to the next entry, and reports whether there is one.
func (c *TextCursor) Next() bool { return c.next() }

// prefixCursor walks the keys of a bucket that start with prefix.
type prefixCursor struct {
	c       *bolt.Cursor
	prefix  []byte
	started bool
	k, v    []byte
}

func (c *prefixCursor) next() bool {
	if c.started {
		c.k, c.v = c.c.Next()
	} else {
		c.started = true
		c.k, c.v = c.c.Seek(c.prefix)
	}
	ok := len(c.k) > 0 && c.k[0] == c.prefix[0]
	if ok && len(c.prefix) > 1 {
		ok = bytes.HasPrefix(c.k, c.prefix)
	}
	if !ok {
		c.k, c.v = nil, nil
	}
	return ok
}

// Key returns the entry's term (Terms: the whole term, prefix included)
// or document key (Postings, Docs).
func (c *TextCursor) Key() []byte { return c.k[c.skip:] }

// Freq returns a posting's field length and term frequency.
func (c *TextCursor) Freq() (length, tf uint64) {
	length, k := binary.Uvarint(c.v)
	tf, _ = binary.Uvarint(c.v[k:])
	return length, tf
}

// Positions appends a posting's positions to dst.
func (c *TextCursor) Positions(dst []uint32) []uint32 {
	v := c.v
	_, k := binary.Uvarint(v)
	v = v[k:]
	n, k := binary.Uvarint(v)
	v = v[k:]
	if dst == nil {
		dst = make([]uint32, 0, n)
	}
	prev := uint64(0)
	for i := uint64(0); i < n; i++ {
		d, k := binary.Uvarint(v)
		v = v[k:]
		prev += d
		dst = append(dst, uint32(prev))
	}
	return dst
}

func termKey(field, term string) []byte {
	k := make([]byte, 0, 2+len(field)+len(term))
	k = append(k, prefixTerm)
	k = append(k, field...)
	k = append(k, 0)
	return append(k, term...)
}

func postingPrefix(field, term string) []byte {
	k := make([]byte, 0, 3+len(field)+len(term)+16)
	k = append(k, prefixPosting)
	k = append(k, field...)
	k = append(k, 0)
	k = append(k, term...)
	return append(k, 0)
}

func postingKey(field, term string, docKey []byte) []byte {
	return append(postingPrefix(field, term), docKey...)
}

func docRecordKey(docKey []byte) []byte {
	return append([]byte{prefixDoc}, docKey...)
}

// encodePosting encodes a posting: the field's length in the document,
// the number of positions, then the positions as deltas.
func encodePosting(length uint64, pos []uint32) []byte {
	out := binary.AppendUvarint(nil, length)
	out = binary.AppendUvarint(out, uint64(len(pos)))
	prev := uint32(0)
	for _, p := range pos {
		out = binary.AppendUvarint(out, uint64(p-prev))
		prev = p
	}
	return out
}

func encodeDocRecord(lengths []uint64, id []byte) []byte {
	var out []byte
	for _, l := range lengths {
		out = binary.AppendUvarint(out, l)
	}
	return append(out, id...)
}

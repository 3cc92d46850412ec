package vector

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

func termKey(field, term string) []byte {
	k := make([]byte, 0, 2+len(field)+len(term))
	k = append(k, prefixTerm)
	k = append(k, field...)
	k = append(k, 0)
	return append(k, term...)
}

func postPrefix(field, term string) []byte {
	k := make([]byte, 0, 3+len(field)+len(term)+16)
	k = append(k, prefixPost)
	k = append(k, field...)
	k = append(k, 0)
	k = append(k, term...)
	return append(k, 0)
}

func postKey(field, term string, key []byte) []byte {
	return append(postPrefix(field, term), key...)
}

// encodePosting encodes a posting: the field's length in the document,
// then the positions of the term.
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

// decodePositions returns the positions of a posting.
func decodePositions(v []byte) []uint32 {
	_, k := binary.Uvarint(v)
	v = v[k:]
	n, k := binary.Uvarint(v)
	v = v[k:]
	pos := make([]uint32, 0, n)
	prev := uint64(0)
	for i := uint64(0); i < n; i++ {
		d, k := binary.Uvarint(v)
		v = v[k:]
		prev += d
		pos = append(pos, uint32(prev))
	}
	return pos
}

// postingFreq returns the field length and term frequency of a posting.
func postingFreq(v []byte) (length, tf uint64) {
	length, k := binary.Uvarint(v)
	tf, _ = binary.Uvarint(v[k:])
	return length, tf
}

// stats are the corpus statistics of a search index.
type stats struct {
	docs   []uint64 // per field: documents with text in it
	tokens []uint64 // per field: tokens in all documents
	terms  []uint64 // per field: distinct terms
}

func readStats(b *bolt.Bucket, n int) *stats {
	st := &stats{docs: make([]uint64, n), tokens: make([]uint64, n), terms: make([]uint64, n)}
	v := b.Get(keyStats)
	for i := 0; i < n && len(v) > 0; i++ {
		for _, p := range []*uint64{&st.docs[i], &st.tokens[i], &st.terms[i]} {
			var k int
			*p, k = binary.Uvarint(v)
			v = v[k:]
		}
	}
	return st
}

func (st *stats) encode() []byte {
	var out []byte
	for i := range st.docs {
		out = binary.AppendUvarint(out, st.docs[i])
		out = binary.AppendUvarint(out, st.tokens[i])
		out = binary.AppendUvarint(out, st.terms[i])
	}
	return out
}

package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A vector index keeps in its index bucket: "meta" the metadata of its
// vectors (what made them), "cnt_" their number (8 bytes, big-endian),
// and for each document "v" + key of _id + padding its record and "q" +
// the same its quantised copy. The padding is zero bytes and a last byte
// counting them, so that every key is a multiple of 4 bytes long; records
// are too (the index kind pads them), so that in bbolt's pages every
// record starts 4-byte aligned and can be read in place as float32s.
var (
	keyVecMeta   = []byte("meta")
	keyVecCount  = []byte("cnt_")
	prefixVector = byte('v')
	prefixQuant  = byte('q')
)

// Vectors is the data of a vector index within one transaction: a record
// and a quantised record per document, keyed by the key of its _id (as
// value.AppendKey makes it), and the index's metadata and count. Put and
// Delete are buffered and written in key order when the store flushes the
// index (before commit, and after an IndexBuilder's Build); Get and Quant
// see them. What a record holds is the index kind's business; it must be
// a multiple of 4 bytes long.
type Vectors struct{ ix *Index }

// Vectors returns the vector data of the index.
func (ix *Index) Vectors() Vectors { return Vectors{ix} }

// Meta returns the stored metadata, or nil.
func (v Vectors) Meta() []byte { return v.ix.bucket.Get(keyVecMeta) }

// SetMeta stores the metadata.
func (v Vectors) SetMeta(meta []byte) error { return v.ix.bucket.Put(keyVecMeta, meta) }

// Count returns the stored count of vectors, or 0.
func (v Vectors) Count() int64 {
	if b := v.ix.bucket.Get(keyVecCount); len(b) == 8 {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// SetCount stores the count of vectors.
func (v Vectors) SetCount(n int64) error {
	return v.ix.bucket.Put(keyVecCount, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// Get returns the record of the document with key docKey, or nil.
func (v Vectors) Get(docKey []byte) []byte {
	return v.ix.pending.get(v.ix.bucket, vectorKey(prefixVector, docKey))
}

// Quant returns the quantised record of the document with key docKey, or nil.
func (v Vectors) Quant(docKey []byte) []byte {
	return v.ix.pending.get(v.ix.bucket, vectorKey(prefixQuant, docKey))
}

// Put stores the records of a document.
func (v Vectors) Put(docKey, rec, quant []byte) {
	v.ix.pending.put(vectorKey(prefixVector, docKey), rec)
	v.ix.pending.put(vectorKey(prefixQuant, docKey), quant)
}

// Delete removes the records of a document.
func (v Vectors) Delete(docKey []byte) {
	v.ix.pending.del(vectorKey(prefixVector, docKey))
	v.ix.pending.del(vectorKey(prefixQuant, docKey))
}

// Clear removes every record, the metadata and the count, and drops the
// buffered writes.
func (v Vectors) Clear() error {
	clear(v.ix.pending.pending)
	return clearBucket(v.ix.bucket)
}

// Records returns a cursor over the stored records, in key order; Quants
// one over the quantised records. They do not see buffered writes.
func (v Vectors) Records() VectorCursor { return v.cursor(prefixVector) }

// Quants returns a cursor over the stored quantised records, in key order.
func (v Vectors) Quants() VectorCursor { return v.cursor(prefixQuant) }

func (v Vectors) cursor(prefix byte) VectorCursor {
	return VectorCursor{prefixCursor{c: v.ix.bucket.Cursor(), prefix: []byte{prefix}}}
}

// VectorCursor walks the records of a vector index; use it as a variable
// (for c := vs.Records(); c.Next(); {…}), so that it costs no allocation.
// The slices it returns are the file's memory: valid inside the
// transaction, never to be written.
type VectorCursor struct{ prefixCursor }

// Next moves to the next record, and reports whether there is one.
func (c *VectorCursor) Next() bool { return c.next() }

// DocKey returns the key of the document's _id.
func (c *VectorCursor) DocKey() []byte { return vectorDocKey(c.k) }

// Record returns the record.
func (c *VectorCursor) Record() []byte { return c.v }

// vectorKey returns the bucket key of a document's record: prefix, the
// key of its _id, zero bytes and a last byte counting them, 4-byte padded.
func vectorKey(prefix byte, docKey []byte) []byte {
	k := make([]byte, 0, len(docKey)+8)
	k = append(append(k, prefix), docKey...)
	n := (4 - (len(k)+1)%4) % 4
	for i := 0; i < n; i++ {
		k = append(k, 0)
	}
	return append(k, byte(n))
}

// vectorDocKey returns the key of _id inside a record's key.
func vectorDocKey(vk []byte) []byte {
	return vk[1 : len(vk)-1-int(vk[len(vk)-1])]
}

// checkVectorKey says what is wrong with a record's key, or "".
func checkVectorKey(k []byte) string {
	if len(k) < 2 || len(k)%4 != 0 || int(k[len(k)-1]) > len(k)-2 {
		return "malformed key"
	}
	for _, b := range k[len(k)-1-int(k[len(k)-1]) : len(k)-1] {
		if b != 0 {
			return "malformed key"
		}
	}
	return ""
}

// verifyVectors checks the layout of a vector index's data: well-formed
// keys, records a multiple of 4 bytes long, one quantised record for each
// record, and a count that matches.
func verifyVectors(b *bolt.Bucket, problem func(string, ...any)) {
	var n [2]int64
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case string(k) == string(keyVecMeta) || string(k) == string(keyVecCount):
			continue
		case k[0] != prefixVector && k[0] != prefixQuant:
			problem("unknown entry %q", k)
			continue
		}
		if p := checkVectorKey(k); p != "" {
			problem("%s %q", p, k)
			continue
		}
		if v == nil || len(v)%4 != 0 {
			problem("record %q is %d bytes, not a multiple of 4", k, len(v))
		}
		other := prefixQuant
		if k[0] == prefixQuant {
			other, n[1] = prefixVector, n[1]+1
		} else {
			n[0]++
		}
		if b.Get(vectorKey(other, vectorDocKey(k))) == nil {
			problem("record %q has no %c record", k, other)
		}
	}
	if cnt := b.Get(keyVecCount); cnt != nil && (len(cnt) != 8 || int64(binary.BigEndian.Uint64(cnt)) != n[0]) {
		problem("count record says %s, found %d records", fmtCount(cnt), n[0])
	}
}

func fmtCount(b []byte) string {
	if len(b) != 8 {
		return fmt.Sprintf("%x (not 8 bytes)", b)
	}
	return fmt.Sprint(binary.BigEndian.Uint64(b))
}

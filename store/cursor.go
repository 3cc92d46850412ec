package store

import (
	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/value"
)

// Cursor iterates over documents. Use it as
//
//	for cur.Next() { doc := cur.Doc() … }
//	if err := cur.Err(); err != nil { … }
//
// It implements agg.Source.
type Cursor struct {
	c       *bolt.Cursor
	started bool
	key     []byte // the current key, valid until Next
	raw     []byte // the current stored value, valid until Next
	js      []byte // raw's JSON, once checked and decompressed (jsDone)
	jsErr   error
	jsDone  bool
	doc     value.Value
	decoded bool
	err     error
	seen    func() // called for each document Next finds, when set (index builds' progress)
}

// Next advances to the next document and reports whether there is one.
func (cur *Cursor) Next() bool {
	if cur.err != nil || cur.c == nil {
		return false
	}
	var k, v []byte
	if !cur.started {
		k, v = cur.c.First()
		cur.started = true
	} else {
		k, v = cur.c.Next()
	}
	if k == nil {
		cur.c = nil
		return false
	}
	cur.key, cur.raw, cur.decoded, cur.jsDone = k, v, false, false
	if cur.seen != nil {
		cur.seen()
	}
	return true
}

// Key returns the current document's key: the order-preserving encoding
// of its _id (value.AppendKey). The bytes may alias the store's memory:
// they are valid only until Next and must not be modified.
func (cur *Cursor) Key() []byte { return cur.key }

// Doc returns the current document, decoded.
func (cur *Cursor) Doc() value.Value {
	if !cur.decoded {
		cur.decoded = true
		cur.doc = value.Value{}
		if js, err := cur.JSON(); err == nil {
			if cur.doc, err = value.Parse(js); err != nil {
				cur.err = corruptValue(err.Error())
			}
		}
	}
	return cur.doc
}

// JSON returns the current document's canonical JSON. The value is
// checked and decompressed once, however often JSON and Doc are called.
// The bytes may alias the store's memory: they are valid only until Next
// and must not be modified.
func (cur *Cursor) JSON() ([]byte, error) {
	if !cur.jsDone {
		cur.js, cur.jsErr = docJSON(cur.raw)
		cur.jsDone = true
		if cur.jsErr != nil {
			cur.err = cur.jsErr
		}
	}
	return cur.js, cur.jsErr
}

// RawJSON is JSON for RawSource: nil after an error, which Err reports.
func (cur *Cursor) RawJSON() []byte {
	js, _ := cur.JSON()
	return js
}

// Err returns the first error the cursor met.
func (cur *Cursor) Err() error { return cur.err }

// Close ends the iteration. The transaction owns the underlying resources.
func (cur *Cursor) Close() error { cur.c = nil; return nil }

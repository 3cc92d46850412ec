package store

import (
	"sort"

	bolt "go.etcd.io/bbolt"
)

// writeBuf holds the writes an index's data handles (Vectors, TextIndex)
// make during one transaction, and writes them in key order when the
// store flushes the index: bbolt splits pages only at commit, so random
// inserts in a large transaction cost quadratic time, while ordered
// inserts append.
type writeBuf struct {
	pending map[string][]byte // key -> value; a nil value deletes the key
}

// get returns the value of k as the transaction sees it.
func (w *writeBuf) get(b *bolt.Bucket, k []byte) []byte {
	if v, ok := w.pending[string(k)]; ok {
		return v
	}
	return b.Get(k)
}

func (w *writeBuf) put(k, v []byte) {
	if w.pending == nil {
		w.pending = map[string][]byte{}
	}
	w.pending[string(k)] = v
}

func (w *writeBuf) del(k []byte) { w.put(k, nil) }

// flush writes the buffered changes to b in key order.
func (w *writeBuf) flush(b *bolt.Bucket) error {
	if len(w.pending) == 0 {
		return nil
	}
	keys := make([]string, 0, len(w.pending))
	for k := range w.pending {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var err error
		if v := w.pending[k]; v == nil {
			err = b.Delete([]byte(k))
		} else {
			err = b.Put([]byte(k), v)
		}
		if err != nil {
			return err
		}
	}
	clear(w.pending)
	return nil
}

// clearBucket deletes every key of b.
func clearBucket(b *bolt.Bucket) error {
	var keys [][]byte
	b.ForEach(func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	})
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

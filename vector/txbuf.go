package vector

import (
	"sort"

	bolt "go.etcd.io/bbolt"
)

// txWrites buffers the writes of an index during one transaction and
// writes them in key order when the store flushes the index: bbolt splits
// pages only at commit, so random inserts in a large transaction would
// cost quadratic time, while ordered inserts append.
type txWrites struct {
	pending map[string][]byte // key -> value; a nil value deletes the key
}

func newTxWrites() txWrites { return txWrites{pending: map[string][]byte{}} }

// get returns the value of k as the transaction sees it.
func (w *txWrites) get(b *bolt.Bucket, k []byte) []byte {
	if v, ok := w.pending[string(k)]; ok {
		return v
	}
	return b.Get(k)
}

func (w *txWrites) put(k, v []byte) { w.pending[string(k)] = v }

func (w *txWrites) del(k []byte) { w.pending[string(k)] = nil }

// flush writes the buffered changes to b in key order.
func (w *txWrites) flush(b *bolt.Bucket) error {
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

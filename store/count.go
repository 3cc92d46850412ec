package store

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
)

// parallelCountMin is the collection size from which an unindexed count
// is split over two goroutines: below it the second transaction costs more
// than it saves.
var parallelCountMin int64 = 50_000

// countParallel counts the documents matching filter with two goroutines,
// each scanning half of the key range, when the collection is large, the
// machine has two cores or more, and a second read transaction sees the
// same snapshot (bbolt transactions are not for concurrent use, so each
// goroutine has its own). ok is false when it did not run.
func (c *Collection) countParallel(ctx context.Context, filter *query.Filter) (n int64, ok bool, err error) {
	if c.tx.writable || c.count < parallelCountMin || runtime.GOMAXPROCS(0) < 2 {
		return 0, false, nil
	}
	btx, err := c.tx.db.bolt.Begin(false)
	if err != nil {
		return 0, false, nil
	}
	defer btx.Rollback()
	var docs *bolt.Bucket
	if root := btx.Bucket(bucketCollections); root != nil && btx.ID() == c.tx.btx.ID() {
		if b := root.Bucket([]byte(c.name)); b != nil {
			docs = b.Bucket(bucketDocs)
		}
	}
	if docs == nil {
		return 0, false, nil // another snapshot: a writer committed in between
	}
	first, _ := c.docs.Cursor().First()
	last, _ := c.docs.Cursor().Last()
	mid := midKey(first, last)
	type half struct {
		n   int64
		err error
	}
	done := make(chan half, 1)
	go func() {
		n, err := countRange(ctx, docs.Cursor(), mid, nil, filter)
		done <- half{n, err}
	}()
	n1, err1 := countRange(ctx, c.docs.Cursor(), nil, mid, filter)
	h := <-done
	if err1 != nil {
		return 0, true, err1
	}
	return n1 + h.n, true, h.err
}

// countRange counts the matching documents with keys in [from, to) (nil:
// unbounded).
func countRange(ctx context.Context, cur *bolt.Cursor, from, to []byte, filter *query.Filter) (n int64, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = corruptValue(fmt.Sprint(r))
		}
	}()
	var k, v []byte
	if from == nil {
		k, v = cur.First()
	} else {
		k, v = cur.Seek(from)
	}
	for i := 0; k != nil && (to == nil || string(k) < string(to)); i++ {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		js, err := docJSON(v)
		if err != nil {
			return 0, err
		}
		ok, err := filter.MatchJSON(js)
		if err != nil {
			return 0, corruptValue(err.Error())
		}
		if ok {
			n++
		}
		k, v = cur.Next()
	}
	return n, nil
}

// midKey returns a key between a and b (a <= b), treating them as
// big-endian numbers: the halves of a range of keys of similar shape
// (sequential ids, ObjectIds) hold about as many documents each.
func midKey(a, b []byte) []byte {
	n := max(len(a), len(b))
	sum := make([]byte, n+1)
	carry := 0
	for i := n - 1; i >= 0; i-- {
		s := carry
		if i < len(a) {
			s += int(a[i])
		}
		if i < len(b) {
			s += int(b[i])
		}
		sum[i+1], carry = byte(s), s>>8
	}
	sum[0] = byte(carry)
	// Halve the (n+1)-byte sum: the result fits in n bytes.
	mid := make([]byte, n)
	rem := int(sum[0])
	for i := 1; i <= n; i++ {
		cur := rem<<8 | int(sum[i])
		mid[i-1], rem = byte(cur>>1), cur&1
	}
	return mid
}

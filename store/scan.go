package store

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
)

// parallelScanMin is the collection size from which an unindexed count or
// $group runs on several goroutines: below it, starting them costs more
// than it saves.
var parallelScanMin int64 = 20_000

// scanBatchSize is the number of documents a worker takes at a time.
const scanBatchSize = 256

// scanBatch is a batch of stored values on its way from the cursor to a
// worker and then, in key order, to the caller. The values alias the
// transaction's memory.
type scanBatch struct {
	vals  [][]byte
	n     int64              // what the worker counted
	group *agg.GroupBatch    // what the worker extracted, for a $group
	match *query.JSONMatcher // the filter of a count, for the worker
	err   error              // ends the scan, after what the batch holds
	ready chan struct{}      // the worker is done with the batch
}

// scanParallel reads the collection's documents in key order on one
// goroutine, has GOMAXPROCS workers run work on batches of them, and calls
// use on each batch, in key order, on the calling goroutine. It stops at
// the first error of a batch or of use (a batch's error is for use to
// report, after the documents before it), and returns use's. The
// transaction is not used concurrently: only the reading goroutine walks
// its cursor, while the caller waits.
func (c *Collection) scanParallel(ctx context.Context, newBatch func() *scanBatch, work func(*scanBatch), use func(*scanBatch) error) error {
	workers := runtime.GOMAXPROCS(0)
	inFlight := 4 * workers
	free := make(chan *scanBatch, inFlight)
	for range inFlight {
		b := newBatch()
		b.ready = make(chan struct{}, 1)
		free <- b
	}
	todo := make(chan *scanBatch, inFlight)
	queue := make(chan *scanBatch, inFlight)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		defer close(queue)
		defer close(todo)
		c.readBatches(ctx, free, stop, func(b *scanBatch) {
			queue <- b
			todo <- b
		})
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for b := range todo {
				safely(b, work)
				b.ready <- struct{}{}
			}
		}()
	}
	var err error
	for b := range queue {
		<-b.ready
		if err == nil {
			if err = use(b); err != nil {
				close(stop)
			}
		}
		free <- b
	}
	wg.Wait()
	return err
}

// scanSerial is scanParallel on the calling goroutine alone, with one
// batch.
func (c *Collection) scanSerial(ctx context.Context, newBatch func() *scanBatch, work func(*scanBatch), use func(*scanBatch) error) error {
	r := &batchReader{cur: c.docs.Cursor()}
	b := newBatch()
	for {
		if !r.refill(ctx, b) {
			return nil
		}
		safely(b, work)
		if err := use(b); err != nil {
			return err
		}
		if len(b.vals) < scanBatchSize {
			return nil
		}
	}
}

// readBatches fills batches from the cursor and sends them on until the
// documents end, stop closes, or a batch ends with an error (a
// cancellation, a damaged page).
func (c *Collection) readBatches(ctx context.Context, free <-chan *scanBatch, stop <-chan struct{}, send func(*scanBatch)) {
	r := &batchReader{cur: c.docs.Cursor()}
	for {
		var b *scanBatch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		if !r.refill(ctx, b) {
			return // no more documents
		}
		// Decide before sending: once sent, the batch is a worker's,
		// which may set its err.
		last := b.err != nil || len(b.vals) < scanBatchSize
		send(b)
		if last {
			return
		}
	}
}

// batchReader walks a cursor a batch at a time.
type batchReader struct {
	cur     *bolt.Cursor
	k, v    []byte
	started bool
}

// refill empties b and fills it with the next documents, or with the
// context's error; it reports false when no document and no error was left.
func (r *batchReader) refill(ctx context.Context, b *scanBatch) bool {
	b.vals, b.n, b.err = b.vals[:0], 0, nil
	if b.group != nil {
		b.group.Reset()
	}
	if b.err = ctx.Err(); b.err == nil {
		b.err = r.fill(b)
	}
	return len(b.vals) > 0 || b.err != nil
}

// fill reads up to scanBatchSize values into b, turning a fault on a
// damaged memory-mapped page into an error.
func (r *batchReader) fill(b *scanBatch) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = corruptValue(fmt.Sprint(p))
		}
	}()
	if !r.started {
		r.k, r.v = r.cur.First()
		r.started = true
	}
	for r.k != nil && len(b.vals) < scanBatchSize {
		b.vals = append(b.vals, r.v)
		r.k, r.v = r.cur.Next()
	}
	return nil
}

// safely runs work on b, turning a fault on a damaged memory-mapped page
// into the batch's error.
func safely(b *scanBatch, work func(*scanBatch)) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			b.err = corruptValue(fmt.Sprint(r))
		}
	}()
	work(b)
}

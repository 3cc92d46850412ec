package store

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
)

// parallelFetchMin is the number of _id keys from which an index scan
// fetches its documents on several goroutines (a variable for tests).
var parallelFetchMin = 4096

// parallelFetchWritable lets scans of a read-write handle fetch in
// parallel too, for tests of the revision check.
var parallelFetchWritable = false

// fetchesInParallel reports whether index scans of this handle may fetch
// on several goroutines: only on a read-only handle. The workers begin
// read transactions while the scan's own is open; on a read-write handle
// a writer of the same process that must grow the file waits for the
// scan's transaction, and a new read transaction waits behind that
// writer (bbolt's remap lock), which would deadlock the scan. A read-only
// handle has no writer.
func (db *DB) fetchesInParallel() bool { return db.readOnly || parallelFetchWritable }

// fetchChunk is the number of documents a fetch worker takes at a time.
const fetchChunk = 256

// A fetcher fetches the documents of sorted _id keys, checks them and
// matches them against the filter on GOMAXPROCS goroutines, and hands out
// the matching ones in key order: the work of an index scan that returns
// many documents (an indexed range find printing 28,696 of 1,000,000
// documents spends 60% of its time in page lookups).
//
// It runs only in read-only handles (see fetchesInParallel). bbolt
// transactions are not safe for concurrent use, so each worker reads
// in a read-only transaction of its own, begun for each chunk. It uses the
// chunk only when that transaction reads the same revision as the scan's
// (equal transaction ids), and otherwise fetches it again on the scan's
// own goroutine. In a read-only handle no writer can commit meanwhile (a
// writer of another process needs the exclusive lock this one shares), so
// the check is a guard that tests exercise on a read-write handle. The
// bytes a worker hands out stay valid: the scan's transaction stays open,
// so bbolt neither remaps the file nor reuses the pages it can see.
type fetcher struct {
	s     *ixSource
	ready []chan *fetched // one per chunk, in order; buffered, so workers never wait
	slots chan struct{}   // bounds the chunks fetched ahead of the consumer
	pos   int             // the next chunk to hand out
	cur   *fetched
	stop  chan struct{}
	wg    sync.WaitGroup
}

// fetched is one chunk's outcome: the matching documents' JSON, in order,
// and the error that stopped it, after them.
type fetched struct {
	docs  [][]byte
	stale bool // read at another revision: fetch again
	err   error
}

// newFetcher starts the workers on the keys s.ids.
func newFetcher(s *ixSource) *fetcher {
	workers := runtime.GOMAXPROCS(0)
	n := (len(s.ids) + fetchChunk - 1) / fetchChunk
	f := &fetcher{s: s, ready: make([]chan *fetched, n), slots: make(chan struct{}, 2*workers), stop: make(chan struct{})}
	for i := range f.ready {
		f.ready[i] = make(chan *fetched, 1)
	}
	next := make(chan int)
	f.wg.Add(1 + workers)
	go f.feed(n, next)
	want := s.c.tx.btx.ID()
	for range workers {
		go func() {
			defer f.wg.Done()
			m := s.newMatcher()
			for i := range next {
				f.ready[i] <- f.fetch(want, m, f.chunk(i))
			}
		}()
	}
	return f
}

// feed hands the chunks' numbers to the workers, at most cap(slots) ahead
// of the consumer, until all are handed out or the fetcher is closed.
func (f *fetcher) feed(n int, next chan<- int) {
	defer f.wg.Done()
	defer close(next)
	for i := range n {
		select {
		case f.slots <- struct{}{}:
		case <-f.stop:
			return
		}
		select {
		case next <- i:
		case <-f.stop:
			return
		}
	}
}

// chunk returns the keys of chunk i.
func (f *fetcher) chunk(i int) [][]byte {
	return f.s.ids[i*fetchChunk : min((i+1)*fetchChunk, len(f.s.ids))]
}

// next returns the next matching document's JSON; false at the end or on
// an error, which it leaves in s.err.
func (f *fetcher) next() ([]byte, bool) {
	for {
		if f.cur != nil && len(f.cur.docs) > 0 {
			js := f.cur.docs[0]
			f.cur.docs = f.cur.docs[1:]
			return js, true
		}
		if f.cur != nil && f.cur.err != nil {
			f.s.err = f.cur.err
			return nil, false
		}
		if f.pos >= len(f.ready) {
			return nil, false
		}
		if err := f.s.ctx.Err(); err != nil {
			f.s.err = err
			return nil, false
		}
		f.cur = <-f.ready[f.pos]
		<-f.slots
		if f.cur.stale {
			f.cur = f.s.fetchFrom(f.s.c.docs, f.s.newMatcher(), f.chunk(f.pos))
		}
		f.s.docs += int64(len(f.chunk(f.pos)))
		f.pos++
	}
}

// close stops the workers and waits for them.
func (f *fetcher) close() {
	close(f.stop)
	f.wg.Wait()
}

// fetch reads one chunk in a read-only transaction of its own; a damaged
// page that makes bbolt panic or fault is an error of the chunk.
func (f *fetcher) fetch(want int, m *query.JSONMatcher, ids [][]byte) (out *fetched) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			out = &fetched{err: corruptValue(fmt.Sprint(r))}
		}
	}()
	btx, err := f.s.c.tx.db.bolt.Begin(false)
	if err != nil {
		return &fetched{stale: true}
	}
	defer btx.Rollback()
	docs := f.s.c.docsIn(btx)
	if btx.ID() != want || docs == nil {
		return &fetched{stale: true}
	}
	return f.s.fetchFrom(docs, m, ids)
}

// docsIn returns the collection's documents as another transaction sees
// them: nil when it has no such collection.
func (c *Collection) docsIn(btx *bolt.Tx) *bolt.Bucket {
	root := btx.Bucket(bucketCollections)
	if root == nil {
		return nil
	}
	if b := root.Bucket([]byte(c.name)); b != nil {
		return b.Bucket(bucketDocs)
	}
	return nil
}

package store

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/omgdb/omgdb/query"
)

// prefetcher reads the lines of an import and canonicalises them on
// goroutines of their own, ahead of the transaction that inserts them, so
// that parsing (the bulk of an import's work) and writing run on several
// cores. One goroutine reads chunks of lines; workers canonicalise whole
// chunks; the chunks come back in input order. It returns the lines in
// order, each with its line number and the bytes read up to it, and holds
// at most prefetchChunks chunks in flight.
type prefetcher struct {
	items chan chan []prepared // one per chunk, in input order
	stop  chan struct{}
	wg    sync.WaitGroup
	chunk []prepared // being consumed
	pos   int
	line  int64 // the line number of the last item returned
	bytes int64 // the bytes read up to it
	done  bool  // the input is exhausted (or failed)
}

// prepared is one line of input: its canonical stored value (with the
// header left blank) and _id, or the error that makes it a bad line.
type prepared struct {
	val   []byte
	id    query.Value
	err   error
	line  int64
	bytes int64
}

// rawChunk is a chunk of lines as read, for a worker to canonicalise.
type rawChunk struct {
	data  []byte     // the lines, back to back
	ends  []int      // where each line ends in data
	items []prepared // line numbers, bytes read and read errors
	out   chan []prepared
}

const (
	prefetchChunk  = 256
	prefetchChunks = 16
)

func newPrefetcher(in *lineReader) *prefetcher {
	p := &prefetcher{items: make(chan chan []prepared, prefetchChunks), stop: make(chan struct{})}
	workers := min(2, runtime.GOMAXPROCS(0))
	jobs := make(chan *rawChunk, workers)
	p.wg.Add(1 + workers)
	go p.run(in, jobs)
	for range workers {
		go p.work(jobs)
	}
	return p
}

// run reads chunks of lines and hands them to the workers.
func (p *prefetcher) run(in *lineReader, jobs chan<- *rawChunk) {
	defer p.wg.Done()
	defer close(p.items)
	defer close(jobs)
	for {
		c := &rawChunk{items: make([]prepared, 0, prefetchChunk), out: make(chan []prepared, 1)}
		failed := false
		for len(c.items) < prefetchChunk && !failed {
			line, err := in.next()
			if err == io.EOF {
				break
			}
			c.data = append(c.data, line...)
			c.ends = append(c.ends, len(c.data))
			c.items = append(c.items, prepared{err: err, line: in.line, bytes: in.bytes})
			failed = errors.Is(err, errReadFailed)
		}
		if len(c.items) == 0 {
			return
		}
		select {
		case p.items <- c.out:
		case <-p.stop:
			return
		}
		select {
		case jobs <- c:
		case <-p.stop:
			return
		}
		if failed || len(c.items) < prefetchChunk {
			return
		}
	}
}

// work canonicalises chunks.
func (p *prefetcher) work(jobs <-chan *rawChunk) {
	defer p.wg.Done()
	for c := range jobs {
		start := 0
		for i := range c.items {
			it := &c.items[i]
			line := c.data[start:c.ends[i]]
			start = c.ends[i]
			if it.err == nil {
				it.val, it.id, it.err = query.AppendCanonicalDocument(make([]byte, headerSize, len(line)+48), line)
			}
		}
		c.data = nil
		c.out <- c.items
	}
}

// next returns the next line, or io.EOF at the end of the input.
func (p *prefetcher) next() (prepared, error) {
	for p.pos == len(p.chunk) {
		out, ok := <-p.items
		if !ok {
			p.done = true
			return prepared{}, io.EOF
		}
		p.chunk, p.pos = <-out, 0
	}
	it := p.chunk[p.pos]
	p.chunk[p.pos] = prepared{}
	p.pos++
	p.line, p.bytes = it.line, it.bytes
	if errors.Is(it.err, errReadFailed) {
		p.done = true
	}
	return it, nil
}

// close stops the reading goroutines and waits for them.
func (p *prefetcher) close() {
	close(p.stop)
	p.wg.Wait()
}

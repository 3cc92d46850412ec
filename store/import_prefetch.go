package store

import (
	"errors"
	"io"
	"sync"

	"github.com/omgdb/omgdb/query/value"
)

// prefetcher reads the lines of an import and canonicalises them on a
// goroutine of its own, ahead of the transaction that inserts them, so
// that parsing (the bulk of an import's work) and writing run on two
// cores. It returns the lines in order, each with its line number and the
// bytes read up to it, and holds at most prefetchChunks chunks.
type prefetcher struct {
	items chan []prepared
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
	id    value.Value
	err   error
	line  int64
	bytes int64
}

const (
	prefetchChunk  = 256
	prefetchChunks = 16
)

func newPrefetcher(in *lineReader) *prefetcher {
	p := &prefetcher{items: make(chan []prepared, prefetchChunks), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.run(in)
	return p
}

func (p *prefetcher) run(in *lineReader) {
	defer p.wg.Done()
	defer close(p.items)
	chunk := make([]prepared, 0, prefetchChunk)
	for {
		line, err := in.next()
		if err == io.EOF {
			break
		}
		it := prepared{err: err, line: in.line, bytes: in.bytes}
		if err == nil {
			it.val, it.id, it.err = value.AppendCanonicalDocument(make([]byte, headerSize, len(line)+48), line)
		}
		chunk = append(chunk, it)
		failed := errors.Is(err, errReadFailed)
		if len(chunk) == prefetchChunk || failed {
			if !p.send(chunk) || failed {
				return
			}
			chunk = make([]prepared, 0, prefetchChunk)
		}
	}
	if len(chunk) > 0 {
		p.send(chunk)
	}
}

func (p *prefetcher) send(chunk []prepared) bool {
	select {
	case p.items <- chunk:
		return true
	case <-p.stop:
		return false
	}
}

// next returns the next line, or io.EOF at the end of the input.
func (p *prefetcher) next() (prepared, error) {
	for p.pos == len(p.chunk) {
		chunk, ok := <-p.items
		if !ok {
			p.done = true
			return prepared{}, io.EOF
		}
		p.chunk, p.pos = chunk, 0
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

// close stops the reading goroutine and waits for it.
func (p *prefetcher) close() {
	close(p.stop)
	p.wg.Wait()
}

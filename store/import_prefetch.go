package store

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// prefetcher reads the documents of an import and prepares them
// (canonicalises or parses them) on a goroutine of its own, ahead of the
// transaction that writes them, so that parsing (the bulk of an import's
// work) and writing run on two cores. It returns the documents in order,
// each with its lines and the bytes read up to it, and holds at most
// prefetchChunks chunks.
type prefetcher struct {
	items chan []prepared
	stop  chan struct{}
	wg    sync.WaitGroup
	chunk []prepared // being consumed
	pos   int
	line  int64 // the last line of the last item returned
	bytes int64 // the bytes read up to it
	done  bool  // the input is exhausted (or failed)
	eof   bool  // the input is exhausted: total is set
	total int64 // the lines of the whole input, once it is exhausted
}

// prepared is one document of the input: its canonical stored value (with
// the header left blank) and _id for ModeInsert, or its parsed value for
// the other modes, or the error that makes it a bad document.
type prepared struct {
	val        []byte
	id         value.Value
	doc        value.Value
	err        error
	line, last int64 // the lines it spans
	col        int   // the column of a bad CSV field
	bytes      int64
}

const (
	prefetchChunk  = 256
	prefetchChunks = 16
)

// newPrefetcher reads in, preparing each document with prep and leaving
// out those that start before line from (but not an error that stops the
// import).
func newPrefetcher(in docSource, prep func(*prepared, []byte), from int64) *prefetcher {
	p := &prefetcher{items: make(chan []prepared, prefetchChunks), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.run(in, prep, from)
	return p
}

func (p *prefetcher) run(in docSource, prep func(*prepared, []byte), from int64) {
	defer p.wg.Done()
	defer close(p.items)
	defer p.recoverPanic()
	chunk := make([]prepared, 0, prefetchChunk)
	var line int64
	for {
		d, err := in.next()
		if err == io.EOF {
			p.total = in.lines() // before items closes
			break
		}
		if err == nil && d.line < from && !d.stopsImport {
			continue
		}
		it := prepared{err: d.err, line: d.line, last: d.last, col: d.col, bytes: in.read()}
		if err != nil {
			it.err, it.line, it.last = err, line, line
		}
		line = max(line, it.last)
		if it.err == nil {
			prep(&it, d.text)
			if it.err != nil && d.whole {
				in.(*jsonStream).rescan(d)
				continue
			}
			if it.err != nil && d.last > d.line {
				it.err = atLine(it.err, d.text, d.line)
			}
		}
		chunk = append(chunk, it)
		failed := err != nil || d.stopsImport
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

var atByte = regexp.MustCompile(`^invalid JSON at byte ([0-9]+): `)

// atLine rewrites "invalid JSON at byte N" in the error of a document
// over several lines, the first of which is line, as the line and column
// of byte N of text.
func atLine(err error, text []byte, line int64) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	m := atByte.FindStringSubmatch(e.Message)
	if m == nil {
		return err
	}
	n, _ := strconv.Atoi(m[1])
	n = min(n, len(text))
	before := text[:n]
	col := n - bytes.LastIndexByte(before, '\n')
	out := errs.Errorf(e.Kind, "invalid JSON at line %d, column %d: %s", line+int64(bytes.Count(before, []byte{'\n'})), col, e.Message[len(m[0]):])
	out.Hint, out.Err = e.Hint, e.Err
	return out
}

// recoverPanic turns a panic of the reading goroutine (a bug) into an
// error that stops the import, rather than the end of the process.
func (p *prefetcher) recoverPanic() {
	if r := recover(); r != nil {
		e := errs.Errorf(errs.IO, "reading the input failed: %v", r).WithHint("this is a bug; please report it with the input")
		e.Err = errReadFailed
		p.send([]prepared{{err: e}})
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

// fetch makes the current chunk hold an item, and reports false at the
// end of the input.
func (p *prefetcher) fetch() bool {
	for p.pos == len(p.chunk) {
		chunk, ok := <-p.items
		if !ok {
			p.done, p.eof = true, true
			return false
		}
		p.chunk, p.pos = chunk, 0
	}
	return true
}

// next returns the next document, or io.EOF at the end of the input.
func (p *prefetcher) next() (prepared, error) {
	if !p.fetch() {
		return prepared{}, io.EOF
	}
	it := p.chunk[p.pos]
	p.chunk[p.pos] = prepared{}
	p.pos++
	p.line, p.bytes = max(p.line, it.last), it.bytes
	if errors.Is(it.err, errReadFailed) {
		p.done = true
	}
	return it, nil
}

// peek returns the next document without taking it, and false at the end
// of the input.
func (p *prefetcher) peek() (prepared, bool) {
	if p.done || !p.fetch() {
		return prepared{}, false
	}
	return p.chunk[p.pos], true
}

// close stops the reading goroutine and waits for it.
func (p *prefetcher) close() {
	close(p.stop)
	p.wg.Wait()
}

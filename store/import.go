package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// ImportOptions configures Import. The zero value imports in batches and
// stops at the first bad line.
type ImportOptions struct {
	// Atomic imports everything in one transaction: all or nothing.
	// Default false: batches of BatchSize documents are committed in turn.
	Atomic bool
	// Skip reports bad lines and goes on. Default false: stop at the first
	// bad line, keeping the documents before it (all of them are dropped
	// with Atomic).
	Skip bool
	// BatchSize is the number of documents per transaction; default 10000
	// (measured here: 20,000 made the whole import about 15% slower, and
	// one transaction for 1,000,000 documents four times slower; bbolt's
	// cost per commit grows faster than the commit).
	BatchSize int
	// Kind names the change in the journal; default "import".
	Kind string
	// Progress, when set, is called after each batch with the lines and
	// bytes read so far.
	Progress func(lines, bytes int64)
	// OnInsert, when set, is called with the _id of each inserted document,
	// after its transaction commits.
	OnInsert func(id value.Value) error
}

// maxLineErrors bounds how many bad lines a summary lists.
const maxLineErrors = 100

// ImportSummary is the result of Import, printed by `omgdb import`.
type ImportSummary struct {
	Inserted  int64       `json:"inserted"`
	Skipped   int64       `json:"skipped"`
	Lines     int64       `json:"lines"`
	Batches   int         `json:"batches"`
	StoppedAt int64       `json:"stopped_at_line,omitempty"`
	Errors    []LineError `json:"errors"`
	Change    string      `json:"change,omitempty"` // the change id shared by every committed batch
}

// LineError is a bad line of an import.
type LineError struct {
	Line  int64  `json:"line"`
	Error string `json:"error"`
}

// Import reads newline-delimited JSON documents from r into coll, creating
// the collection if needed. Blank lines are skipped. It streams: memory
// stays bounded by one batch. On a bad line it returns an error naming the
// line, unless opts.Skip; the summary says what was written either way.
func (db *DB) Import(ctx context.Context, coll string, r io.Reader, opts *ImportOptions) (*ImportSummary, error) {
	if opts == nil {
		opts = &ImportOptions{}
	}
	in := newPrefetcher(&lineReader{r: bufio.NewReaderSize(r, 1<<20)})
	defer in.close()
	sum := &ImportSummary{Errors: []LineError{}}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 10000
	}
	if opts.Atomic {
		batch = -1
	}
	kind := opts.Kind
	if kind == "" {
		kind = "import"
	}
	// All batches of one import are one change, so it can be rolled back
	// as a whole.
	change := Change{ID: value.NewOID().Hex(), Kind: kind}
	var stop error
	for stop == nil && !in.done {
		var ids []value.Value
		var t *Tx
		committed := sum.Inserted
		err := db.Update(change, func(tx *Tx) error {
			t = tx
			if batch > 0 {
				tx.ops = slices.Grow(tx.ops, batch) // one journal op per document
			}
			c, err := tx.CreateCollection(coll)
			if err != nil {
				return err
			}
			ids, stop = importBatch(ctx, c, in, batch, opts, sum)
			switch {
			case stop != nil && opts.Atomic:
				return stop
			case len(ids) == 0:
				return errNoDocuments // leave no empty collection, no empty change
			}
			return nil
		})
		if errors.Is(err, errNoDocuments) {
			break
		}
		if err != nil {
			// The batch was rolled back (with Atomic, it was everything).
			sum.Inserted = committed
			return sum, err
		}
		lsn := t.LSN() // and let the Tx go
		if len(ids) > 0 {
			sum.Batches++
			sum.Change = t.ChangeID()
		}
		if opts.Progress != nil {
			opts.Progress(in.line, in.bytes)
		}
		if opts.OnInsert != nil {
			for _, id := range ids {
				if err := opts.OnInsert(id); err != nil {
					return sum, err
				}
			}
		}
		// Between batches, let a process waiting for the store in
		// (handoff.go).
		if stop == nil && !in.done {
			if err := db.yieldLock(ctx, lsn); err != nil {
				sum.Lines = in.line
				return sum, err
			}
		}
	}
	sum.Lines = in.line
	return sum, stop
}

// importBatch inserts up to n documents (all when n < 0). It returns the
// ids inserted and the error that stops the import, if any.
func importBatch(ctx context.Context, c *Collection, in *prefetcher, n int, opts *ImportOptions, sum *ImportSummary) ([]value.Value, error) {
	var ids []value.Value
	for n < 0 || len(ids) < n {
		if len(ids)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return ids, err
			}
		}
		it, err := in.next()
		if err == io.EOF {
			return ids, nil
		}
		if err = it.err; err == nil {
			if err = c.insertPrepared(it.val, it.id); err == nil {
				ids = append(ids, it.id)
				sum.Inserted++
				failpoint.Hit(failpoint.ImportBatch)
				continue
			}
		}
		if errors.Is(err, errReadFailed) {
			return ids, err
		}
		if len(sum.Errors) < maxLineErrors {
			sum.Errors = append(sum.Errors, LineError{Line: in.line, Error: err.Error()})
		}
		if !opts.Skip {
			sum.StoppedAt = in.line
			return ids, lineError(in.line, err, sum.Inserted, opts.Atomic)
		}
		sum.Skipped++
	}
	return ids, nil
}

// insertPrepared inserts a line that AppendCanonicalDocument prepared, as
// InsertJSON would.
func (c *Collection) insertPrepared(val []byte, id value.Value) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	return c.insert(val, id, value.Value{})
}

func lineError(line int64, err error, inserted int64, atomic bool) error {
	e := errs.Errorf(errs.KindOf(err), "line %d: %v", line, err)
	e.Err = err
	switch {
	case atomic:
		e.Hint = "nothing was imported (--atomic); fix the line, or pass --on-error skip to leave bad lines out"
	case inserted > 0:
		e.Hint = fmt.Sprintf("the %d documents before line %d were imported; fix the line and import the rest (tail -n +%d), or pass --on-error skip", inserted, line, line)
	default:
		e.Hint = "nothing was imported; fix the line, or pass --on-error skip to leave bad lines out"
	}
	return e
}

var errReadFailed = errors.New("read failed")

// errNoDocuments rolls back an import's transaction that inserted
// nothing (the input was empty, or its first line failed, or every line
// was skipped): it would leave only an empty collection and an empty
// change behind.
var errNoDocuments = errors.New("no documents")

// lineReader reads lines of at most MaxDocumentSize bytes, counting them.
type lineReader struct {
	r     *bufio.Reader
	line  int64
	bytes int64
	done  bool
	buf   []byte
}

// next returns the next non-blank line, io.EOF at the end, or an error for
// a line that is too long (the rest of that line is skipped).
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.read()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (l *lineReader) read() ([]byte, error) {
	if l.done {
		return nil, io.EOF
	}
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.bytes += int64(len(chunk))
		if !tooLong {
			l.buf = append(l.buf, chunk...)
			tooLong = len(l.buf) > value.MaxDocumentSize+2
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			l.done = true
			if len(l.buf) == 0 {
				return nil, io.EOF
			}
		} else if err != nil {
			l.done = true
			e := errs.Errorf(errs.IO, "read input: %v", err)
			e.Err = errReadFailed
			return nil, e
		}
		l.line++
		if tooLong {
			return nil, errs.Errorf(errs.Limit, "line is over the %d-byte document limit", value.MaxDocumentSize)
		}
		return bytes.TrimRight(l.buf, "\r\n"), nil
	}
}

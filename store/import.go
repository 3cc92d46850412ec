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

// ImportOptions configures Import. The zero value reads a stream of JSON
// documents, inserts them in batches and stops at the first bad one.
type ImportOptions struct {
	// Atomic imports everything in one transaction: all or nothing.
	// Default false: batches of BatchSize documents are committed in turn.
	Atomic bool
	// Skip reports bad documents and goes on. Default false: stop at the
	// first bad one, keeping the documents before it (all of them are
	// dropped with Atomic).
	Skip bool
	// BatchSize is the number of documents per transaction; default 10000
	// (measured here: 20,000 made the whole import about 15% slower, and
	// one transaction for 1,000,000 documents four times slower; bbolt's
	// cost per commit grows faster than the commit). A batch ends at the
	// end of a line, so a line with several documents is in one batch.
	BatchSize int
	// Kind names the change in the journal; default "import".
	Kind string
	// Progress, when set, is called after each batch with the lines and
	// bytes read so far.
	Progress func(lines, bytes int64)
	// OnInsert, when set, is called with the _id of each inserted document,
	// after its transaction commits.
	OnInsert func(id value.Value) error

	// Format is the input's format; default FormatJSON.
	Format Format
	// JSONArray reads one JSON array of documents instead of a stream of
	// documents (FormatJSON only).
	JSONArray bool
	// HeaderLine takes the column names from the first line (FormatCSV and
	// FormatTSV).
	HeaderLine bool
	// Fields names the columns when there is no header line.
	Fields []string
	// ColumnsHaveTypes reads each column name as name.type(arg), as
	// mongoimport does.
	ColumnsHaveTypes bool
	// IgnoreBlanks leaves blank CSV or TSV fields out of the documents.
	// Default false: a blank field is an empty string.
	IgnoreBlanks bool
	// ParseGrace is what a typed field its type cannot read does, as
	// mongoimport's --parseGrace: ParseStop (the default: the row is a bad
	// document), ParseSkipRow (the row is reported and left out, the
	// import goes on), ParseSkipField (the field is left out) or
	// ParseAutoCast (the field is read as auto()).
	ParseGrace ParseGrace
	// Mode is what each document does; default ModeInsert.
	Mode Mode
	// UpsertFields are the fields that match an input document to a
	// stored one in the other modes; default _id.
	UpsertFields []string
	// Drop drops the collection first, in the first transaction (so
	// rollback of the change brings it back).
	Drop bool
	// Int32 reads a plain JSON integer that fits in 32 bits as an int, a
	// larger one as a long, as mongoimport does (value.ParseInput).
	// Default false: every plain integer is a long, as omgdb's stored form
	// writes longs.
	Int32 bool
	// ResumeFromLine skips the documents that start before this line
	// (the column names of a header line are still read).
	ResumeFromLine int64
}

// Format is the format of an import's input.
type Format string

// The formats Import reads.
const (
	FormatJSON Format = "json" // JSON documents, or one JSON array with JSONArray
	FormatCSV  Format = "csv"
	FormatTSV  Format = "tsv"
)

// ParseGrace is what a CSV or TSV field its column's type cannot read does.
type ParseGrace string

// The values of ImportOptions.ParseGrace.
const (
	ParseStop      ParseGrace = "stop"
	ParseSkipRow   ParseGrace = "skipRow"
	ParseSkipField ParseGrace = "skipField"
	ParseAutoCast  ParseGrace = "autoCast"
)

// Mode is what an imported document does, as mongoimport's --mode.
type Mode string

// The modes of Import. A document matches a stored one when their
// UpsertFields are equal (each one the input document has).
const (
	ModeInsert Mode = "insert" // insert; an _id that is taken is a bad document
	ModeUpsert Mode = "upsert" // replace the matching document, or insert
	ModeMerge  Mode = "merge"  // set the document's fields in the matching one, or insert
	ModeDelete Mode = "delete" // delete the matching document (the first, in _id order)
)

// maxLineErrors bounds how many bad lines a summary lists.
const maxLineErrors = 100

// ImportSummary is the result of Import, printed by `omgdb import`.
type ImportSummary struct {
	Inserted int64 `json:"inserted"`
	Skipped  int64 `json:"skipped"` // bad documents left out (Skip)
	Lines    int64 `json:"lines"`
	Batches  int   `json:"batches"`
	Matched  int64 `json:"matched"` // documents that matched a stored one
	Updated  int64 `json:"updated"` // of those, the ones that changed
	Deleted  int64 `json:"deleted"`
	Failed   int64 `json:"failed"` // bad documents, including one that stopped the import
	// CommittedThrough is the last line whose documents are all
	// committed (or reported bad): --resume-from-line one past it goes on.
	CommittedThrough int64       `json:"committed_through_line"`
	StoppedAt        int64       `json:"stopped_at_line,omitempty"`
	Dropped          *int64      `json:"dropped,omitempty"` // documents dropped by Drop
	Errors           []LineError `json:"errors"`
	Change           string      `json:"change,omitempty"` // the change id shared by every committed batch
	// DropChange is, over MongoDB, the change of the --drop (a change of
	// its own there, which rollback undoes); a store file's drop is part
	// of Change.
	DropChange string `json:"drop_change,omitempty"`
}

// counts are the counters of a summary that a failed commit takes back.
type counts struct {
	inserted, skipped, matched, updated, deleted, failed int64
	errors                                               int
}

func (s *ImportSummary) counts() counts {
	return counts{s.Inserted, s.Skipped, s.Matched, s.Updated, s.Deleted, s.Failed, len(s.Errors)}
}

func (s *ImportSummary) restore(c counts) {
	s.Inserted, s.Skipped, s.Matched, s.Updated, s.Deleted, s.Failed = c.inserted, c.skipped, c.matched, c.updated, c.deleted, c.failed
	s.Errors = s.Errors[:c.errors]
}

// LineError is a bad document of an import: the line it starts on.
type LineError struct {
	Line   int64  `json:"line"`
	Column int    `json:"column,omitempty"` // CSV and TSV
	Error  string `json:"error"`
}

// Import reads documents from r into coll, creating the collection if
// needed: JSON documents in any layout (one per line, pretty-printed,
// concatenated, after a byte-order mark), one JSON array, or CSV or TSV
// rows (see ImportOptions). It streams: memory stays bounded by one batch.
// Every batch is one transaction of one change, so rollback undoes the
// whole import, whatever its mode. On a bad document it returns an error
// naming its line, unless opts.Skip; the summary says what was written
// either way.
func (db *DB) Import(ctx context.Context, coll string, r io.Reader, opts *ImportOptions) (*ImportSummary, error) {
	if opts == nil {
		opts = &ImportOptions{}
	}
	im := newImporter(db, coll, r, opts)
	defer im.in.close()
	return im.run(ctx)
}

// importer is one run of Import.
type importer struct {
	db      *DB
	coll    string
	opts    *ImportOptions
	in      *prefetcher
	sum     *ImportSummary
	batch   int    // documents per transaction, -1 for one
	change  Change // shared by every batch
	ids     []value.Value
	last    int64 // the last line of the last document handled
	dropped bool
}

func newImporter(db *DB, coll string, r io.Reader, opts *ImportOptions) *importer {
	im := &importer{db: db, coll: coll, opts: opts, batch: opts.BatchSize}
	if im.batch <= 0 {
		im.batch = 10000
	}
	if opts.Atomic {
		im.batch = -1
	}
	kind := opts.Kind
	if kind == "" {
		kind = "import"
	}
	im.change = Change{ID: value.NewOID().Hex(), Kind: kind}
	im.sum = &ImportSummary{Errors: []LineError{}, CommittedThrough: max(0, opts.ResumeFromLine-1)}
	im.last = im.sum.CommittedThrough
	im.in = newPrefetcher(newSource(r, opts), im.prepare, opts.ResumeFromLine)
	return im
}

func newSource(r io.Reader, opts *ImportOptions) docSource {
	if opts.Format == FormatCSV || opts.Format == FormatTSV {
		return newCSVSource(r, opts)
	}
	return newJSONStream(r, opts.JSONArray)
}

func (im *importer) run(ctx context.Context) (*ImportSummary, error) {
	sum := im.sum
	var stop error
	for stop == nil && !im.in.done {
		var t *Tx
		before, last := sum.counts(), im.last
		im.ids = im.ids[:0]
		err := im.db.Update(im.change, func(tx *Tx) error {
			t = tx
			stop = im.batchIn(ctx, tx)
			switch {
			case stop != nil && im.opts.Atomic:
				return stop
			case !im.wrote(before):
				return errNoWrites // leave no empty collection, no empty change
			}
			return nil
		})
		if errors.Is(err, errNoWrites) {
			sum.CommittedThrough = im.last // bad documents, reported
			continue
		}
		if err != nil {
			// The batch was rolled back (with Atomic, it was everything,
			// and the first batch holds the drop).
			sum.restore(before)
			if sum.Batches == 0 {
				sum.Dropped = nil
			}
			im.last = last
			sum.Lines = im.in.line
			return sum, err
		}
		lsn, change := t.LSN(), t.ChangeID()
		t = nil // and let the Tx go
		if err := im.committed(change); err != nil {
			return sum, err
		}
		// Between batches, let a process waiting for the store in
		// (handoff.go).
		if stop == nil && !im.in.done {
			if err := im.db.yieldLock(ctx, lsn); err != nil {
				sum.Lines = im.in.line
				return sum, err
			}
		}
	}
	sum.Lines = im.in.line
	if stop == nil && im.in.eof {
		sum.Lines = max(sum.Lines, im.in.total)
		sum.CommittedThrough = max(sum.CommittedThrough, im.in.total)
	}
	return sum, stop
}

// wrote reports whether the batch begun with the counts before wrote
// anything (or dropped the collection).
func (im *importer) wrote(before counts) bool {
	after := im.sum.counts()
	return after.inserted+after.updated+after.deleted > before.inserted+before.updated+before.deleted ||
		im.sum.Dropped != nil && im.sum.Batches == 0
}

// committed records a batch that wrote something and committed as part of
// change.
func (im *importer) committed(change string) error {
	sum := im.sum
	sum.CommittedThrough = im.last
	sum.Batches++
	sum.Change = change
	if im.opts.Progress != nil {
		im.opts.Progress(im.in.line, im.in.bytes)
	}
	if im.opts.OnInsert != nil {
		for _, id := range im.ids {
			if err := im.opts.OnInsert(id); err != nil {
				return err
			}
		}
	}
	return nil
}

// batchIn writes one batch in tx and returns the error that stops the
// import, if any.
func (im *importer) batchIn(ctx context.Context, tx *Tx) error {
	if im.batch > 0 {
		tx.ops = slices.Grow(tx.ops, im.batch) // one journal op per document
	}
	if err := im.drop(tx); err != nil {
		return err
	}
	c, err := tx.CreateCollection(im.coll)
	if err != nil {
		return err
	}
	return im.writeBatch(ctx, c)
}

// drop drops the collection, in the first transaction, for Drop.
func (im *importer) drop(tx *Tx) error {
	if !im.opts.Drop || im.dropped {
		return nil
	}
	im.dropped = true
	c, err := tx.Collection(im.coll)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	n := c.Count()
	im.sum.Dropped = &n
	return tx.DropCollection(im.coll)
}

// writeBatch writes up to a batch of documents (all when the batch is
// -1), going on to the end of the line the last one ends on.
func (im *importer) writeBatch(ctx context.Context, c *Collection) error {
	sum := im.sum
	for n := 0; im.batch < 0 || n < im.batch || im.sameLine(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		it, err := im.in.next()
		if err == io.EOF {
			return nil
		}
		if err = it.err; err == nil {
			if err = im.write(ctx, c, it); err == nil {
				im.last = it.last
				failpoint.Hit(failpoint.ImportBatch)
				continue
			}
		}
		if errors.Is(err, errReadFailed) {
			return err
		}
		sum.Failed++
		if len(sum.Errors) < maxLineErrors {
			sum.Errors = append(sum.Errors, LineError{Line: it.line, Column: it.col, Error: err.Error()})
		}
		if !im.opts.Skip && !errors.Is(err, errSkipRow) || errors.Is(err, errFormat) {
			sum.StoppedAt = it.line
			im.last = min(im.last, it.line-1) // its line is not done
			return im.lineError(it, err)
		}
		sum.Skipped++
		im.last = it.last
	}
	return nil
}

// sameLine reports whether the next document starts on the line the last
// one ended on.
func (im *importer) sameLine() bool {
	it, ok := im.in.peek()
	return ok && it.line == im.last
}

// insertPrepared inserts a line that AppendCanonicalDocument prepared, as
// InsertJSON would.
func (c *Collection) insertPrepared(val []byte, id value.Value) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	return c.insert(val, id, value.Value{})
}

// lineError is the error that stops an import at a bad document.
func (im *importer) lineError(it prepared, err error) error {
	at := fmt.Sprintf("line %d", it.line)
	if it.col > 0 {
		at += fmt.Sprintf(", column %d", it.col)
	}
	e := errs.Errorf(errs.KindOf(err), "%s: %v", at, err)
	e.Err = err
	written := im.sum.Inserted + im.sum.Updated + im.sum.Deleted
	switch {
	case errors.Is(err, errFormat):
		e.Hint = errs.HintOf(err)
	case im.opts.Atomic:
		e.Hint = "nothing was imported (--atomic); fix the line, or pass --on-error skip to leave bad lines out"
	case written > 0 && (im.opts.Mode == "" || im.opts.Mode == ModeInsert):
		e.Hint = fmt.Sprintf("the %d documents before line %d were imported; fix the line and go on with --resume-from-line %d, or pass --on-error skip", written, it.line, it.line)
	case written > 0:
		e.Hint = fmt.Sprintf("the documents before line %d were written (%d inserted, %d updated, %d deleted); fix the line and go on with --resume-from-line %d, or pass --on-error skip",
			it.line, im.sum.Inserted, im.sum.Updated, im.sum.Deleted, it.line)
	default:
		e.Hint = "nothing was imported; fix the line, or pass --on-error skip to leave bad lines out"
	}
	if errors.Is(err, ErrDuplicateID) && (im.opts.Mode == "" || im.opts.Mode == ModeInsert) {
		e.Hint += "; --mode upsert replaces the documents that are there"
	}
	if im.sum.Dropped != nil && !im.opts.Atomic {
		e.Hint += fmt.Sprintf("; --drop dropped the collection first (%d documents): rolling back the import's change brings it back", *im.sum.Dropped)
	}
	return e
}

var errReadFailed = errors.New("read failed")

// errNoWrites rolls back an import's transaction that wrote nothing (the
// input was empty, its documents were all bad, or matched nothing to
// delete): it would leave only an empty collection and an empty change.
var errNoWrites = errors.New("no writes")

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

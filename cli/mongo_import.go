package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoImporter is one import (or insert of NDJSON) over MongoDB: the
// documents read by a store.ImportReader, written by a
// mongoengine.Inserter in ordered batches, all one change.
type mongoImporter struct {
	in       mongoBatchWriter
	rd       *store.ImportReader
	opts     *store.ImportOptions
	sum      *store.ImportSummary
	batch    int
	last     int64 // the last line whose documents are all written or reported
	readLast int64 // the last line of the last document read
	stopLast int64 // the last line of a document the server refused, when it stopped the import
	onInsert func(value.Value) error
}

// mongoBatchWriter writes (an Inserter) or plans (an ImportPlan) an
// import's documents batch by batch.
type mongoBatchWriter interface {
	Insert(ctx context.Context, docs []value.Value) (ids []value.Value, n int, bad int, err error)
	ChangeID() string
	Target() string
}

func newMongoImporter(in mongoBatchWriter, r io.Reader, opts *store.ImportOptions) *mongoImporter {
	m := &mongoImporter{in: in, rd: store.NewImportReader(r, opts), opts: opts, batch: opts.BatchSize}
	if m.batch <= 0 {
		m.batch = 10000
	}
	m.last = max(0, opts.ResumeFromLine-1)
	m.sum = &store.ImportSummary{Errors: []store.LineError{}, CommittedThrough: m.last}
	return m
}

// run imports every batch and returns the summary and the error that
// stopped the import, if any.
func (m *mongoImporter) run(ctx context.Context) (*store.ImportSummary, error) {
	defer m.rd.Close()
	for {
		docs, lines, eof, stop := m.read(ctx)
		if ctx.Err() != nil {
			// Interrupted: send nothing more; the batch read is not
			// written, the lines before it are.
			m.sum.CommittedThrough = m.last
			return m.end(), ctx.Err()
		}
		if len(docs) > 0 {
			if err := m.write(ctx, docs, lines); err != nil {
				m.sum.CommittedThrough = m.last
				return m.end(), err
			}
		}
		switch {
		case stop != nil && m.sum.StoppedAt > 0:
			m.last = min(max(m.last, m.readLast), m.sum.StoppedAt-1) // its line is not done
		case stop == nil:
			m.last = max(m.last, m.readLast)
		}
		m.sum.CommittedThrough = m.last
		if stop != nil {
			return m.end(), stop
		}
		if eof {
			m.sum.CommittedThrough = max(m.last, m.rd.Lines())
			return m.end(), nil
		}
	}
}

func (m *mongoImporter) end() *store.ImportSummary {
	m.sum.Lines = m.rd.Lines()
	if m.stopLast > 0 {
		m.sum.Lines = m.stopLast // the lines read after it were not handled
	}
	m.sum.Change = m.in.ChangeID()
	return m.sum
}

// read reads up to a batch of documents (going on to the end of the line
// the last one ends on), reporting bad ones; stop is the error of a bad
// document that stops the import, after the documents before it.
func (m *mongoImporter) read(ctx context.Context) (docs []value.Value, lines []store.ImportDoc, eof bool, stop error) {
	for n := 0; n < m.batch || m.sameLine(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return docs, lines, false, err
			}
		}
		d, err := m.rd.Next()
		if err == io.EOF {
			return docs, lines, true, nil
		}
		if d.Err == nil || !d.Stops {
			m.readLast = max(m.readLast, d.Last)
		}
		if d.Err == nil {
			docs, lines = append(docs, d.Doc), append(lines, store.ImportDoc{Line: d.Line, Last: d.Last})
			continue
		}
		if m.bad(d, d.Err) && (!m.opts.Skip && !d.SkipRow || d.Stops) {
			return docs, lines, false, m.lineError(d, d.Err, int64(len(docs)))
		}
		m.sum.Skipped++
	}
	return docs, lines, false, nil
}

// sameLine reports whether the next document starts on the line the last
// one read ended on.
func (m *mongoImporter) sameLine() bool {
	d, ok := m.rd.Peek()
	return ok && d.Line == m.rd.Lines()
}

// bad records a bad document in the summary and returns true.
func (m *mongoImporter) bad(d store.ImportDoc, err error) bool {
	m.sum.Failed++
	if len(m.sum.Errors) < 100 {
		m.sum.Errors = append(m.sum.Errors, store.LineError{Line: d.Line, Column: d.Column, Error: err.Error()})
	}
	return true
}

// write inserts a batch; a document the server refuses is a bad document
// (skipped with Skip: the rest of the batch is sent on).
func (m *mongoImporter) write(ctx context.Context, docs []value.Value, lines []store.ImportDoc) error {
	wrote := false
	for len(docs) > 0 {
		// A batch once begun is finished and recorded, even after Ctrl-C
		// (run stops before the next one): so an interrupt never leaves a
		// batch half known.
		ids, n, bad, err := m.in.Insert(context.WithoutCancel(ctx), docs)
		if n > 0 && !wrote {
			m.sum.Batches++ // a batch, as on a file, however many calls it takes
			wrote = true
		}
		if n > 0 {
			m.sum.Inserted += int64(n)
			if err := m.inserted(ids[:n]); err != nil {
				return err
			}
		}
		if err != nil && bad < 0 {
			return m.unknown(err, lines)
		}
		if err == nil {
			m.last = lines[len(lines)-1].Last
			if m.opts.Progress != nil {
				m.opts.Progress(m.rd.Lines(), m.rd.Bytes())
			}
			return nil
		}
		m.last = max(m.last, lines[bad].Line-1)
		m.bad(lines[bad], err)
		if !m.opts.Skip {
			m.stopLast = lines[bad].Last
			return m.lineError(lines[bad], err, 0)
		}
		m.sum.Skipped++
		m.last = lines[bad].Last
		docs, lines = docs[bad+1:], lines[bad+1:]
	}
	return nil
}

func (m *mongoImporter) inserted(ids []value.Value) error {
	if m.onInsert == nil {
		return nil
	}
	for _, id := range ids {
		if err := m.onInsert(id); err != nil {
			return err
		}
	}
	return nil
}

// unknown is the error of a batch whose outcome the server did not say
// (a dropped connection): its documents may be partly written.
func (m *mongoImporter) unknown(err error, lines []store.ImportDoc) error {
	if _, ok := m.in.(*mongoengine.Inserter); !ok {
		return err // a plan: nothing was written
	}
	e := errs.Errorf(errs.KindOf(err), "%v (the batch of lines %d to %d may be partly written: each of its documents is either inserted or not, and its change %s stays \"applying\" in the journal until its lease expires, %s after this error)",
		err, lines[0].Line, lines[len(lines)-1].Last, m.in.ChangeID(), mongoengine.LeaseTime)
	e.Err = err
	e.Hint = fmt.Sprintf("once the cause is fixed, go on with --resume-from-line %d and --on-error skip (the import is committed through line %d; a document of that batch already written is then a duplicate), or undo the whole import with `omgdb rollback %s %s` once the lease has expired",
		m.last+1, m.last, m.in.Target(), m.in.ChangeID())
	return e
}

// lineError is the error that stops the import at a bad document, as on
// a store file; pending is how many documents read before it are still
// to be written.
func (m *mongoImporter) lineError(d store.ImportDoc, err error, pending int64) error {
	at := fmt.Sprintf("line %d", d.Line)
	if d.Column > 0 {
		at += fmt.Sprintf(", column %d", d.Column)
	}
	m.sum.StoppedAt = d.Line
	e := errs.Errorf(errs.KindOf(err), "%s: %v", at, err)
	e.Err = err
	written := m.sum.Inserted + pending
	switch {
	case d.Stops:
		e.Hint = errs.HintOf(err)
	case written > 0:
		e.Hint = fmt.Sprintf("the %d documents before line %d were imported; fix the line and go on with --resume-from-line %d, or pass --on-error skip", written, d.Line, d.Line)
	default:
		e.Hint = "nothing was imported; fix the line, or pass --on-error skip to leave bad lines out"
	}
	if errors.Is(err, mongoengine.ErrDuplicateID) {
		e.Hint += "; --mode upsert replaces the documents that are there (on a store file)"
	}
	return e
}

// refuseOverMongo refuses, over MongoDB, the options an import does not
// have there yet, before anything is read or sent.
func (o *importOptions) refuseOverMongo() error {
	if !isMongo(o.path) || !o.mongo.drop {
		return nil
	}
	if o.atomic || o.mongo.mode != mongoengine.ModeInsert {
		return usage("--drop works over MongoDB with --mode insert only, not with --mode %s or --atomic", o.mongo.mode).
			WithHint("after the drop the collection is empty, so --mode insert imports the same documents; or drop first with `omgdb drop`, then import")
	}
	return nil
}

// mongoImport is import over MongoDB (mode insert only): one change,
// ordered insertMany batches.
func (e *env) mongoImport(ctx context.Context, opts *importOptions, in io.Reader, size int64, iopts *store.ImportOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		if opts.mongo.mode != mongoengine.ModeInsert || opts.atomic {
			return e.mongoImportPlan(ctx, db, opts, in, size, iopts)
		}
		ins, err := db.NewInserter(opts.coll, mongoengine.KindImport, "cli")
		if err != nil {
			return err
		}
		var drop *mongoengine.SchemaResult
		if opts.mongo.drop { // first, as a file's first batch and mongoimport drop
			drop, err = db.Drop(ctx, opts.coll, "cli")
			if errs.KindOf(err) == errs.NotFound {
				err = nil // nothing to drop
			}
			if err != nil {
				return err
			}
		}
		bar := e.progress("importing", size)
		iopts.Progress = func(lines, bytes int64) { bar.update(lines, bytes) }
		sum, err := newMongoImporter(ins, in, iopts).run(ctx)
		bar.done()
		if _, cerr := ins.Close(context.WithoutCancel(ctx)); cerr != nil && err == nil {
			err = cerr
		}
		if drop != nil {
			n := drop.Documents
			sum.Dropped, sum.DropChange = &n, drop.ChangeID
			var qe *errs.Error
			if errors.As(err, &qe) {
				qe.Hint += fmt.Sprintf("; --drop dropped the collection first (%d documents, change %s): `omgdb rollback` of that change brings it back", n, drop.ChangeID)
			}
		}
		js, _ := json.Marshal(sum)
		e.stdout.Write(append(js, '\n'))
		if err != nil && errors.Is(context.Cause(ctx), errInterrupted) {
			return importInterrupted(mongoengine.RedactURI(opts.path), opts.coll, opts.file, sum.Inserted, sum.CommittedThrough)
		}
		return withResumeHint(err, sum, opts)
	})
}

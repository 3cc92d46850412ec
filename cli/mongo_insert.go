package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoInsertBatch is how many documents of `insert -` one insertMany
// sends over MongoDB.
const mongoInsertBatch = 10000

// mongoInsert is insert over MongoDB: one change in the journal, written
// with ordered insertMany. Every document is read and checked before any
// is sent, so a bad line writes nothing. A document the server refuses
// (a taken _id) stops the insert, and the documents written before it
// are rolled back, so that, as on a store file, the insert writes all
// its documents or none; the _ids are printed once all are written.
func (e *env) mongoInsert(ctx context.Context, opts *insertOptions) error {
	docs, lines, err := e.mongoInsertDocs(opts.doc)
	if err != nil {
		return err
	}
	docs = mongoengine.WithIDs(docs)
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		if err := checkRules(ctx, db, opts.coll, docs, lines); err != nil {
			return err
		}
		ins, err := db.NewInserter(opts.coll, mongoengine.KindInsert, "cli")
		if err != nil {
			return err
		}
		ids, werr := insertAll(ctx, ins, docs)
		res, err := ins.Close(context.WithoutCancel(ctx))
		if werr != nil {
			return undoInsert(db, werr, res, opts.path)
		}
		if err != nil {
			return err
		}
		out := e.output(false)
		defer out.flush()
		for _, id := range ids {
			if err := out.doc(id); err != nil {
				return err
			}
		}
		return nil
	})
}

// mongoInsertDocs parses the document argument, or every line of
// standard input for "-", before anything is sent.
func (e *env) mongoInsertDocs(arg string) (docs []value.Value, lines []int64, err error) {
	if arg != "-" {
		doc, err := e.parseDocArg(arg, "document")
		if err == nil {
			doc, err = value.PrepareDocument(doc)
		}
		return []value.Value{doc}, nil, err
	}
	rd := store.NewImportReader(e.stdin, &store.ImportOptions{Int32: true})
	defer rd.Close()
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return docs, lines, nil
		}
		if d.Err != nil {
			return nil, nil, lineErr(d.Line, d.Err)
		}
		docs, lines = append(docs, d.Doc), append(lines, d.Line)
	}
}

// lineErr is the error of a bad line of an insert's input: nothing was
// inserted.
func lineErr(line int64, err error) error {
	qe := errs.Errorf(errs.KindOf(err), "line %d: %v", line, err)
	qe.Err = err
	qe.Hint = "nothing was inserted; fix the line and insert again"
	return qe
}

// checkRules checks every document of an insert against the collection's
// rules before any is sent, as a store file's insert checks them in its
// one transaction: the first that breaks them (its line, for input read
// from stdin) is the error, and nothing is inserted.
func checkRules(ctx context.Context, db *mongoengine.DB, coll string, docs []value.Value, lines []int64) error {
	r, err := db.Rules(ctx, coll)
	if err != nil || r == nil {
		return err
	}
	for i, doc := range docs {
		if err := r.Check(coll, doc); err != nil {
			if lines == nil {
				return err
			}
			return lineErr(lines[i], err)
		}
	}
	return nil
}

// insertAll inserts docs in batches and returns the _ids written. A
// batch once sent is finished even if ctx ends; ctx is checked between
// batches.
func insertAll(ctx context.Context, ins *mongoengine.Inserter, docs []value.Value) ([]value.Value, error) {
	var all []value.Value
	for len(docs) > 0 {
		if err := ctx.Err(); err != nil {
			return all, err // interrupted between batches: the caller undoes them
		}
		n := min(len(docs), mongoInsertBatch)
		ids, written, _, err := ins.Insert(context.WithoutCancel(ctx), docs[:n])
		all = append(all, ids[:written]...)
		if err != nil {
			return all, err
		}
		docs = docs[n:]
	}
	return all, nil
}

// undoInsert rolls back the documents an insert wrote before the server
// refused one, and returns the error that says so.
func undoInsert(db *mongoengine.DB, err error, res *mongoengine.ApplyResult, path string) error {
	qe := errs.Errorf(errs.KindOf(err), "%v", err)
	qe.Err, qe.Hint = err, errs.HintOf(err)
	if qe.Hint != "" {
		qe.Hint += "; "
	}
	if res == nil || res.ChangeID == "" {
		qe.Hint += "nothing was inserted"
		return qe
	}
	rb, rerr := db.Rollback(context.Background(), res.ChangeID, &mongoengine.ApplyOptions{Actor: "cli"})
	switch {
	case rerr != nil:
		qe.Hint += fmt.Sprintf("the %d documents before it were inserted as change %s, and removing them failed (%v): undo them with `omgdb rollback %s %s`",
			res.Inserted, res.ChangeID, rerr, mongoengine.RedactURI(path), res.ChangeID)
	case len(rb.Conflicts) > 0:
		qe.Hint += fmt.Sprintf("the %d documents before it were inserted as change %s; %d of them were changed by another writer since and are left as they are (rollback %s)",
			res.Inserted, res.ChangeID, len(rb.Conflicts), rb.ChangeID)
	default:
		qe.Hint += fmt.Sprintf("nothing was inserted: the %d documents written before it were removed again (change %s, rolled back by %s)", res.Inserted, res.ChangeID, rb.ChangeID)
	}
	return qe
}

package mongoengine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Kinds of the changes an Inserter journals.
const (
	KindInsert = "insert"
	KindImport = "import"
)

// ErrDuplicateID is wrapped by the error of a document whose _id (or a
// unique key) is taken.
var ErrDuplicateID = errors.New("mongoengine: duplicate key")

// Inserter is one insert or import: one change in omgdb.changes, written
// in ordered insertMany batches. Before a batch is sent, its documents
// are stored as the change's items (omgdb.plan_items, op insert, the
// document as after, no state) and their _ids recorded in the change
// (field "pending"); once the server has written them, the items of the
// documents it wrote are marked applied, the others dropped, and the
// pending list is cleared. So Rollback deletes exactly the inserted
// documents (each under its precondition: still equal to what was
// inserted), and after a crash, the documents written without their mark
// are among the unmarked items, with the document each was (Rollback of
// the interrupted change deletes those the server holds unchanged). The
// change is journaled with the first batch that has documents, and holds
// a lease (lease.go) until Close: an Inserter that writes nothing leaves
// no change. It is not safe for concurrent use; Close must be called.
type Inserter struct {
	d       *DB
	p       *Plan
	tok     bson.ObjectID
	started bool
	unknown bool // a batch's outcome is unknown: the change stays applying
	l       *lease
	seq     int64
	res     ApplyResult
	rules   lazyRules
}

// NewInserter starts an insert (kind KindInsert) or import (KindImport)
// into coll, by actor. Nothing is written until Insert.
func (d *DB) NewInserter(coll, kind, actor string) (*Inserter, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	p := newPlan(kind, &PlanSpec{Collection: coll, Actor: actor})
	tok, _ := bson.ObjectIDFromHex(p.Token)
	in := &Inserter{d: d, p: p, tok: tok}
	in.res = ApplyResult{Token: p.Token, ChangeID: p.Token, Kind: kind, Collection: coll}
	return in, nil
}

// ChangeID is the id of the change in the journal (empty until a batch
// has been sent).
func (in *Inserter) ChangeID() string {
	if !in.started {
		return ""
	}
	return in.p.Token
}

// Target is the deployment's URI as it may be printed (credentials
// replaced).
func (in *Inserter) Target() string { return in.d.target.Redacted }

// Inserted is how many documents the server wrote so far.
func (in *Inserter) Inserted() int64 { return in.res.Inserted }

// Insert writes docs (prepared documents; a missing _id gets an ObjectId,
// first) in one ordered insertMany, and returns their _ids, how many were
// written (all of them, or those before the first the server refused)
// and the index of the refused one (-1 for none), whose error (wrapping
// ErrDuplicateID for a taken key) is returned. Any other error leaves the
// batch's writes unknown: the change stays applying in the journal, with
// the batch's _ids pending.
func (in *Inserter) Insert(ctx context.Context, docs []value.Value) (ids []value.Value, n int, bad int, err error) {
	docs = WithIDs(docs)
	bad, berr := in.rules.first(ctx, in.d, in.p.Collection, docs)
	if bad < 0 && berr != nil {
		return nil, 0, -1, berr
	}
	if bad >= 0 { // the documents before it are written, as before a duplicate
		docs = docs[:bad]
	}
	rows, ids, bids, err := in.prepare(docs)
	if err != nil || len(rows) == 0 {
		if err == nil && berr != nil {
			return ids, 0, bad, berr
		}
		return ids, 0, -1, err
	}
	if err := in.start(ctx); err != nil {
		return nil, 0, -1, err
	}
	if err := in.l.check(); err != nil {
		return nil, 0, -1, err
	}
	if err := in.stage(ctx, rows, bids); err != nil {
		return nil, 0, -1, err
	}
	_, ierr := in.d.db.Collection(in.p.Collection).InsertMany(ctx, rows, options.InsertMany().SetOrdered(true))
	n, wbad, ierr := in.written(ctx, ierr, ids)
	if ierr != nil && wbad < 0 {
		in.unknown = true
		return ids, 0, -1, wrapErr(in.d.target, "insert in", ierr)
	}
	if err := in.record(ctx, n, len(rows)); err != nil {
		in.unknown = true
		return ids, n, wbad, err
	}
	if ierr == nil && berr != nil {
		return ids, n, len(rows), berr
	}
	return ids, n, wbad, ierr
}

// prepare gives each document its _id (WithIDs) and converts it to BSON.
func (in *Inserter) prepare(docs []value.Value) (rows []any, ids []value.Value, bids bson.A, err error) {
	docs = WithIDs(docs)
	for _, doc := range docs {
		id := doc.Get("_id")
		row, err := docToBSON(doc)
		if err != nil {
			return nil, nil, nil, err
		}
		bid, err := toBSON(id)
		if err != nil {
			return nil, nil, nil, err
		}
		rows, ids, bids = append(rows, row), append(ids, id), append(bids, bid)
	}
	return rows, ids, bids, nil
}

// stage records the batch about to be sent: each document as an item of
// the change (op insert, its document as after, no state yet) and their
// _ids as the change's pending ones, so that after a crash the documents
// written without being marked are known, with what was written.
func (in *Inserter) stage(ctx context.Context, rows []any, ids bson.A) error {
	items := make([]any, len(rows))
	for i, row := range rows {
		items[i] = bson.D{{Key: "plan", Value: in.tok}, {Key: "seq", Value: in.seq + int64(i)}, {Key: "id", Value: ids[i]},
			{Key: "op", Value: OpInsert}, {Key: "after", Value: row}}
	}
	if _, err := in.d.db.Collection(PlanItemsColl).InsertMany(ctx, items); err != nil {
		return wrapErr(in.d.target, "journal the change in", err)
	}
	return in.pending(ctx, ids)
}

// pending sets the change's pending _ids (nil: none).
func (in *Inserter) pending(ctx context.Context, ids bson.A) error {
	if ids == nil {
		ids = bson.A{}
	}
	_, err := in.d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: in.tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "pending", Value: ids}}}})
	if err != nil {
		return wrapErr(in.d.target, "journal the change in", err)
	}
	return nil
}

// record marks the first n of the staged batch's total items applied (the
// documents the server wrote), drops the others, and clears the pending
// _ids.
func (in *Inserter) record(ctx context.Context, n, total int) error {
	items := in.d.db.Collection(PlanItemsColl)
	first, end := in.seq, in.seq+int64(n)
	if n > 0 {
		_, err := items.UpdateMany(ctx, bson.D{{Key: "plan", Value: in.tok}, {Key: "seq", Value: bson.D{{Key: "$gte", Value: first}, {Key: "$lt", Value: end}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}})
		if err != nil {
			return wrapErr(in.d.target, "journal the change in", err)
		}
	}
	if n < total {
		if _, err := items.DeleteMany(ctx, bson.D{{Key: "plan", Value: in.tok}, {Key: "seq", Value: bson.D{{Key: "$gte", Value: end}}}}); err != nil {
			return wrapErr(in.d.target, "journal the change in", err)
		}
	}
	in.seq = end
	in.res.Inserted += int64(n)
	return in.pending(ctx, nil)
}

// start journals the change as applying, with its plan, before its first
// batch is sent.
func (in *Inserter) start(ctx context.Context) error {
	if in.started {
		return nil
	}
	p := in.p
	p.Status = StatusApplying
	ix := mongo.IndexModel{Keys: bson.D{{Key: "plan", Value: 1}, {Key: "seq", Value: 1}}}
	if _, err := in.d.db.Collection(PlanItemsColl).Indexes().CreateOne(ctx, ix); err != nil {
		return wrapErr(in.d.target, "index the plans in", err)
	}
	if _, err := in.d.db.Collection(PlansColl).InsertOne(ctx, planDoc(in.tok, p)); err != nil {
		return wrapErr(in.d.target, "store the plan in", err)
	}
	l, err := in.d.journalStart(ctx, p, p.Actor)
	if err != nil {
		return err
	}
	in.l, in.started = l, true
	return nil
}

// written reads an ordered insertMany's error: how many documents were
// written, and the index and error of the one refused (-1 and the error
// when the outcome is unknown).
func (in *Inserter) written(ctx context.Context, err error, ids []value.Value) (int, int, error) {
	if err == nil {
		return len(ids), -1, nil
	}
	var bw mongo.BulkWriteException
	if !errors.As(err, &bw) || len(bw.WriteErrors) == 0 || bw.WriteConcernError != nil {
		return 0, -1, err
	}
	we := bw.WriteErrors[0]
	if we.Index < 0 || we.Index >= len(ids) {
		return 0, -1, err
	}
	msg := Redact(we.Message, in.d.target.URI)
	if mongo.IsDuplicateKeyError(we) {
		return we.Index, we.Index, in.duplicate(ctx, ids[we.Index], msg)
	}
	return we.Index, we.Index, errs.Errorf(errs.Invalid, "the server refused the document with _id %s: %s", ids[we.Index], msg).
		WithHint("fix the document; the documents before it were written")
}

// Close ends the change: it is applied in the journal with the count of
// documents inserted (history lists it; rollback undoes it). A change
// that inserted nothing is removed, with its plan. The result's ChangeID
// is empty when nothing was journaled. After a batch whose outcome is
// unknown, the change is left applying, with that batch's _ids pending.
func (in *Inserter) Close(ctx context.Context) (*ApplyResult, error) {
	defer in.l.release()
	res := in.res
	if in.unknown {
		return &res, nil
	}
	if !in.started {
		res.ChangeID = ""
		return &res, nil
	}
	if res.Inserted == 0 {
		res.ChangeID = ""
		return &res, in.d.forget(ctx, in.tok)
	}
	if err := in.d.journalEnd(ctx, in.p, &res, in.l); err != nil {
		return nil, err
	}
	return &res, nil
}

// forget removes a change that wrote nothing, and its plan.
func (d *DB) forget(ctx context.Context, tok bson.ObjectID) error {
	for _, c := range []string{ChangesColl, PlansColl} {
		if _, err := d.db.Collection(c).DeleteOne(ctx, bson.D{{Key: "_id", Value: tok}}); err != nil {
			return wrapErr(d.target, fmt.Sprintf("remove an empty change from %s in", c), err)
		}
	}
	if _, err := d.db.Collection(PlanItemsColl).DeleteMany(ctx, bson.D{{Key: "plan", Value: tok}}); err != nil {
		return wrapErr(d.target, "remove an empty change from", err)
	}
	return nil
}

// duplicate is the error of a document whose key is taken: its _id (as
// on a store file), or a unique index. MongoDB names the index in its
// message ("index: email_1 dup key: …"); a server that does not (FerretDB
// says only "E11000 duplicate key error collection: …") is asked whether
// the _id is taken, so that a unique index is never reported as an _id.
func (in *Inserter) duplicate(ctx context.Context, id value.Value, msg string) error {
	byIndex := strings.Contains(msg, "index: ") && !strings.Contains(msg, "index: _id_ ")
	if !strings.Contains(msg, "index: ") {
		if bid, err := toBSON(id); err == nil {
			n, err := in.d.db.Collection(in.p.Collection).CountDocuments(ctx, bson.D{{Key: "_id", Value: bid}})
			byIndex = err == nil && n == 0
		}
	}
	return duplicate(id, in.p.Collection, byIndex, msg)
}

// duplicate is the error of a document whose _id is taken or, byIndex,
// that a unique index refuses (msg: the server's message).
func duplicate(id value.Value, coll string, byIndex bool, msg string) error {
	e := errs.Errorf(errs.Conflict, "duplicate _id %s in collection `%s`", id, coll).
		WithHint("each document needs a unique _id; omit _id to have one generated")
	if byIndex {
		e = errs.Errorf(errs.Conflict, "the document with _id %s in collection `%s` breaks a unique index: %s", id, coll, msg).
			WithHint("change the document's value of the index's fields, or leave it out")
	}
	e.Err = ErrDuplicateID
	return e
}

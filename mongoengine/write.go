package mongoengine

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// ApplyOptions configure Apply. The zero value is the default.
type ApplyOptions struct {
	Actor string // who applies it
	// Force writes over documents that changed since the plan (a
	// rollback's --force): the only precondition is the _id.
	Force bool
}

// Conflict is a planned document that apply did not write because its
// precondition failed.
type Conflict struct {
	ID     value.Value
	Reason string
}

// ApplyResult is what Apply did.
type ApplyResult struct {
	Token      string
	ChangeID   string // the plan's token: the change's id in omgdb.changes
	Kind       string // the plan's kind
	Collection string
	Inserted   int64
	Updated    int64
	Deleted    int64
	Conflicts  []Conflict // documents not written, in plan order
	// Transaction is true when the plan was applied in one
	// multi-document transaction: then a conflict writes nothing.
	Transaction bool
	// Unwritten counts the documents not written because the apply
	// stopped at its deadline (deadline.go); 0 when it ran to its end.
	Unwritten int64
}

// Written is how many documents the apply wrote.
func (r *ApplyResult) Written() int64 { return r.Inserted + r.Updated + r.Deleted }

// errAbort aborts a transaction whose preconditions failed.
var errAbort = errors.New("mongoengine: a precondition failed")

// Apply applies a pending plan. When ctx ends between documents it
// stops there (deadline.go) and returns the result so far with an error
// (kind Limit) that says what was written. It claims the plan (pending to applying,
// so that it applies once), journals the change in omgdb.changes, then
// writes each document under a precondition: it must still equal its
// before-image (or, for an insert, its _id must still be free). On a
// deployment with transactions (a replica set or mongos) every write is
// in one transaction, and any conflict writes nothing; elsewhere the
// documents are written one by one, the others are written, and every
// conflict is listed in the result.
func (d *DB) Apply(ctx context.Context, token string, opts *ApplyOptions) (*ApplyResult, error) {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	p, err := d.LoadPlan(ctx, token)
	if err != nil {
		return nil, err
	}
	// The rules may have changed since the plan: checked again, before
	// anything is written.
	if err := d.checkItems(ctx, p.Collection, p.Items); err != nil {
		return nil, err
	}
	// From the claim on, the journal's steps run to their end whatever
	// ctx: ctx is checked between documents only (deadline.go).
	wctx := context.WithoutCancel(ctx)
	if err := d.claim(wctx, p); err != nil {
		return nil, err
	}
	res := &ApplyResult{Token: token, ChangeID: token, Kind: p.Kind, Collection: p.Collection}
	if err := d.createTarget(wctx, p); err != nil {
		return nil, err
	}
	if len(p.Items) == 0 {
		return res, d.markApplied(wctx, p) // nothing to write: no change in the journal
	}
	l, err := d.journalStart(wctx, p, opts.Actor)
	if err != nil {
		return nil, err
	}
	defer l.release()
	if res.Transaction, err = d.transactions(wctx); err != nil {
		return nil, err
	}
	return d.writeAndEnd(ctx, p, opts.Force, res, l)
}

// writeAndEnd writes the plan's items not yet marked (all of them for a
// new apply; the rest for a resumed one: resume.go) under the lease l,
// in one transaction when res.Transaction, and journals the end: applied,
// partial when ctx ended between documents, or left applying (with an
// error) when the writes failed.
func (d *DB) writeAndEnd(ctx context.Context, p *Plan, force bool, res *ApplyResult, l *lease) (*ApplyResult, error) {
	wctx, token := context.WithoutCancel(ctx), p.Token
	var err error
	if res.Transaction {
		err = d.applyInTransaction(ctx, p, force, res, l)
	} else {
		err = d.writeItems(ctx, p, force, res, l)
	}
	if errors.Is(err, errStopped) {
		return d.stopped(wctx, p, res, l, err)
	}
	if err != nil {
		e := errs.Errorf(errs.KindOf(err), "apply %s: %v (change %s stays \"applying\" in %s until its lease expires, %s after this error, then it is interrupted)",
			token, err, token, ChangesColl, LeaseTime).
			WithHint("check the deployment; then `omgdb apply %s %s --resume` finishes it, or `omgdb rollback %s %s` undoes exactly what was written", d.target.Redacted, token, d.target.Redacted, token)
		e.Err = err
		return nil, e
	}
	return res, d.journalEnd(wctx, p, res, l)
}

// applyInTransaction writes the plan in one transaction; on a conflict,
// or when the context ends before the last document, nothing is
// written, the change is dropped from the journal and the plan is
// pending again.
func (d *DB) applyInTransaction(ctx context.Context, p *Plan, force bool, res *ApplyResult, l *lease) error {
	s, err := d.client.StartSession()
	if err != nil {
		return wrapErr(d.target, "start a session on", err)
	}
	defer s.EndSession(context.Background())
	_, err = s.WithTransaction(ctx, func(tx context.Context) (any, error) {
		res.Inserted, res.Updated, res.Deleted, res.Conflicts = 0, 0, 0, nil
		if err := d.writeItems(tx, p, force, res, l); err != nil {
			return nil, err
		}
		if len(res.Conflicts) > 0 {
			return nil, errAbort
		}
		return nil, nil
	})
	stopped := errors.Is(err, errStopped)
	if !errors.Is(err, errAbort) && !stopped {
		return err
	}
	res.Inserted, res.Updated, res.Deleted = 0, 0, 0
	if stopped {
		res.Conflicts = nil
	}
	if uerr := d.unclaim(context.WithoutCancel(ctx), p); uerr != nil || !stopped {
		return uerr
	}
	return err
}

// transactions reports whether the deployment runs multi-document
// transactions: a replica set member or a mongos answers hello with a
// setName or msg "isdbgrid".
func (d *DB) transactions(ctx context.Context) (bool, error) {
	var h struct {
		SetName string `bson:"setName"`
		Msg     string `bson:"msg"`
	}
	if err := d.db.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h); err != nil {
		return false, wrapErr(d.target, "ask", err)
	}
	return h.SetName != "" || h.Msg == "isdbgrid", nil
}

// claim moves a pending plan to applying, atomically, so that two applies
// of one plan cannot both write.
func (d *DB) claim(ctx context.Context, p *Plan) error {
	now := time.Now().UTC()
	if err := d.checkPending(p, now); err != nil {
		return err
	}
	tok, _ := bson.ObjectIDFromHex(p.Token)
	r, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}, {Key: "status", Value: StatusPending}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplying}, {Key: "status_time", Value: bson.NewDateTimeFromTime(now)}}}})
	if err != nil {
		return wrapErr(d.target, "claim the plan in", err)
	}
	if r.MatchedCount == 0 {
		return errs.Errorf(errs.Conflict, "plan %s was claimed by another apply", p.Token).
			WithHint("a plan applies once; see `omgdb history %s`", d.target.Redacted)
	}
	return nil
}

// Discard drops a pending plan that will not be applied (a one-step
// write that changes nothing): its status becomes discarded.
func (d *DB) Discard(ctx context.Context, token string) error {
	tok, err := checkToken(token, "plan token")
	if err != nil {
		return err
	}
	_, err = d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}, {Key: "status", Value: StatusPending}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusDiscarded}, {Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now())}}}})
	if err != nil {
		return wrapErr(d.target, "discard the plan in", err)
	}
	return nil
}

// unclaim makes a plan pending again and drops its change from the
// journal, after a transaction that wrote nothing.
func (d *DB) unclaim(ctx context.Context, p *Plan) error {
	tok, _ := bson.ObjectIDFromHex(p.Token)
	if _, err := d.db.Collection(ChangesColl).DeleteOne(ctx, bson.D{{Key: "_id", Value: tok}}); err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	_, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusPending}}}})
	if err != nil {
		return wrapErr(d.target, "release the plan in", err)
	}
	return nil
}

// writeItems writes every item of p under its precondition, recording in
// omgdb.plan_items whether each was applied or conflicted. It stops
// between documents when ctx ends (errStopped); a document's write and
// its mark are not cut. No write starts once the lease l is lost.
func (d *DB) writeItems(ctx context.Context, p *Plan, force bool, res *ApplyResult, l *lease) error {
	c := d.db.Collection(p.Collection)
	items := d.db.Collection(PlanItemsColl)
	tok, _ := bson.ObjectIDFromHex(p.Token)
	wctx := context.WithoutCancel(ctx)
	for i, it := range p.Items {
		if it.State != "" {
			continue // marked by the apply a resume finishes (resume.go)
		}
		if beforeItem != nil {
			beforeItem(i)
		}
		if err := stopAt(ctx, i, len(p.Items), res); err != nil {
			return err
		}
		if err := l.check(); err != nil {
			return err
		}
		var actual value.Value
		if force { // the journal must hold what the document was, not what the plan expected
			var err error
			if actual, err = d.current(wctx, p.Collection, it.ID); err != nil {
				return err
			}
		}
		reason, err := d.writeItem(wctx, c, it, force)
		if err != nil {
			return err
		}
		state := bson.D{{Key: "state", Value: "applied"}}
		if reason != "" {
			state = bson.D{{Key: "state", Value: "conflict"}, {Key: "reason", Value: reason}}
			res.Conflicts = append(res.Conflicts, Conflict{ID: it.ID, Reason: reason})
		} else {
			res.count(it.Op)
		}
		mark := bson.D{{Key: "$set", Value: state}}
		if force && reason == "" {
			if mark, err = forcedMark(it, actual); err != nil {
				return err
			}
		}
		_, err = items.UpdateOne(wctx, bson.D{{Key: "plan", Value: tok}, {Key: "seq", Value: int64(i)}}, mark)
		if err != nil {
			return wrapErr(d.target, "journal the change in", err)
		}
	}
	return nil
}

func (r *ApplyResult) count(op string) {
	switch op {
	case OpInsert:
		r.Inserted++
	case OpUpdate:
		r.Updated++
	case OpDelete:
		r.Deleted++
	}
}

// writeItem writes one document and returns why it was not written (a
// conflict), or "" when it was.
func (d *DB) writeItem(ctx context.Context, c *mongo.Collection, it Item, force bool) (string, error) {
	id, err := toBSON(it.ID)
	if err != nil {
		return "", err
	}
	byID := bson.D{{Key: "_id", Value: id}}
	if it.Op == OpInsert {
		return d.insertItem(ctx, c, byID, it, force)
	}
	filter := byID
	if !force {
		if reason, err := d.checkBefore(ctx, c, byID, it.Before); reason != "" || err != nil {
			return reason, err
		}
		if filter, err = precondition(it.Before); err != nil {
			return "", err
		}
	}
	var matched int64
	if it.Op == OpDelete {
		r, err := c.DeleteOne(ctx, filter)
		if err != nil {
			return "", wrapErr(d.target, "delete in", err)
		}
		matched = r.DeletedCount
		if force {
			return "", nil // already gone is what a forced delete wants
		}
	} else {
		after, err := docToBSON(it.After)
		if err != nil {
			return "", err
		}
		r, err := c.ReplaceOne(ctx, filter, after, options.Replace().SetUpsert(force))
		if err != nil {
			return "", wrapErr(d.target, "replace in", err)
		}
		matched = r.MatchedCount + r.UpsertedCount
		if r.MatchedCount == 1 && r.ModifiedCount == 0 {
			if err := d.setFields(ctx, c, filter, after); err != nil {
				return "", err
			}
		}
	}
	if matched == 0 {
		return "changed during the apply (its precondition no longer matched)", nil
	}
	return "", nil
}

// setFields sets every field of after with $set: a server that took a
// replacement equal by value to the document as no change (FerretDB
// v1.24.2 does, for an int replaced by an equal long) gets the types
// written. The plan's after-image always differs from the before-image,
// so an unmodified replacement is never what the plan wants.
func (d *DB) setFields(ctx context.Context, c *mongo.Collection, filter, after bson.D) error {
	set := bson.D{}
	for _, e := range after {
		if e.Key != "_id" {
			set = append(set, e)
		}
	}
	if len(set) == 0 {
		return nil
	}
	if _, err := c.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}}); err != nil {
		return wrapErr(d.target, "update in", err)
	}
	return nil
}

// insertItem inserts an upserted (or rolled-back deleted) document,
// refusing when its _id is taken (unless force, which replaces it).
func (d *DB) insertItem(ctx context.Context, c *mongo.Collection, byID bson.D, it Item, force bool) (string, error) {
	doc, err := docToBSON(it.After)
	if err != nil {
		return "", err
	}
	if force {
		if _, err := c.ReplaceOne(ctx, byID, doc, options.Replace().SetUpsert(true)); err != nil {
			return "", wrapErr(d.target, "insert in", err)
		}
		return "", nil
	}
	_, err = c.InsertOne(ctx, doc)
	if mongo.IsDuplicateKeyError(err) {
		if n, cerr := c.CountDocuments(ctx, byID); cerr == nil && n > 0 {
			return "a document with this _id exists now", nil
		}
		return "a unique index refuses it: " + Redact(err.Error(), d.target.URI), nil
	}
	if err != nil {
		return "", wrapErr(d.target, "insert in", err)
	}
	return "", nil
}

// checkBefore reads the document and compares it with its before-image,
// exactly (fields, order, types and values).
func (d *DB) checkBefore(ctx context.Context, c *mongo.Collection, byID bson.D, before value.Value) (string, error) {
	raw, err := c.FindOne(ctx, byID).Raw()
	if isNoDocuments(err) {
		return "deleted since the plan", nil
	}
	if err != nil {
		return "", wrapErr(d.target, "read from", err)
	}
	cur, err := fromDoc(raw)
	if err != nil {
		return "", err
	}
	if !sameDoc(cur, before) {
		return "changed since the plan", nil
	}
	return "", nil
}

// precondition is the filter a write goes through: the _id, and each
// top-level field of the before-image with its value and type (an array
// with its length). It is what makes the check and the write one
// operation on the server; checkBefore, just before, compares the whole
// document exactly, including fields added since.
func precondition(before value.Value) (bson.D, error) {
	f := bson.D{}
	for _, fl := range before.Fields() {
		if fl.Key != "_id" && (strings.HasPrefix(fl.Key, "$") || strings.Contains(fl.Key, ".")) {
			continue // not a path a filter can name; checkBefore compared it
		}
		v, err := toBSON(fl.Value)
		if err != nil {
			return nil, err
		}
		cond := bson.D{{Key: "$eq", Value: v}}
		switch k := fl.Value.Kind(); k {
		case value.Array:
			cond = append(cond, bson.E{Key: "$size", Value: int64(fl.Value.Len())})
		case value.Object:
		case value.Regex:
			cond = bson.D{{Key: "$type", Value: "regex"}}
		default:
			cond = append(cond, bson.E{Key: "$type", Value: typeAlias[k]})
		}
		f = append(f, bson.E{Key: fl.Key, Value: cond})
	}
	return f, nil
}

// typeAlias is the $type alias of each scalar kind.
var typeAlias = map[value.Kind]string{
	value.Null: "null", value.Bool: "bool", value.Int: "int", value.Long: "long", value.Double: "double",
	value.Decimal: "decimal", value.String: "string", value.Binary: "binData", value.ObjectID: "objectId",
	value.Date: "date", value.Timestamp: "timestamp", value.MinKey: "minKey", value.MaxKey: "maxKey",
}

func isNoDocuments(err error) bool { return errors.Is(err, mongo.ErrNoDocuments) }

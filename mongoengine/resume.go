package mongoengine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
)

// Resume finishes an apply that did not run to its end: one killed (or
// cut off from the deployment) whose change stays applying once its lease
// has expired, one stopped at its deadline (partial), or one killed
// between the claim of its plan and its journal entry. It takes the
// change over with a lease of its own (in one server operation that
// matches only while the change holds the lease that was read), then
// writes the items not yet marked, in plan order, under the usual
// preconditions, and journals the end as Apply does: applied, with the
// counts of every document the change wrote, before and after the
// resume, and every conflict. A plan never claimed is applied as Apply
// applies it.
//
// The first unmarked item is the one whose document may have been
// written when the apply stopped (an apply marks each item right after
// its write): when its document holds the item's after-image (an
// update's, an upsert's) or is gone (a deletion's), it is marked applied
// without being written. A later unmarked document that equals neither
// image is a conflict, as for Apply.
//
// Refused: a change whose lease runs (errs.Busy: its writer is alive, or
// was stopped less than LeaseTime ago), one a rollback took over or
// rolled back, an applied plan, the plans of inserts, imports and
// rollbacks (their writes are not items written one by one).
func (d *DB) Resume(ctx context.Context, token string, opts *ApplyOptions) (*ApplyResult, error) {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	p, err := d.LoadPlan(ctx, token)
	if err != nil {
		return nil, err
	}
	if err := d.resumable(p); err != nil {
		return nil, err
	}
	ch, err := d.journalEntry(ctx, p.Token, "plan token")
	if err != nil {
		return nil, err
	}
	if ch == nil && p.StatusAt(time.Now().UTC()) == StatusPending {
		return d.Apply(ctx, token, opts) // never claimed: nothing to finish, a whole apply
	}
	wctx := context.WithoutCancel(ctx)
	var l *lease
	if ch == nil {
		l, err = d.resumeUnjournaled(wctx, p, opts.Actor)
	} else {
		l, err = d.resumeLease(wctx, p, ch)
	}
	if err != nil {
		return nil, err
	}
	if l == nil { // a plan of no document, now applied
		return resumedResult(p), nil
	}
	defer l.release()
	res := resumedResult(p)
	if err := d.markWrittenAtKill(wctx, p, res, l); err != nil {
		return nil, err
	}
	// What is written stays (a transaction could not take it back): only a
	// change with nothing written yet is finished in a transaction.
	if res.Written() == 0 && len(res.Conflicts) == 0 {
		if res.Transaction, err = d.transactions(wctx); err != nil {
			return nil, err
		}
	}
	return d.writeAndEnd(ctx, p, false, res, l)
}

// resumable refuses the plans Resume does not finish.
func (d *DB) resumable(p *Plan) error {
	switch p.Kind {
	case KindInsert, KindImport:
		return errs.Errorf(errs.Usage, "plan %s is the plan of an %s: its documents are written in batches, not as a plan's items, so it is not resumed with apply --resume", p.Token, p.Kind).
			WithHint("go on with `omgdb import … --resume-from-line N --on-error skip`, or undo it with `omgdb rollback %s %s` once its lease has expired", d.target.Redacted, p.Token)
	case KindRollback:
		return errs.Errorf(errs.Usage, "plan %s is the plan of a rollback (of change %s): a rollback is not resumed with apply --resume", p.Token, p.RollbackOf).
			WithHint("once its lease has expired, roll back its own change (`omgdb rollback %s %s`) and roll back %s again", d.target.Redacted, p.Token, p.RollbackOf)
	}
	return nil
}

// journalEntry reads the change whose id is token (what names it in an
// error: "plan token" or "change id"); nil when there is none.
func (d *DB) journalEntry(ctx context.Context, token, what string) (*Change, error) {
	tok, err := checkToken(token, what)
	if err != nil {
		return nil, err
	}
	raw, err := d.db.Collection(ChangesColl).FindOne(ctx, bson.D{{Key: "_id", Value: tok}}).Raw()
	if isNoDocuments(err) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr(d.target, "read the journal from", err)
	}
	v, err := fromDoc(raw)
	if err != nil {
		return nil, err
	}
	ch := changeOf(v)
	return &ch, nil
}

// resumeUnjournaled takes over a plan claimed by an apply that stopped
// before it journaled its change (so before any write): once the claim
// is LeaseTime old, the change is journaled by this apply. Its _id is
// the token, so of two applies journaling it one only goes on. A plan of
// no document is marked applied instead (no lease: nil).
func (d *DB) resumeUnjournaled(ctx context.Context, p *Plan, actor string) (*lease, error) {
	if p.Status != StatusApplying {
		return nil, d.checkPending(p, time.Now().UTC()) // applied without writing, discarded or expired
	}
	if until := p.StatusTime.Add(LeaseTime); time.Now().Before(until) {
		return nil, errs.Errorf(errs.Busy, "plan %s is being applied by another omgdb (it was claimed at %s, and has no journal entry yet)", p.Token, p.StatusTime.Format(time.RFC3339)).
			WithHint("wait for that apply to finish; if it was stopped, `omgdb apply %s %s --resume` takes it over after %s", d.target.Redacted, p.Token, until.Format(time.RFC3339))
	}
	if err := d.createTarget(ctx, p); err != nil {
		return nil, err
	}
	if len(p.Items) == 0 {
		return nil, d.markApplied(ctx, p) // nothing to write: no change in the journal, as Apply
	}
	return d.journalStart(ctx, p, actor)
}

// resumeLease takes over the change ch of plan p with a new lease: an
// applying change whose lease has expired, or a partial one (which holds
// none); in one server operation that matches only while the change is
// as it was read, so of two takers one only goes on, and a writer that
// renewed its lease meanwhile keeps it. The plan is marked applying
// again until the end.
func (d *DB) resumeLease(ctx context.Context, p *Plan, ch *Change) (*lease, error) {
	now := time.Now()
	if err := d.resumeRefusal(ch, now); err != nil {
		return nil, err
	}
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	filter := bson.D{{Key: "_id", Value: tok}, {Key: "status", Value: ch.Status}, {Key: "rolled_back_by", Value: bson.D{{Key: "$exists", Value: false}}}}
	if ch.Status == StatusApplying {
		filter = append(filter, leaseFilter(ch)...)
	}
	l := newLease(d, tok, now)
	set := append(bson.D{{Key: "status", Value: StatusApplying}, {Key: "resumed_time", Value: bson.NewDateTimeFromTime(now)}}, l.fields(now)...)
	r, err := d.db.Collection(ChangesColl).UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return nil, wrapErr(d.target, "journal the change in", err)
	}
	if r.MatchedCount == 0 {
		return nil, errs.Errorf(errs.Conflict, "change %s changed while it was taken over: its writer renewed its lease, or another omgdb resumed it or rolled it back", ch.ID).
			WithHint("see `omgdb history %s`, then try again", d.target.Redacted)
	}
	go l.run()
	_, err = d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplying}}}})
	if err != nil {
		l.release()
		return nil, wrapErr(d.target, "claim the plan in", err)
	}
	return l, nil
}

// resumeRefusal says why the change ch cannot be resumed at now, or nil.
func (d *DB) resumeRefusal(ch *Change, now time.Time) error {
	switch {
	case ch.RolledBackBy != "":
		return errs.Errorf(errs.Conflict, "change %s was rolled back by %s: there is nothing to resume", ch.ID, ch.RolledBackBy).
			WithHint("plan the change again, or roll back %s to redo what it undid", ch.RolledBackBy)
	case ch.Status == StatusApplied:
		return errs.Errorf(errs.Conflict, "plan %s was already applied, to its end, as change %s", ch.ID, ch.ID).
			WithHint("there is nothing to resume; `omgdb rollback %s %s` undoes it", d.target.Redacted, ch.ID)
	case ch.Status == StatusInterrupted:
		return errs.Errorf(errs.Conflict, "change %s was taken over by a rollback: it is no longer resumed", ch.ID).
			WithHint("finish that rollback with `omgdb rollback %s %s`, then plan again", d.target.Redacted, ch.ID)
	case ch.Status == StatusApplying && !leaseExpired(ch, now):
		return errs.Errorf(errs.Busy, "change %s is being written by another omgdb (its lease runs until %s)", ch.ID, ch.LeaseUntil.Format(time.RFC3339)).
			WithHint("wait for it to finish; if that omgdb was stopped, run `omgdb apply %s %s --resume` again after %s", d.target.Redacted, ch.ID, ch.LeaseUntil.Format(time.RFC3339))
	case ch.Status != StatusApplying && ch.Status != StatusPartial:
		return errs.Errorf(errs.Conflict, "change %s is %s: there is nothing to resume", ch.ID, ch.Status).
			WithHint("list the changes with `omgdb history %s`", d.target.Redacted)
	}
	return nil
}

// leaseFilter matches a change that still holds the lease read in ch.
func leaseFilter(ch *Change) bson.D {
	f := bson.D{{Key: "owner", Value: ch.owner}}
	if ch.owner.IsZero() {
		f = bson.D{{Key: "owner", Value: bson.D{{Key: "$exists", Value: false}}}}
	}
	if ch.LeaseUntil.IsZero() {
		return append(f, bson.E{Key: "lease_until", Value: bson.D{{Key: "$exists", Value: false}}})
	}
	return append(f, bson.E{Key: "lease_until", Value: bson.NewDateTimeFromTime(ch.LeaseUntil)})
}

// resumedResult is the result of a resumed apply before it writes: what
// its items already record.
func resumedResult(p *Plan) *ApplyResult {
	res := &ApplyResult{Token: p.Token, ChangeID: p.Token, Kind: p.Kind, Collection: p.Collection}
	for _, it := range p.Items {
		switch it.State {
		case "applied":
			res.count(it.Op)
		case "conflict":
			res.Conflicts = append(res.Conflicts, Conflict{ID: it.ID, Reason: it.Reason})
		}
	}
	return res
}

// markWrittenAtKill marks applied, without writing it, the first
// unmarked item when its document already holds what the item writes:
// the apply that stopped wrote it and was stopped before its mark.
func (d *DB) markWrittenAtKill(ctx context.Context, p *Plan, res *ApplyResult, l *lease) error {
	i := firstUnmarked(p)
	if i < 0 {
		return nil
	}
	if err := l.check(); err != nil {
		return err
	}
	it := p.Items[i]
	cur, err := d.current(ctx, p.Collection, it.ID)
	if err != nil {
		return err
	}
	if written := cur.IsMissing(); it.Op != OpDelete {
		written = !cur.IsMissing() && sameDoc(cur, it.After)
		if !written {
			return nil // its before-image (written below), or changed by another writer (a conflict below)
		}
	} else if !written {
		return nil
	}
	tok, _ := bson.ObjectIDFromHex(p.Token)
	_, err = d.db.Collection(PlanItemsColl).UpdateOne(ctx, bson.D{{Key: "plan", Value: tok}, {Key: "seq", Value: int64(i)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "applied"}}}})
	if err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	p.Items[i].State = "applied"
	res.count(it.Op)
	return nil
}

// firstUnmarked is the place of the plan's first item with no state, or -1.
func firstUnmarked(p *Plan) int {
	for i, it := range p.Items {
		if it.State == "" {
			return i
		}
	}
	return -1
}

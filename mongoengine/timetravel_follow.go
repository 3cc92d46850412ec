package mongoengine

import (
	"context"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Following a collection through the journal. The collection that a name
// held at a revision may live elsewhere now: a drop renamed it aside
// (omgdb_dropped_<id>), a rename moved it, a rollback moved it back. So a
// read at revision R walks the changes after R in journal order and
// follows the name's collection from step to step (its lineage): a
// rename step of the collection's current name moves it; a step that
// renames or creates a collection into that name (so the name was free)
// ends it there. The documents at R are then the documents where the
// lineage is now, each written by a change of the lineage after R
// taking its before-image there.
//
// An interrupted change (its writer stopped; lease.go) wrote its items
// marked applied, and at most its first unmarked item (an apply: the
// document being written at the kill) or its unmarked items (an insert
// or import: the batch being sent). For each such unmarked item, the
// document's state right after the change (the before-image of the next
// change of the lineage that wrote it, or the document now) tells: equal
// to the item's before- or after-image (missing for an insert's before,
// a deletion's after), the document's state before the change is the
// before-image either way; equal to neither (written around omgdb since),
// the answer is ambiguous and the read is refused, naming the change and
// the document.

// SetFence makes every read at a revision (At, Diff, PlanRevert) call
// check for each collection it follows, with the other names that
// collection held since the revision (renames; not the omgdb_dropped_
// collections a drop put it in): an error from check stops the read. The
// MCP server sets its policy there, so that an allowed name is not read
// at a revision from where a rename has put its collection since, under
// a name the policy hides or redacts otherwise. Call it before the DB is
// shared; it applies to every holder of the DB.
func (d *DB) SetFence(check func(coll string, via []string) error) { d.fence = check }

// lineage is what a collection name held at a revision became since.
type lineage struct {
	coll   string // the name at the revision
	loc    string // where its documents are now ("": nowhere)
	absent bool   // it did not exist at the revision
	moved  bool   // a schema change after the revision moved it or took its name
	// dropped is the drop whose aside collection loc is ("" when loc is
	// not an aside collection).
	dropped string
	via     []string // the other names it held since, in order (not the aside ones)
	changes []Change // the changes of documents that wrote it after the revision
}

// readAfter lists the changes journaled after rev, in journal order,
// that can concern coll (every change when coll is empty): every schema
// change, and the changes of documents of coll and of the names the
// schema changes move collections to or from.
func (d *DB) readAfter(ctx context.Context, rev engine.Revision, coll string) ([]Change, error) {
	if rev.Kind == engine.RevNow {
		return nil, nil
	}
	if coll == "" {
		return d.journal(ctx, after(rev), 1, 0)
	}
	isSchema := bson.D{{Key: "ops", Value: bson.D{{Key: "$exists", Value: true}}}}
	schema, err := d.journal(ctx, bson.D{{Key: "$and", Value: bson.A{after(rev), isSchema}}}, 1, 0)
	if err != nil {
		return nil, err
	}
	names := bson.A{coll}
	for _, ch := range schema {
		for _, s := range ch.steps {
			names = append(names, s.Coll, s.To)
		}
	}
	docs, err := d.journal(ctx, bson.D{{Key: "$and", Value: bson.A{after(rev),
		bson.D{{Key: "ops", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "collection", Value: bson.D{{Key: "$in", Value: names}}}}}}}, 1, 0)
	if err != nil {
		return nil, err
	}
	return mergeJournal(schema, docs), nil
}

// mergeJournal merges two lists of changes in journal order (seq, then id).
func mergeJournal(a, b []Change) []Change {
	out := make([]Change, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Seq < b[0].Seq || a[0].Seq == b[0].Seq && a[0].ID < b[0].ID {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// follow walks chs (the changes after a revision) from coll. An
// interrupted schema change whose next step moves the collection, or
// takes its name, is an error: whether that step was carried out is not
// recorded.
func follow(chs []Change, coll, store string) (*lineage, error) {
	l := &lineage{coll: coll, loc: coll}
	started := false
	byID := map[string]*Change{}
	for i := range chs {
		byID[chs[i].ID] = &chs[i]
	}
	for _, ch := range chs {
		if l.loc == "" {
			break
		}
		if !ch.schema {
			if ch.Collection == l.loc {
				if !started {
					l.absent = ch.Creates
				}
				started = true
				l.changes = append(l.changes, ch)
			}
			continue
		}
		steps, err := stepsCarriedOut(ch, l.loc, store, byID[ch.RolledBackBy])
		if err != nil {
			return nil, err
		}
		for _, s := range steps {
			switch {
			case s.Op == stepRename && s.Coll == l.loc:
				l.loc, l.dropped = s.To, ""
				if strings.HasPrefix(s.To, DroppedPrefix) {
					l.dropped = ch.ID
				} else if s.To != coll && !slices.Contains(l.via, s.To) {
					l.via = append(l.via, s.To)
				}
			case s.Op == stepRename && s.To == l.loc, s.Op == stepCreate && s.Coll == l.loc:
				l.absent = l.absent || !started // the name was free then
				l.loc, l.dropped = "", ""
			default:
				continue
			}
			l.moved, started = true, true
			if l.loc == "" {
				break
			}
		}
	}
	return l, nil
}

// stepsCarriedOut are the steps of a schema change that were carried
// out, as far as they concern the collection now named loc: all of an
// applied change's; of an unfinished one that was rolled back (by rb),
// those its rollback undid; of another unfinished one, those counted
// done, and an error when the next one moves loc or takes its name.
func stepsCarriedOut(ch Change, loc, store string, rb *Change) ([]step, error) {
	switch {
	case ch.Status == StatusApplied || ch.done >= len(ch.steps):
		return ch.steps, nil
	case rb != nil && rb.schema && rb.Status == StatusApplied && len(rb.steps) <= len(ch.steps):
		return ch.steps[:len(rb.steps)], nil // it undid exactly the steps carried out
	}
	if next := ch.steps[ch.done]; next.Coll == loc || next.To == loc {
		how := "was interrupted"
		if ch.Status == StatusApplying {
			how = "is being carried out"
		}
		return nil, errs.Errorf(errs.Conflict, "change %s (%s) %s: omgdb cannot say whether its step on collection `%s` was carried out at that point of the journal", ch.ID, ch.Note, how, loc).
			WithHint("roll it back with `omgdb rollback %s %s` (it looks at the collections to see what was done), then read again", store, ch.ID)
	}
	return ch.steps[:ch.done], nil
}

// undoLineage adds to u the state at the revision of each document the
// lineage's changes wrote, keyed by the name at the revision. The
// changes are read newest first, so the earliest change's before-image
// is the one kept, and an interrupted change's unmarked items are judged
// against the state the later changes (or the document now) show.
func (d *DB) undoLineage(ctx context.Context, u *undoSet, l *lineage) error {
	type was struct{ id, state value.Value }
	states := map[string]was{} // by idKey: the state before the changes read so far
	for i := len(l.changes) - 1; i >= 0; i-- {
		ch := l.changes[i]
		written, unsure, err := d.changeItems(ctx, ch)
		if err != nil {
			return err
		}
		for _, it := range unsure {
			w, ok := states[idKey(it.ID)]
			after := w.state
			if !ok {
				if after, err = d.currentIn(ctx, l.loc, it.ID); err != nil {
					return err
				}
			}
			if !sameState(after, it.Before) && !sameState(after, it.After) {
				return errs.Errorf(errs.Conflict, "change %s was interrupted, and document %s of `%s` holds neither the image it had before that change nor the one the change was writing: omgdb cannot say whether the change wrote it",
					ch.ID, value.AppendJSON(nil, it.ID), l.coll).
					WithHint("it was changed since outside omgdb's journal; roll the change back with `omgdb rollback %s %s` (it reports such a document as a conflict), or read at a revision after the change", d.target.Redacted, ch.ID)
			}
			written = append(written, it)
		}
		for _, it := range written {
			states[idKey(it.ID)] = was{it.ID, it.Before}
		}
	}
	for k, w := range states {
		dk := l.coll + "\x00" + k
		if u.docs[dk] == nil {
			ds := &docState{coll: l.coll, id: w.id, state: w.state}
			u.docs[dk] = ds
			u.order = append(u.order, ds)
		}
	}
	return nil
}

// changeItems are the items a change wrote for sure (marked applied) and
// those it may have written when it stopped (an interrupted change's
// first unmarked item, or an insert's or import's unmarked items). A
// change whose writer is still writing is an error.
func (d *DB) changeItems(ctx context.Context, ch Change) (written, unsure []Item, err error) {
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	switch ch.Status {
	case StatusApplied, StatusPartial:
		written, err = d.planItems(ctx, tok, "applied")
		return written, nil, err
	case StatusApplying:
		return nil, nil, errs.Errorf(errs.Conflict, "change %s is being applied by another omgdb (its lease runs until %s): the documents it is writing are not settled yet", ch.ID, leaseEnd(&ch).Format(time.RFC3339)).
			WithHint("wait for it to finish and read again, or read at a revision after it; if that omgdb was stopped, its lease expires at the time given")
	}
	// Interrupted: as a rollback of it would judge (recover.go undoItems).
	all, err := d.planItems(ctx, tok, nil)
	if err != nil {
		return nil, nil, err
	}
	batch := ch.PlanKind == KindInsert || ch.PlanKind == KindImport
	for _, it := range all {
		switch {
		case it.State == "applied":
			written = append(written, it)
		case it.State == "" && (batch || len(unsure) == 0):
			unsure = append(unsure, it)
		}
	}
	return written, unsure, nil
}

// sameState compares two states of a document (Missing: absent) exactly.
func sameState(a, b value.Value) bool {
	if a.IsMissing() || b.IsMissing() {
		return a.IsMissing() == b.IsMissing()
	}
	return sameDoc(a, b)
}

// currentIn reads a document by _id from coll; Missing when coll is ""
// or holds none.
func (d *DB) currentIn(ctx context.Context, coll string, id value.Value) (value.Value, error) {
	if coll == "" {
		return value.Value{}, nil
	}
	return d.current(ctx, coll, id)
}

// compareAt compares coll at two revisions document by document, both
// read whole (ScanAt; a collection missing at one end is empty there),
// and returns the documents that differ: what a diff gives for a
// collection a drop or a rename moved. A nil to is now, read from the
// collection of that name as it is (what a revert must change).
func (d *DB) compareAt(ctx context.Context, coll string, from engine.Revision, to *engine.Revision, now agg.Source) ([]engine.DocChange, error) {
	a, err := d.scanOrEmpty(ctx, coll, from)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	b := now
	if to != nil {
		if b, err = d.scanOrEmpty(ctx, coll, *to); err != nil {
			return nil, err
		}
	}
	defer b.Close()
	var out []engine.DocChange
	x, y := next(a), next(b)
	for !x.IsMissing() || !y.IsMissing() {
		var c int
		switch {
		case x.IsMissing():
			c = 1
		case y.IsMissing():
			c = -1
		default:
			c = value.Compare(x.Get("_id"), y.Get("_id"))
		}
		dc := engine.DocChange{Collection: coll}
		switch {
		case c < 0:
			dc.ID, dc.Before, x = x.Get("_id"), x, next(a)
		case c > 0:
			dc.ID, dc.After, y = y.Get("_id"), y, next(b)
		default:
			dc.ID, dc.Before, dc.After = x.Get("_id"), x, y
			x, y = next(a), next(b)
		}
		if !sameState(dc.Before, dc.After) {
			out = append(out, dc)
		}
	}
	if err := a.Err(); err != nil {
		return nil, err
	}
	return out, b.Err()
}

// next is src's next document, Missing at its end.
func next(src agg.Source) value.Value {
	if src.Next() {
		return src.Doc()
	}
	return value.Value{}
}

// scanOrEmpty is ScanAt, with a collection that did not exist (or does
// not exist now, with nothing in the journal) read as empty.
func (d *DB) scanOrEmpty(ctx context.Context, coll string, rev engine.Revision) (agg.Source, error) {
	src, err := d.ScanAt(ctx, coll, rev)
	if errs.KindOf(err) == errs.NotFound {
		return emptySource{}, nil
	}
	return src, err
}

// emptySource is a collection with no document.
type emptySource struct{}

func (emptySource) Next() bool       { return false }
func (emptySource) Doc() value.Value { return value.Value{} }
func (emptySource) Err() error       { return nil }
func (emptySource) Close() error     { return nil }

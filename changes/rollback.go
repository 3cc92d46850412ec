package changes

import (
	"context"
	"sort"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// RollbackOptions configures Rollback. The zero value refuses to overwrite
// later changes.
type RollbackOptions struct {
	// Force restores the before-images even over documents that changed
	// after the change, undoing those later edits too. Default false.
	Force bool
	Actor string // who rolls back; the store's actor when empty
}

// RollbackResult is what Rollback returns.
type RollbackResult struct {
	ChangeID         string   `json:"change_id"`   // the rollback's own change id: roll it back to redo
	RolledBack       string   `json:"rolled_back"` // the change undone
	Inserted         int64    `json:"inserted"`
	Updated          int64    `json:"updated"`
	Deleted          int64    `json:"deleted"`
	Overwritten      []DocRef `json:"overwritten,omitempty"` // with Force: documents whose later edits were undone too
	LSN              uint64   `json:"lsn,omitempty"`
	Message          string   `json:"message,omitempty"`
	NextValidActions []string `json:"next_valid_actions"`
}

// touched is a document a change wrote.
type touched struct {
	docState             // state before the change
	last     uint64      // lsn of the change's last operation on it
	after    value.Value // state right after the change
	resolved bool        // after is known from a later journal record
}

// changeSet is what one change did, from its journal records.
type changeSet struct {
	id      string
	first   uint64 // lsn of its first and last records
	last    uint64
	docs    map[string]*touched
	created []string   // collections it created
	dropped []string   // collections it dropped
	indexes []store.Op // its index operations, in order
	defines []store.Op // its changes of validation rules, in order
}

func newChangeSet(id string, recs []*store.Record) *changeSet {
	cs := &changeSet{id: id, first: recs[0].LSN, last: recs[len(recs)-1].LSN, docs: map[string]*touched{}}
	for _, r := range recs {
		for i := range r.Ops {
			cs.add(r.LSN, &r.Ops[i])
		}
	}
	return cs
}

func (cs *changeSet) add(lsn uint64, op *store.Op) {
	switch op.Op {
	case store.OpCreateCollection:
		cs.created = append(cs.created, op.Coll)
	case store.OpDropCollection:
		cs.dropped = append(cs.dropped, op.Coll)
	case store.OpCreateIndex, store.OpDropIndex:
		cs.indexes = append(cs.indexes, *op)
	case store.OpDefine:
		cs.defines = append(cs.defines, *op)
	default:
		k := docKey(op.Coll, op.ID)
		t := cs.docs[k]
		if t == nil {
			t = &touched{docState: docState{coll: op.Coll, id: op.ID, key: k, state: stateBefore(op)}}
			cs.docs[k] = t
		}
		t.last = lsn
	}
}

// resolveAfter finds the state of each document right after the change:
// the state before its next operation by another change, or (when there
// is none) the current document.
func (cs *changeSet) resolveAfter(ctx context.Context, tx *store.Tx) error {
	left := len(cs.docs)
	if tx.LastLSN() > cs.last {
		err := tx.Journal(cs.first+1, func(r *store.Record) (bool, error) {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if r.Change == cs.id {
				return true, nil
			}
			for i := range r.Ops {
				op := &r.Ops[i]
				if !isDocOp(op) {
					continue
				}
				if t := cs.docs[docKey(op.Coll, op.ID)]; t != nil && !t.resolved && r.LSN > t.last {
					t.after, t.resolved = stateBefore(op), true
					left--
				}
			}
			return left > 0, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Rollback undoes a change in one transaction: every document it wrote
// goes back to its state before the change (deleted documents come back,
// inserted ones go), collections it created and left empty are dropped,
// collections it dropped come back, and its index operations are undone.
// If any of those documents changed after the change, nothing is written
// and the error is a *ConflictError listing them, unless opts.Force. The
// rollback is a change of its own, with a new change id, and can itself
// be rolled back. Any change can be rolled back: an applied plan, an
// insert, an import (all its batches), or a rollback.
func Rollback(ctx context.Context, db *store.DB, changeID string, opts *RollbackOptions) (*RollbackResult, error) {
	if opts == nil {
		opts = &RollbackOptions{}
	}
	if err := checkToken(changeID, "change id"); err != nil {
		return nil, err
	}
	res := &RollbackResult{ChangeID: value.NewOID().Hex(), RolledBack: changeID}
	change := store.Change{ID: res.ChangeID, Kind: "rollback", Actor: opts.Actor, Note: "rollback of " + changeID}
	err := db.Update(change, func(tx *store.Tx) error {
		return rollback(ctx, tx, opts, res)
	})
	if err != nil {
		return nil, err
	}
	res.NextValidActions = []string{ActionRollback, ActionShow}
	if res.LSN == 0 {
		res.Message = "every document was already as before the change: nothing was written"
		res.NextValidActions = []string{ActionShow}
	}
	return res, nil
}

func rollback(ctx context.Context, tx *store.Tx, opts *RollbackOptions, res *RollbackResult) error {
	id := res.RolledBack
	recs, err := tx.ChangeRecords(id)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return noRollback(tx, id)
	}
	if by := rolledBackBy(tx, id); by != "" {
		return wrap(errs.Conflict, ErrRolledBack, "change %s was already rolled back by change %s", id, by).
			WithHint("to redo it, roll back the rollback: `omgdb rollback %s %s`", tx.DB().Path(), by)
	}
	cs := newChangeSet(id, recs)
	if err := cs.resolveAfter(ctx, tx); err != nil {
		return err
	}
	docs := make([]*touched, 0, len(cs.docs))
	for _, t := range cs.docs {
		docs = append(docs, t)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].key < docs[j].key })
	conflicts, err := cs.current(tx, docs)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 && !opts.Force {
		return newConflict(conflicts,
			"nothing was written; roll back the later changes first (`omgdb history "+tx.DB().Path()+" --id <_id>` shows them), or pass --force to restore the before-images over them",
			"cannot roll back change %s: %d document(s) changed after it", id, len(conflicts))
	}
	res.Overwritten = conflicts
	if err := cs.restore(tx, docs, res); err != nil {
		return err
	}
	if res.Inserted+res.Updated+res.Deleted > 0 || len(cs.created)+len(cs.dropped)+len(cs.indexes) > 0 {
		res.LSN = tx.LastLSN() + 1
	}
	return link(tx, id, res.ChangeID)
}

// noRollback explains why a change id has no journal records.
func noRollback(tx *store.Tx, id string) error {
	if p, err := loadPlan(tx, id); err == nil {
		if p.Status == StatusApplied {
			return wrap(errs.Invalid, ErrNotFound, "change %s (an applied plan) wrote no documents: there is nothing to roll back", id)
		}
		return wrap(errs.NotFound, ErrNotFound, "%s is a plan that is %s, not a change", id, p.status(timeNow())).
			WithHint("apply it first with `omgdb apply %s %s`; only applied changes can be rolled back", tx.DB().Path(), id)
	}
	return noChange(tx, id)
}

// current reads each document's current state, fills in unresolved
// after-states, and returns the documents that differ from the state the
// change left them in.
func (cs *changeSet) current(tx *store.Tx, docs []*touched) ([]DocRef, error) {
	var conflicts []DocRef
	for _, t := range docs {
		_, cur, err := current(tx, t.coll, t.id)
		if err != nil {
			return nil, err
		}
		if !t.resolved {
			t.after = cur
		} else if !sameState(cur, t.after) {
			conflicts = append(conflicts, DocRef{Collection: t.coll, ID: Doc{t.id}})
		}
		t.after = cur // from here on: the state to restore from
	}
	return conflicts, nil
}

// restore writes the before-images back, with the collection and index
// operations undone around them.
func (cs *changeSet) restore(tx *store.Tx, docs []*touched, res *RollbackResult) error {
	for _, name := range cs.dropped {
		if _, err := tx.CreateCollection(name); err != nil {
			return err
		}
	}
	// The rules go back first, so documents are restored under the rules
	// they were written under.
	if err := cs.undoDefines(tx); err != nil {
		return err
	}
	for _, t := range docs {
		if err := restoreDoc(tx, t, res); err != nil {
			return err
		}
		failpoint.Hit(failpoint.Rollback)
	}
	if err := cs.undoIndexes(tx); err != nil {
		return err
	}
	for _, name := range cs.created {
		c, err := tx.Collection(name)
		if err != nil || c.Count() > 0 || len(c.Indexes()) > 0 {
			continue // gone already, or holds what later changes put there
		}
		if err := tx.DropCollection(name); err != nil {
			return err
		}
	}
	return nil
}

func restoreDoc(tx *store.Tx, t *touched, res *RollbackResult) error {
	if sameState(t.after, t.state) {
		return nil
	}
	c, err := tx.CreateCollection(t.coll)
	if err != nil {
		return err
	}
	switch {
	case t.state.IsMissing():
		res.Deleted++
		return c.Delete(t.id)
	case t.after.IsMissing():
		res.Inserted++
		_, err = c.Insert(t.state)
		return err
	}
	res.Updated++
	return c.Replace(t.id, t.state)
}

// undoDefines puts back the validation rules the change replaced, newest
// first (the oldest replaced rules win).
func (cs *changeSet) undoDefines(tx *store.Tx) error {
	for i := len(cs.defines) - 1; i >= 0; i-- {
		op := cs.defines[i]
		c, err := tx.Collection(op.Coll)
		if err != nil {
			continue
		}
		rules := op.Before
		if rules.IsMissing() {
			rules = value.ObjectValue(nil)
		}
		if _, err := c.Define(rules); err != nil {
			return err
		}
	}
	return nil
}

// undoIndexes undoes the change's index operations, newest first.
func (cs *changeSet) undoIndexes(tx *store.Tx) error {
	for i := len(cs.indexes) - 1; i >= 0; i-- {
		op := cs.indexes[i]
		c, err := tx.Collection(op.Coll)
		if err != nil {
			continue
		}
		exists := false
		for _, def := range c.Indexes() {
			exists = exists || def.Name == op.Index.Name
		}
		switch {
		case op.Op == store.OpCreateIndex && exists:
			err = c.DropIndex(op.Index.Name)
		case op.Op == store.OpDropIndex && !exists:
			_, err = c.CreateIndex(*op.Index)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

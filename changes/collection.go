package changes

import (
	"context"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

// CollectionOptions configures DropCollection and RenameCollection. The
// zero value refuses to overwrite a collection.
type CollectionOptions struct {
	// DropTarget (RenameCollection) drops an existing collection of the
	// new name first, in the same change (MongoDB's dropTarget). Default
	// false: an existing target is a conflict.
	DropTarget bool
	Actor      string // who writes; the store's actor when empty
}

// CollectionResult is what DropCollection and RenameCollection return.
type CollectionResult struct {
	ChangeID   string `json:"change_id"`
	Kind       string `json:"kind"`                 // drop or rename
	Collection string `json:"collection"`           // the collection dropped or renamed
	RenamedTo  string `json:"renamed_to,omitempty"` // rename: its new name
	Documents  int64  `json:"documents"`            // documents dropped or moved
	Indexes    int    `json:"indexes"`              // index definitions dropped or moved
	// DroppedTarget counts the documents of the collection a rename with
	// DropTarget replaced; absent when there was none.
	DroppedTarget    *int64   `json:"dropped_target,omitempty"`
	LSN              uint64   `json:"lsn"` // the journal record
	NextValidActions []string `json:"next_valid_actions"`
}

// DropCollection drops coll, its documents, indexes and validation rules,
// in one journaled change: every document's before-image, every index
// definition and the rules go to the journal (store.Tx.DropCollection),
// so Rollback brings all of them back. A missing collection is a NotFound
// error with a did-you-mean.
func DropCollection(ctx context.Context, db *store.DB, coll string, opts *CollectionOptions) (*CollectionResult, error) {
	if opts == nil {
		opts = &CollectionOptions{}
	}
	res := &CollectionResult{Kind: KindDrop, Collection: coll}
	err := db.Update(store.Change{Kind: KindDrop, Actor: opts.Actor, Note: "drop " + coll}, func(tx *store.Tx) error {
		n, ix, err := dropCollection(tx, coll)
		res.Documents, res.Indexes = n, ix
		res.ChangeID, res.LSN = tx.ChangeID(), tx.LastLSN()+1
		return err
	})
	if err != nil {
		return nil, err
	}
	res.NextValidActions = []string{ActionRollback, ActionShow}
	return res, nil
}

// dropCollection drops coll in tx and returns how many documents and
// indexes it held.
func dropCollection(tx *store.Tx, coll string) (int64, int, error) {
	c, err := tx.Collection(coll)
	if err != nil {
		return 0, 0, err
	}
	n, ix := c.Count(), len(c.Indexes())
	return n, ix, tx.DropCollection(coll)
}

// RenameCollection renames a collection, with MongoDB's renameCollection
// semantics: the source must exist, the target must not unless
// opts.DropTarget (then it is dropped first, in the same change), a
// collection cannot be renamed to itself, and documents (with their
// _ids), indexes and validation rules all move. It is one journaled
// change.
//
// The store has no rename operation of its own: the rename is written as
// journal operations Rollback already undoes. In one transaction it drops
// the target (with DropTarget), creates the new collection, inserts every
// document into it (insert ops), creates the same indexes (create_index
// ops) and rules (a define op) there, and drops the source
// (store.Tx.DropCollection: delete ops with before-images, drop_index
// ops, a define op clearing its rules, drop_collection). Rolling it back
// therefore recreates the source with its rules, documents and indexes,
// deletes the moved documents, drops the new collection's indexes and
// then the collection (which it created and left empty), and restores a
// dropped target. The cost is a copy: time and journal space grow with
// the collection, where MongoDB renames in place (docs/differences.md).
func RenameCollection(ctx context.Context, db *store.DB, from, to string, opts *CollectionOptions) (*CollectionResult, error) {
	if opts == nil {
		opts = &CollectionOptions{}
	}
	if err := store.ValidateCollectionName(to); err != nil {
		return nil, err
	}
	res := &CollectionResult{Kind: KindRename, Collection: from, RenamedTo: to}
	change := store.Change{Kind: KindRename, Actor: opts.Actor, Note: "rename " + from + " to " + to}
	err := db.Update(change, func(tx *store.Tx) error {
		if err := renameTarget(tx, from, to, opts.DropTarget, res); err != nil {
			return err
		}
		if err := copyCollection(ctx, tx, from, to, res); err != nil {
			return err
		}
		res.ChangeID, res.LSN = tx.ChangeID(), tx.LastLSN()+1
		return tx.DropCollection(from)
	})
	if err != nil {
		return nil, err
	}
	res.NextValidActions = []string{ActionRollback, ActionShow}
	return res, nil
}

// renameTarget checks a rename's source and target, and drops the target
// when it exists and dropTarget allows it.
func renameTarget(tx *store.Tx, from, to string, dropTarget bool, res *CollectionResult) error {
	if _, err := tx.Collection(from); err != nil {
		return err
	}
	if from == to {
		return errs.Errorf(errs.Invalid, "cannot rename collection `%s` to itself", from).
			WithHint("give a different new name")
	}
	if _, err := tx.Collection(to); err != nil {
		if isNotFound(err) {
			return nil
		}
		return err
	}
	if !dropTarget {
		return errs.Errorf(errs.Conflict, "cannot rename `%s` to `%s`: collection `%s` already exists", from, to, to).
			WithHint("choose another name, or pass --drop-target to drop `%s` first (rollback brings it back)", to)
	}
	n, _, err := dropCollection(tx, to)
	res.DroppedTarget = &n
	return err
}

// copyCollection creates collection to with from's documents (as stored),
// then its indexes and rules: the same order a restore uses, so the
// documents are not checked against rules they were never checked
// against, and each index is built once over all of them.
func copyCollection(ctx context.Context, tx *store.Tx, from, to string, res *CollectionResult) error {
	src, err := tx.Collection(from)
	if err != nil {
		return err
	}
	dst, err := tx.CreateCollection(to)
	if err != nil {
		return err
	}
	tx.Grow(int(2 * src.Count()))
	cur := src.Scan()
	defer cur.Close()
	for cur.Next() {
		if res.Documents++; res.Documents%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		js, err := cur.JSON()
		if err != nil {
			return err
		}
		if _, err := dst.InsertJSON(js); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return err
	}
	defs := src.Indexes()
	res.Indexes = len(defs)
	if _, err := dst.CreateIndexes(defs...); err != nil {
		return err
	}
	if rules := src.Rules(); rules != nil {
		if _, err := dst.Define(rules.Spec()); err != nil {
			return err
		}
	}
	return nil
}

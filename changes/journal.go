package changes

import (
	"context"
	"errors"
	"sort"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The journal stores, per write, the id of each inserted document and the
// before-image of each updated or deleted one. Every state of a document
// follows from it: the state just before an operation is its before-image
// (absent for an insert), and the state just after is the before-image of
// the document's next operation, or the current document when there is
// none. These helpers walk it.

// docKey identifies a document across collections: the collection name, a
// zero byte, and the order-preserving key of its _id.
func docKey(coll string, id value.Value) string {
	return string(value.AppendKey(append([]byte(coll), 0), id))
}

// isDocOp reports whether op changes a document (not a collection or an
// index).
func isDocOp(op *store.Op) bool {
	return op.Op == store.OpInsert || op.Op == store.OpUpdate || op.Op == store.OpDelete
}

// stateBefore returns a document's state just before op: its before-image,
// or missing (absent) before an insert.
func stateBefore(op *store.Op) value.Value {
	if op.Op == store.OpInsert {
		return value.Value{}
	}
	return op.Before
}

// docState is a document's state at some revision.
type docState struct {
	coll  string
	id    value.Value
	key   string      // docKey
	state value.Value // missing: the document did not exist
}

// undoSet is the state at a revision of everything the journal records
// after it: each document touched later, and each collection created or
// dropped later.
type undoSet struct {
	docs  map[string]*docState // by docKey
	colls map[string]bool      // collection -> existed at the revision
}

// undoAfter undoes, over the current state, every journal record after
// lsn, newest first; with coll set, only that collection's operations.
// Only documents touched after lsn are read: the others are as they are
// now.
func undoAfter(ctx context.Context, tx *store.Tx, lsn uint64, coll string) (*undoSet, error) {
	u := &undoSet{docs: map[string]*docState{}, colls: map[string]bool{}}
	err := tx.JournalReverse(lsn, func(r *store.Record) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		for i := len(r.Ops) - 1; i >= 0; i-- {
			op := &r.Ops[i]
			if coll != "" && op.Coll != coll {
				continue
			}
			u.undo(op)
		}
		return true, nil
	})
	return u, err
}

func (u *undoSet) undo(op *store.Op) {
	switch op.Op {
	case store.OpCreateCollection:
		u.colls[op.Coll] = false
	case store.OpDropCollection:
		u.colls[op.Coll] = true
	case store.OpInsert, store.OpUpdate, store.OpDelete:
		k := docKey(op.Coll, op.ID)
		d := u.docs[k]
		if d == nil {
			d = &docState{coll: op.Coll, id: op.ID, key: k}
			u.docs[k] = d
		}
		d.state = stateBefore(op)
	}
}

// sorted returns the documents in (collection, _id) order.
func (u *undoSet) sorted() []*docState {
	out := make([]*docState, 0, len(u.docs))
	for _, d := range u.docs {
		out = append(out, d)
	}
	sortStates(out)
	return out
}

func sortStates(s []*docState) {
	sort.Slice(s, func(i, j int) bool { return s[i].key < s[j].key })
}

// current returns a document's canonical JSON and value now; both empty
// when it (or its collection) does not exist.
func current(tx *store.Tx, coll string, id value.Value) ([]byte, value.Value, error) {
	js, err := currentJSON(tx, coll, id)
	if err != nil || js == nil {
		return nil, value.Value{}, err
	}
	v, err := value.Parse(js)
	return js, v, err
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// sameState reports whether two states are the same bytes (both absent,
// or equal canonical JSON: 5 and 5.0 differ).
func sameState(a, b value.Value) bool {
	if a.IsMissing() || b.IsMissing() {
		return a.IsMissing() && b.IsMissing()
	}
	return string(value.JSON(a)) == string(value.JSON(b))
}

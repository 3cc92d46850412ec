package changes

import (
	"context"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Change is one change in the history: every journal record written under
// one change id (an import writes one per batch).
type Change struct {
	ID           string    `json:"change"`
	Kind         string    `json:"kind"` // insert, import, apply, rollback, load, …
	Collections  []string  `json:"collections"`
	Inserted     int64     `json:"inserted"`
	Updated      int64     `json:"updated"`
	Deleted      int64     `json:"deleted"`
	FirstLSN     uint64    `json:"first_lsn"`
	LastLSN      uint64    `json:"last_lsn"`
	Time         time.Time `json:"time"` // of its last record
	Actor        string    `json:"actor"`
	Note         string    `json:"note,omitempty"`
	Status       string    `json:"status"` // "applied" or "rolled back by <id>"
	RolledBackBy string    `json:"rolled_back_by,omitempty"`
	RollbackOf   string    `json:"rollback_of,omitempty"`

	colls map[string]bool
}

// HistoryOptions selects changes. The zero value lists every change.
type HistoryOptions struct {
	Coll  string // only changes that touch this collection (counting only its documents)
	Limit int    // at most this many changes, newest first; 0: all
}

// History lists changes, newest first.
func History(ctx context.Context, db *store.DB, opts *HistoryOptions) ([]Change, error) {
	if opts == nil {
		opts = &HistoryOptions{}
	}
	var list []*Change
	byID := map[string]*Change{}
	err := db.View(func(tx *store.Tx) error {
		err := tx.JournalReverse(0, func(r *store.Record) (bool, error) {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			c := byID[r.Change]
			if c == nil {
				if !touchesColl(r, opts.Coll) {
					return true, nil
				}
				if opts.Limit > 0 && len(list) == opts.Limit {
					return false, nil
				}
				c = newChange(r)
				byID[r.Change] = c
				list = append(list, c)
			}
			c.addRecord(r, opts.Coll)
			return true, nil
		})
		for _, c := range list {
			c.status(tx)
		}
		return err
	})
	out := make([]Change, len(list))
	for i, c := range list {
		out[i] = *c
	}
	return out, err
}

func touchesColl(r *store.Record, coll string) bool {
	if coll == "" {
		return true
	}
	for _, op := range r.Ops {
		if op.Coll == coll {
			return true
		}
	}
	return false
}

func newChange(r *store.Record) *Change {
	return &Change{ID: r.Change, Kind: r.Kind, Time: r.Time, Actor: r.Actor, Note: r.Note,
		LastLSN: r.LSN, Collections: []string{}, colls: map[string]bool{}}
}

func (c *Change) addRecord(r *store.Record, coll string) {
	c.FirstLSN = r.LSN
	for _, op := range r.Ops {
		if coll != "" && op.Coll != coll {
			continue
		}
		if !c.colls[op.Coll] {
			c.colls[op.Coll] = true
			c.Collections = sortedKeys(c.colls)
		}
		switch op.Op {
		case store.OpInsert:
			c.Inserted++
		case store.OpUpdate:
			c.Updated++
		case store.OpDelete:
			c.Deleted++
		}
	}
}

func (c *Change) status(tx *store.Tx) {
	c.Status = changeStatus(tx, c.ID)
	c.RolledBackBy = rolledBackBy(tx, c.ID)
	if c.Kind == "rollback" {
		c.RollbackOf = tx.Rollbacks().Undid(c.ID)
		if c.RollbackOf == "" {
			c.RollbackOf = strings.TrimPrefix(c.Note, "rollback of ")
		}
	}
}

// Version is one state of a document in its history.
type Version struct {
	LSN        uint64    `json:"lsn"`
	Change     string    `json:"change"`
	Kind       string    `json:"kind"`
	Time       time.Time `json:"time"`
	Actor      string    `json:"actor"`
	Collection string    `json:"collection"`
	Op         string    `json:"op"`  // insert, update or delete
	Doc        Doc       `json:"doc"` // the document right after this operation; null after a delete
}

// Versions lists the versions of the document with the given _id, newest
// first: one per journal operation on it, each with the document as that
// operation left it. With coll empty, every collection is searched. A
// document the journal never touched is a NotFound error.
func Versions(ctx context.Context, db *store.DB, coll string, id value.Value, limit int) ([]Version, error) {
	out := []Version{}
	key := string(value.AppendKey(nil, id))
	err := db.View(func(tx *store.Tx) error {
		after := map[string]value.Value{} // collection -> state after the operation being visited
		err := tx.JournalReverse(0, func(r *store.Record) (bool, error) {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			for i := len(r.Ops) - 1; i >= 0; i-- {
				op := &r.Ops[i]
				if !isDocOp(op) || (coll != "" && op.Coll != coll) || string(value.AppendKey(nil, op.ID)) != key {
					continue
				}
				state, seen := after[op.Coll]
				if !seen {
					_, cur, err := current(tx, op.Coll, op.ID)
					if err != nil {
						return false, err
					}
					state = cur
				}
				out = append(out, Version{LSN: r.LSN, Change: r.Change, Kind: r.Kind, Time: r.Time, Actor: r.Actor,
					Collection: op.Coll, Op: op.Op, Doc: Doc{state}})
				after[op.Coll] = stateBefore(op)
				if limit > 0 && len(out) == limit {
					return false, nil
				}
			}
			return true, nil
		})
		if err == nil && len(out) == 0 {
			where := "any collection"
			if coll != "" {
				where = "`" + coll + "`"
			}
			return wrap(errs.NotFound, ErrNotFound, "no history for _id %s in %s", id, where).
				WithHint("check the _id (an ObjectId is written {\"$oid\":\"…\"} or as 24 bare hex digits) and the --coll")
		}
		return err
	})
	return out, err
}

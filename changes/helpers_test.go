package changes_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

var ctx = context.Background()

// dump returns the store's dump (the bytes `omgdb dump` prints).
func dump(t testing.TB, db *store.DB) string {
	t.Helper()
	var b bytes.Buffer
	if err := db.Dump(ctx, &b); err != nil {
		t.Fatalf("dump: %v", err)
	}
	return b.String()
}

func lastLSN(t testing.TB, db *store.DB) uint64 {
	t.Helper()
	var lsn uint64
	db.View(func(tx *store.Tx) error { lsn = tx.LastLSN(); return nil })
	return lsn
}

// write runs fn in a write transaction and returns its change id.
func write(t testing.TB, db *store.DB, fn func(tx *store.Tx) error) string {
	t.Helper()
	var id string
	err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
		id = tx.ChangeID()
		return fn(tx)
	})
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	return id
}

func replace(t testing.TB, db *store.DB, coll, id, doc string) string {
	t.Helper()
	return write(t, db, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		return c.Replace(value.MustParse(id), value.MustParse(doc))
	})
}

func mustDelete(t testing.TB, db *store.DB, coll, filter string) *changes.PlanResult {
	t.Helper()
	res, err := changes.PlanDelete(ctx, db, coll, value.MustParse(filter), nil)
	if err != nil {
		t.Fatalf("plan-delete %s: %v", filter, err)
	}
	return res
}

func mustApply(t testing.TB, db *store.DB, token string) *changes.ApplyResult {
	t.Helper()
	res, err := changes.Apply(ctx, db, token, nil)
	if err != nil {
		t.Fatalf("apply %s: %v", token, err)
	}
	return res
}

func mustRollback(t testing.TB, db *store.DB, id string, force bool) *changes.RollbackResult {
	t.Helper()
	res, err := changes.Rollback(ctx, db, id, &changes.RollbackOptions{Force: force})
	if err != nil {
		t.Fatalf("rollback %s: %v", id, err)
	}
	return res
}

// conflictIDs returns the _ids a *ConflictError names, or fails.
func conflictIDs(t testing.TB, err error) []string {
	t.Helper()
	var ce *changes.ConflictError
	if !errors.As(err, &ce) || errs.KindOf(err) != errs.Conflict || !errors.Is(err, changes.ErrConflict) {
		t.Fatalf("error = %v, want a conflict", err)
	}
	var ids []string
	for _, d := range ce.Docs {
		ids = append(ids, d.ID.String())
	}
	return ids
}

package changes_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func rulesOf(t *testing.T, db *store.DB, coll string) string {
	t.Helper()
	var s string
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err == nil && c.Rules() != nil {
			s = c.Rules().Spec().String()
		}
		return nil
	})
	return s
}

// Rolling back a change that defined rules puts the previous rules back
// (and inserts nothing), before its documents are restored.
func TestRollback_Define(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":"x"}`)
	first := write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Define(value.MustParse(`{"fields":{"a":"string"}}`))
		return err
	})
	second := write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if err := c.Replace(value.LongValue(1), value.MustParse(`{"a":5}`)); err == nil {
			t.Error("replace broke the rules and was accepted")
		}
		if _, err := c.Define(value.MustParse(`{"fields":{"a":"long"}}`)); err != nil {
			return err
		}
		return c.Replace(value.LongValue(1), value.MustParse(`{"a":5}`))
	})
	before := dump(t, db)
	mustRollback(t, db, second, false)
	if got := rulesOf(t, db, "c"); got != `{"fields":{"a":"string"}}` {
		t.Errorf("rules after rolling back the second define = %s", got)
	}
	if got := dump(t, db); !strings.Contains(got, `{"_id":1,"a":"x"}`) || got == before {
		t.Errorf("documents after the rollback:\n%s", got)
	}
	mustRollback(t, db, first, false)
	if got := rulesOf(t, db, "c"); got != "" {
		t.Errorf("rules after rolling back the first define = %s", got)
	}
}

// A rollback that would give two documents one key of a unique index is
// refused, and writes nothing.
func TestRollback_UniqueIndexRefuses(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":"a"}`)
	change := write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		return c.Replace(value.LongValue(1), value.MustParse(`{"k":"b"}`))
	})
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if _, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true})); err != nil {
			return err
		}
		_, err := c.Insert(value.MustParse(`{"_id":2,"k":"a"}`))
		return err
	})
	before := dump(t, db)
	_, err := changes.Rollback(ctx, db, change, &changes.RollbackOptions{})
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "duplicate key in unique index `k_1`") {
		t.Fatalf("rollback onto a taken key: %v", err)
	}
	if dump(t, db) != before {
		t.Error("the refused rollback wrote something")
	}
}

package store_test

import (
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Changing a collection and then dropping it in one transaction must free
// every page it used: bbolt's recursive DeleteBucket skipped a nested
// bucket of a bucket changed earlier in the transaction, and verify
// reported the leaked page ("unreachable unfreed").
func TestTx_DropCollection_AfterChangesInTheSameTransaction(t *testing.T) {
	changes := map[string]func(c *store.Collection) error{
		"drop index": func(c *store.Collection) error { return c.DropIndex(c.Indexes()[0].Name) },
		"define":     func(c *store.Collection) error { _, err := c.Define(value.MustParse(`{"required":["a"]}`)); return err },
		"delete":     func(c *store.Collection) error { return c.Delete(value.MustParse(`1`)) },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			db := storetest.MustOpen(t)
			storetest.Insert(t, db, "c", `{"_id":1,"a":1}`, `{"_id":2,"a":2}`)
			err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
				c, _ := tx.Collection("c")
				_, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
				c, _ := tx.Collection("c")
				if err := change(c); err != nil {
					return err
				}
				return tx.DropCollection("c")
			})
			if err != nil {
				t.Fatal(err)
			}
			storetest.MustVerify(t, db)
		})
	}
}

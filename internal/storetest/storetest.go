package storetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// MustOpen creates a store in a temporary directory. When the test ends it
// closes the store, reopens it read-only and checks it with Verify: every
// test that uses it is also a reopen and corruption check.
func MustOpen(t testing.TB) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.omgdb")
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		db.Close()
		ro, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			t.Errorf("reopen %s: %v", path, err)
			return
		}
		defer ro.Close()
		MustVerify(t, ro)
	})
	return db
}

// MustVerify fails the test when Verify finds a problem.
func MustVerify(t testing.TB, db *store.DB) {
	t.Helper()
	rep, err := db.Verify(context.Background())
	if err != nil {
		t.Errorf("verify %s: %v", db.Path(), err)
		return
	}
	if !rep.OK {
		t.Errorf("verify %s found problems:\n%s", db.Path(), strings.Join(rep.Problems, "\n"))
	}
}

// Insert inserts documents given as JSON into coll, in one transaction.
func Insert(t testing.TB, db *store.DB, coll string, docs ...string) []value.Value {
	t.Helper()
	var ids []value.Value
	err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for _, d := range docs {
			id, err := c.Insert(value.MustParse(d))
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("insert into %s: %v", coll, err)
	}
	return ids
}

// Create creates a store file at path holding the given documents (JSON)
// in each collection, and closes it.
func Create(t testing.TB, path string, colls map[string][]string) {
	t.Helper()
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	defer db.Close()
	for name, docs := range colls {
		Insert(t, db, name, docs...)
	}
}

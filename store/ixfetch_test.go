package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/leakcheck"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// fetchStore makes a collection of n documents with an index on k, whose
// order is not _id order, so that index scans sort _id keys and fetch them.
func fetchStore(t *testing.T, n int) *store.DB {
	t.Helper()
	db := storetest.MustOpen(t)
	docs := make([]string, n)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":%d,"k":%d,"odd":%v,"pad":"%s"}`, i, (i*7919)%97, i%2 == 1, strings.Repeat("x", i%50))
	}
	storetest.Insert(t, db, "c", docs...)
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}}); err != nil {
		t.Fatal(err)
	}
	return db
}

// findIDs runs a find in its own read transaction and returns the _ids it
// printed, with what the stream said about the first document.
func findIDs(t *testing.T, db *store.DB, q store.Query, during func()) []string {
	t.Helper()
	var ids []string
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		src := c.Find(context.Background(), q)
		defer src.Close()
		if during != nil {
			during()
		}
		for src.Next() {
			ids = append(ids, src.Doc().Get("_id").String())
		}
		return src.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestFind_ParallelFetchEqualsSerial: an index scan that fetches its
// documents on several goroutines returns what the serial fetch returns,
// in the same order, with skip, limit and a residual filter.
func TestFind_ParallelFetchEqualsSerial(t *testing.T) {
	db := fetchStore(t, 3000)
	for _, q := range []store.Query{
		{Filter: mustFilter(t, `{"k":{"$gte":10,"$lte":80}}`)},
		{Filter: mustFilter(t, `{"k":{"$gte":10,"$lte":80},"odd":true}`)},
		{Filter: mustFilter(t, `{"k":{"$in":[3,5,90]}}`), Skip: 17, Limit: 40},
		{Filter: mustFilter(t, `{"k":{"$gt":1},"pad":"nothing"}`)},
	} {
		serial := findIDs(t, db, q, nil)
		restore := store.SetParallelFetchMin(1)
		parallel := findIDs(t, db, q, nil)
		restore()
		if strings.Join(parallel, ",") != strings.Join(serial, ",") {
			t.Errorf("parallel fetch returned %d documents %v…, serial %d %v…", len(parallel), parallel[:min(5, len(parallel))], len(serial), serial[:min(5, len(serial))])
		}
	}
}

// TestFind_ParallelFetchKeepsItsRevision: a writer of the same process
// that commits while the scan is open is not seen: workers reading the
// new revision hand their chunks back, which are read in the scan's own
// transaction.
func TestFind_ParallelFetchKeepsItsRevision(t *testing.T) {
	db := fetchStore(t, 2000)
	restore := store.SetParallelFetchMin(1)
	defer restore()
	q := store.Query{Filter: mustFilter(t, `{"k":{"$gte":0,"$lte":60}}`)}
	before := findIDs(t, db, q, nil)
	during := func() {
		done := make(chan error, 1)
		go func() {
			done <- db.Update(store.Change{}, func(tx *store.Tx) error {
				c, err := tx.Collection("c")
				if err != nil {
					return err
				}
				for i := range 500 {
					if err := c.Delete(value.LongValue(int64(i))); err != nil {
						return err
					}
				}
				return nil
			})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the writer did not commit beside the open scan")
		}
	}
	got := findIDs(t, db, q, during)
	if strings.Join(got, ",") != strings.Join(before, ",") {
		t.Errorf("the scan saw the writer's commit: %d documents, %d before it", len(got), len(before))
	}
	if after := findIDs(t, db, q, nil); len(after) >= len(before) {
		t.Errorf("after the commit: %d documents, %d before it", len(after), len(before))
	}
}

// TestFind_ParallelFetchStopsOnClose: a stream closed before its end, or
// after an error, leaves no goroutine behind.
func TestFind_ParallelFetchStopsOnClose(t *testing.T) {
	if !leakcheck.Supported() {
		t.Skip("cannot count file descriptors")
	}
	db := fetchStore(t, 8000)
	restore := store.SetParallelFetchMin(1)
	defer restore()
	leakcheck.Rounds(t, 5, func(i int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		err := db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			src := c.Find(ctx, store.Query{Filter: mustFilter(t, `{"k":{"$gte":0,"$lte":40}}`)})
			defer src.Close()
			for n := 0; src.Next(); n++ {
				if n == 100*i {
					cancel()
				}
			}
			if err := src.Err(); i > 0 && err == nil {
				t.Errorf("round %d: a cancelled scan reported no error", i)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

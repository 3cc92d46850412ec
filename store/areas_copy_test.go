package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

// fillAreas writes into every area packages keep through the store: a
// plan with a chunk, a snapshot, a rollback link, vector data and
// full-text data (index ix of collection c), and a B-tree index on c.a.
func fillAreas(t *testing.T, db *store.DB) {
	t.Helper()
	storetest.Insert(t, db, "c", `{"_id":1,"a":1}`, `{"_id":2,"a":2}`)
	putText(t, db)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if _, err := c.CreateIndex(store.BTreeIndex("by_a", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}})); err != nil {
			return err
		}
		if _, err := c.CreateIndex(store.IndexDef{Name: "vec", Kind: "store-test-data"}); err != nil {
			return err
		}
		vix, _ := c.Index("vec")
		vix.Vectors().Put(key(1), []byte("0123"), []byte("q123"))
		if err := vix.Vectors().SetCount(1); err != nil {
			return err
		}
		if err := tx.Plans().PutHeader("tok", []byte(`{"status":"pending"}`)); err != nil {
			return err
		}
		if err := tx.Plans().PutChunk("tok", store.PlanItems, 0, store.EncodeBlob([]byte("{}\n"))); err != nil {
			return err
		}
		if err := tx.Snapshots().Put("snap", []byte(`{"lsn":1}`)); err != nil {
			return err
		}
		return tx.Rollbacks().Link("c1", "r1")
	})
	if err != nil {
		t.Fatal(err)
	}
}

// areas describes what fillAreas wrote, as read back through the API.
func areas(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	err = db.View(func(tx *store.Tx) error {
		h, _ := tx.Plans().Header("tok")
		js, _ := store.DecodeBlob(h)
		snap, _ := store.DecodeBlob(tx.Snapshots().Get("snap"))
		fmt.Fprintf(&b, "plan %s chunks %d; snapshot %s; c1 undone by %q\n", js, len(tx.Plans().Chunks("tok")), snap, tx.Rollbacks().UndoneBy("c1"))
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		for _, def := range c.Indexes() {
			fmt.Fprintf(&b, "index %s\n", def.Name)
		}
		if vix, err := c.Index("vec"); err == nil {
			for cur := vix.Vectors().Records(); cur.Next(); {
				fmt.Fprintf(&b, "vector %x %s %s\n", cur.DocKey(), cur.Record(), vix.Vectors().Quant(cur.DocKey()))
			}
		}
		if ix, err := c.Index("ix"); err == nil {
			for p := ix.Text().Postings("body", "backup"); p.Next(); {
				fmt.Fprintf(&b, "posting backup %x\n", p.Key())
			}
			fmt.Fprintf(&b, "stats %v\n", ix.Text().Stats(1))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCompact_KeepsEveryArea(t *testing.T) {
	db := storetest.MustOpen(t)
	fillAreas(t, db)
	path := db.Path()
	db.Close()
	before := areas(t, path)
	if !strings.Contains(before, "plan {\"status\":\"pending\"} chunks 1; snapshot {\"lsn\":1}; c1 undone by \"r1\"") ||
		!strings.Contains(before, "vector ") || !strings.Contains(before, "posting backup") {
		t.Fatalf("the areas were not written:\n%s", before)
	}
	for _, opts := range []*store.CompactOptions{nil, {HistoryBefore: 2}} {
		if _, err := store.Compact(context.Background(), path, opts); err != nil {
			t.Fatal(err)
		}
		if got := areas(t, path); got != before {
			t.Errorf("after compact %+v:\n%s\nwant\n%s", opts, got, before)
		}
	}
}

func TestSalvage_RebuildsIndexesAndNamesWhatItLeaves(t *testing.T) {
	db := storetest.MustOpen(t)
	fillAreas(t, db)
	out := filepath.Join(t.TempDir(), "s.omgdb")
	rep, err := store.Salvage(context.Background(), db.Path(), out)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || len(rep.Collections) != 1 || strings.Join(rep.Collections[0].Indexes, ",") != "ix,by_a,vec" {
		t.Errorf("report = %+v, collections %+v", rep, rep.Collections)
	}
	want := []string{
		"1 plan(s) in /plans: they refer to the journal, which salvage does not carry over",
		"1 snapshot(s) in /snapshots: they refer to the journal, which salvage does not carry over",
		"1 rollback link(s) in /rollbacks: they refer to the journal, which salvage does not carry over",
	}
	if !reflect.DeepEqual(rep.LeftBehind, want) {
		t.Errorf("left behind = %q, want %q", rep.LeftBehind, want)
	}
	// The indexes are defined again and built over the documents: the
	// B-tree index serves, the test kind's data is empty (it writes none).
	got := areas(t, out)
	if !strings.Contains(got, "index by_a\nindex ix\nindex vec\n") || strings.Contains(got, "vector ") || strings.Contains(got, "posting ") {
		t.Errorf("salvaged store:\n%s", got)
	}
	sdb, err := store.Open(out, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	storetest.MustVerify(t, sdb)
}

package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// bigDocs returns n documents of about size bytes each, with _id 0..n-1.
func bigDocs(n, size int) []string {
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		fmt.Fprintf(&b, `{"_id":%d,"text":"`, i)
		for j := 0; b.Len() < size; j++ {
			fmt.Fprintf(&b, "word%d-%d ", j%977, i)
		}
		b.WriteString(`"}`)
		docs[i] = b.String()
	}
	return docs
}

// TestJournal_LargeRecordReadsBack: a transaction whose record is larger
// than any document may be (here 20 before-images of 3.5 MB, 70 MB) is
// written in pieces and reads back whole. Records used to be decoded with
// the documents' 64 MB limit: applying a plan of 300,000 documents wrote
// a record that history and rollback could not read.
func TestJournal_LargeRecordReadsBack(t *testing.T) {
	defer store.SetRecordWorkers(3)()
	db := storetest.MustOpen(t)
	docs := bigDocs(20, 3_500_000)
	storetest.Insert(t, db, "c", docs...)
	err := db.Update(store.Change{Kind: "edit"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for i := range docs {
			if err := c.Replace(value.LongValue(int64(i)), value.MustParse(`{"small":true}`)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ops int
	err = db.View(func(tx *store.Tx) error {
		if n := store.RecordFrames(tx, 2); n < 3 {
			t.Errorf("the 70 MB record is stored as %d zstd frames, want 3 pieces", n)
		}
		return tx.Journal(2, func(r *store.Record) (bool, error) {
			for i, op := range r.Ops {
				if got := value.JSON(op.Before); string(got) != docs[i] {
					t.Errorf("op %d: before-image of %d bytes, want the %d-byte document", i, len(got), len(docs[i]))
				}
			}
			ops = len(r.Ops)
			return false, nil
		})
	})
	if err != nil || ops != len(docs) {
		t.Fatalf("reading the record back: %d ops, err %v", ops, err)
	}
}

// TestJournal_RecordLimit: a transaction whose record would exceed the
// limit fails with a Limit error and writes nothing.
func TestJournal_RecordLimit(t *testing.T) {
	defer store.SetMaxRecordSize(100_000)()
	db := storetest.MustOpen(t)
	docs := bigDocs(4, 30_000)
	storetest.Insert(t, db, "c", docs...)
	err := db.Update(store.Change{Kind: "edit"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for i := range docs {
			if err := c.Delete(value.LongValue(int64(i))); err != nil {
				return err
			}
		}
		return nil
	})
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Kind != errs.Limit || !strings.Contains(err.Error(), "journal record") || qe.Hint == "" {
		t.Fatalf("deleting 120 kB of documents under a 100 kB record limit: %v, want a Limit error with a hint", err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if n := c.Count(); n != int64(len(docs)) {
			t.Errorf("%d documents left after the refused transaction, want %d", n, len(docs))
		}
		return nil
	})
}

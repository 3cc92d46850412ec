package store_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestDumpLoadDump_Property: for random stores of documents of all ten
// types, dump -> load -> dump is byte-identical.
func TestDumpLoadDump_Property(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 20; round++ {
		src := storetest.MustOpen(t)
		for _, coll := range []string{"a", "b", "empty"} {
			n := r.IntN(60)
			if coll == "empty" {
				n = 0
			}
			err := src.Update(store.Change{}, func(tx *store.Tx) error {
				c, err := tx.CreateCollection(coll)
				if err != nil {
					return err
				}
				for i := 0; i < n; i++ {
					if _, err := c.Insert(testgen.Document(r)); err != nil && !errors.Is(err, store.ErrDuplicateID) {
						return err
					}
				}
				return nil
			})
			if err != nil {
				// A duplicate random _id aborts the transaction; try the next round.
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if round%2 == 1 {
			// Rules and indexes travel too; they are applied after the
			// documents, which need not follow the rules.
			err := src.Update(store.Change{}, func(tx *store.Tx) error {
				c, _ := tx.Collection("a")
				if _, err := c.Define(value.MustParse(`{"required":["zz"],"fields":{"aa":"long"}}`)); err != nil {
					return err
				}
				_, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "_id", Desc: true}}}))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		var d1, d2 bytes.Buffer
		if err := src.Dump(context.Background(), &d1); err != nil {
			t.Fatal(err)
		}
		dst := storetest.MustOpen(t)
		if _, err := dst.Load(context.Background(), bytes.NewReader(d1.Bytes())); err != nil {
			t.Fatalf("round %d: load: %v\n%s", round, err, d1.String())
		}
		if err := dst.Dump(context.Background(), &d2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d1.Bytes(), d2.Bytes()) {
			t.Fatalf("round %d: dump -> load -> dump changed bytes:\n%s\n---\n%s", round, d1.String(), d2.String())
		}
	}
}

func TestImport_BadLinesAndAtomic(t *testing.T) {
	db := storetest.MustOpen(t)
	in := "{\"_id\":1}\n\n{\"_id\":2}\n{oops}\n{\"_id\":3}\n"
	sum, err := db.Import(context.Background(), "c", bytes.NewReader([]byte(in)), &store.ImportOptions{Atomic: true})
	if err == nil || sum.StoppedAt != 4 {
		t.Fatalf("atomic import of a bad line: %v, %+v", err, sum)
	}
	db.View(func(tx *store.Tx) error {
		if _, err := tx.Collection("c"); err == nil {
			t.Error("an atomic import with a bad line left a collection")
		}
		return nil
	})
	sum, err = db.Import(context.Background(), "c", bytes.NewReader([]byte(in)), &store.ImportOptions{Skip: true, BatchSize: 1})
	if err != nil || sum.Inserted != 3 || sum.Skipped != 1 || sum.Lines != 5 || sum.Errors[0].Line != 4 {
		t.Fatalf("skip import: %v, %+v", err, sum)
	}
	if sum.Batches != 3 {
		t.Errorf("batches = %d, want 3 (batch size 1)", sum.Batches)
	}
}

func TestImport_LongLineIsAnErrorAndTheRestIsRead(t *testing.T) {
	db := storetest.MustOpen(t)
	long := append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), value.MaxDocumentSize+10)...)
	in := append(append([]byte("{\"_id\":1}\n"), long...), []byte("\"}\n{\"_id\":2}\n")...)
	sum, err := db.Import(context.Background(), "c", bytes.NewReader(in), &store.ImportOptions{Skip: true})
	if err != nil || sum.Inserted != 2 || sum.Skipped != 1 || sum.Errors[0].Line != 2 {
		t.Fatalf("import with a long line: %v, %+v", err, sum)
	}
}

package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func dumpOf(t *testing.T, path string) []byte {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	storetest.MustVerify(t, db)
	return b.Bytes()
}

// fillAndDelete makes a store with free pages: 2,000 documents inserted in
// 20 transactions, then half of them deleted.
func fillAndDelete(t *testing.T) string {
	db := storetest.MustOpen(t)
	for b := 0; b < 20; b++ {
		var docs []string
		for i := 0; i < 100; i++ {
			docs = append(docs, fmt.Sprintf(`{"_id":%d,"pad":"%0200d"}`, b*100+i, i))
		}
		storetest.Insert(t, db, "c", docs...)
	}
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for i := 0; i < 2000; i += 2 {
			if err := c.Delete(value.LongValue(int64(i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	return db.Path()
}

func TestCompact_KeepsDataAndShrinks(t *testing.T) {
	path := fillAndDelete(t)
	before := dumpOf(t, path)
	res, err := store.Compact(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.BytesAfter >= res.BytesBefore {
		t.Errorf("compact did not shrink the file: %d -> %d", res.BytesBefore, res.BytesAfter)
	}
	if after := dumpOf(t, path); !bytes.Equal(before, after) {
		t.Error("compact changed the data")
	}
	t.Logf("compact: %d -> %d bytes", res.BytesBefore, res.BytesAfter)
}

func TestCompact_HistoryBefore(t *testing.T) {
	path := fillAndDelete(t) // journal: 21 records
	res, err := store.Compact(context.Background(), path, &store.CompactOptions{HistoryBefore: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.RecordsPruned != 10 || res.HistoryStartsAt != 11 {
		t.Errorf("result = %+v", res)
	}
	db, _ := store.Open(path, &store.Options{ReadOnly: true})
	storetest.MustVerify(t, db)
	db.View(func(tx *store.Tx) error {
		if tx.PrunedLSN() != 10 {
			t.Errorf("pruned lsn = %d", tx.PrunedLSN())
		}
		n := 0
		tx.Journal(0, func(r *store.Record) (bool, error) {
			if r.LSN <= 10 {
				t.Errorf("record %d survived the prune", r.LSN)
			}
			n++
			return true, nil
		})
		if n != 11 {
			t.Errorf("%d records kept, want 11", n)
		}
		return nil
	})
	db.Close()
	if _, err := store.Compact(context.Background(), path, &store.CompactOptions{HistoryBefore: 99}); errs.KindOf(err) != errs.Invalid {
		t.Errorf("pruning past the end = %v", err)
	}
}

// TestCompact_NeverSplitsAChange: an import's batches share one change
// id; cutting history inside it moves the cut before its first batch.
func TestCompact_NeverSplitsAChange(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":"first"}`) // lsn 1
	var in bytes.Buffer
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&in, "{\"_id\":%d}\n", i)
	}
	if _, err := db.Import(context.Background(), "c", &in, &store.ImportOptions{BatchSize: 2}); err != nil { // lsn 2-6
		t.Fatal(err)
	}
	db.Close()
	res, err := store.Compact(context.Background(), db.Path(), &store.CompactOptions{HistoryBefore: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.HistoryStartsAt != 2 || res.RecordsPruned != 1 {
		t.Errorf("cut inside an import: %+v, want history from lsn 2", res)
	}
}

// TestCompact_WaitingWriterWritesTheNewFile: a writer that waited for the
// lock while compaction replaced the file must open the new file, or its
// writes would go to the old, unlinked one and be lost.
func TestCompact_WaitingWriterWritesTheNewFile(t *testing.T) {
	path := fillAndDelete(t)
	holder, err := store.Open(path, nil) // hold the lock so the writer waits
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var werr error
	go func() {
		defer wg.Done()
		db, err := store.Open(path, &store.Options{Timeout: 10 * time.Second})
		if err != nil {
			werr = err
			return
		}
		defer db.Close()
		werr = db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			_, err := c.Insert(value.MustParse(`{"_id":"after"}`))
			return err
		})
	}()
	time.Sleep(150 * time.Millisecond) // the writer is now waiting for the lock
	// Replace the file as compaction does, while the lock is held: a new
	// file renamed over the old one. Then let go of the old one's lock.
	data, _ := os.ReadFile(path)
	tmp := path + ".new"
	os.WriteFile(tmp, data, 0o644)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	holder.Close()
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	db, _ := store.Open(path, &store.Options{ReadOnly: true})
	defer db.Close()
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Get(value.StringValue("after"))
		return err
	})
	if err != nil {
		t.Errorf("the write made while compaction ran is lost: %v", err)
	}
}

func TestBackupRestore(t *testing.T) {
	path := fillAndDelete(t)
	want := dumpOf(t, path)
	dir := t.TempDir()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"b.omgdb", "b.omgdb.zst"} {
		out := filepath.Join(dir, name)
		res, err := db.Backup(context.Background(), out)
		if err != nil || !res.Verified {
			t.Fatalf("backup %s: %v %+v", name, err, res)
		}
		if _, err := db.Backup(context.Background(), out); errs.KindOf(err) != errs.Conflict {
			t.Errorf("backup over an existing file = %v", err)
		}
		restored := filepath.Join(dir, "r-"+name+".omgdb")
		if err := store.Restore(context.Background(), out, restored); err != nil {
			t.Fatal(err)
		}
		if got := dumpOf(t, restored); !bytes.Equal(got, want) {
			t.Errorf("restore of %s differs from the store", name)
		}
	}
	// A damaged compressed backup fails verification cleanly.
	bad := filepath.Join(dir, "bad.omgdb.zst")
	os.WriteFile(bad, []byte("not zstd at all"), 0o644)
	if err := store.VerifyBackup(context.Background(), bad); errs.KindOf(err) != errs.IO {
		t.Errorf("damaged backup = %v", err)
	}
}

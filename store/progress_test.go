package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

// steps records the last report of each step a Progress received.
type steps struct {
	order []string
	last  map[string][2]int64
}

func (s *steps) progress(step string, done, total int64) {
	if s.last == nil {
		s.last = map[string][2]int64{}
	}
	if _, ok := s.last[step]; !ok {
		s.order = append(s.order, step)
	}
	s.last[step] = [2]int64{done, total}
}

// TestProgress_VerifyBackupRestore: Verify, Backup and Restore report
// their steps to the Progress a context carries, each ending at its total:
// every document, every journal record, every byte.
func TestProgress_VerifyBackupRestore(t *testing.T) {
	path := fillAndDelete(t) // 1,000 documents, 21 journal records
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var v steps
	if _, err := db.Verify(store.WithProgress(context.Background(), v.progress)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]string{"checking pages", "reading every page", "checking the tree", "documents", "journal records"})
	if fmt.Sprint(v.order) != want || v.last["documents"] != [2]int64{1000, 1000} || v.last["journal records"] != [2]int64{21, 21} {
		t.Errorf("verify reported %v %v, want the steps %s ending at 1000/1000 documents and 21/21 records", v.order, v.last, want)
	}

	var b steps
	out := filepath.Join(t.TempDir(), "b.omgdb.zst")
	if _, err := db.Backup(store.WithProgress(context.Background(), b.progress), out); err != nil {
		t.Fatal(err)
	}
	copied := b.last["copying"]
	if copied[1] == 0 || copied[0] != copied[1] || b.last["verifying: documents"] != [2]int64{1000, 1000} {
		t.Errorf("backup reported %v %v, want copying to end at its total and the copy verified", b.order, b.last)
	}

	var r steps
	fi, _ := os.Stat(out)
	if err := store.Restore(store.WithProgress(context.Background(), r.progress), out, filepath.Join(t.TempDir(), "r.omgdb")); err != nil {
		t.Fatal(err)
	}
	if r.last["copying"] != [2]int64{fi.Size(), fi.Size()} {
		t.Errorf("restore reported %v, want copying to end at the backup's %d bytes", r.last, fi.Size())
	}
}

// TestProgress_BackupCancelled: a cancelled context stops a backup's copy,
// and no file is left.
func TestProgress_BackupCancelled(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "b.omgdb")
	if _, err := db.Backup(ctx, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("backup with a cancelled context: %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("a cancelled backup left %v", entries)
	}
}

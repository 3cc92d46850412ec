package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/store"
)

// openFile creates a store that is not verified when the test ends (the
// test damages it), and returns it with its path.
func openFile(t *testing.T) (*store.DB, string) {
	path := filepath.Join(t.TempDir(), "t.omgdb")
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func problems(t *testing.T, db *store.DB) string {
	t.Helper()
	rep, err := db.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(rep.Problems, "\n")
}

func TestDB_Verify_DamagedPlanAndSnapshotBlobs(t *testing.T) {
	db, _ := openFile(t)
	damaged := func(s string) store.Blob {
		b := store.EncodeBlob([]byte(s))
		b[len(b)-1] ^= 0xff
		return b
	}
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		if err := tx.Plans().PutHeader("tok", []byte(`{}`)); err != nil {
			return err
		}
		if err := tx.Plans().PutChunk("tok", store.PlanItems, 1, store.EncodeBlob([]byte("{}\n"))); err != nil {
			return err
		}
		return tx.Plans().PutChunk("tok", store.PlanAfters, 1, damaged("{}\n"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := problems(t, db); !strings.Contains(got, "plan tok: chunk a#1: ") || !strings.Contains(got, "checksum mismatch") {
		t.Errorf("verify of a damaged plan chunk: %q", got)
	}
	db.Update(store.Change{}, func(tx *store.Tx) error {
		tx.Plans().PutChunk("tok", store.PlanAfters, 1, store.EncodeBlob([]byte("{}\n")))
		return tx.Plans().PutChunk("tok", store.PlanBefores, 2, store.EncodeBlob([]byte("{}\n")))
	})
	if got := problems(t, db); got != "plan tok: chunk b#2 has no items" {
		t.Errorf("verify of a chunk without items: %q", got)
	}
	db.Update(store.Change{}, func(tx *store.Tx) error {
		tx.Plans().PutChunk("tok", store.PlanItems, 2, store.EncodeBlob([]byte("{}\n")))
		return tx.Snapshots().Put("s", []byte(`{"lsn":1}`))
	})
	if got := problems(t, db); got != "" {
		t.Fatalf("verify of healthy plans and snapshots: %q", got)
	}
	// A damaged snapshot, written around the API.
	db.Close()
	path := db.Path()
	data, _ := os.ReadFile(path)
	snap := []byte(`{"lsn":1}`)
	if !bytes.Contains(data, snap) {
		t.Fatal("snapshot not found in the file")
	}
	for i := bytes.Index(data, snap); i >= 0; i = next(data, snap, i) {
		data[i+7] = '9' // every copy: see TestDB_Verify_DamagedPostings
	}
	os.WriteFile(path, data, 0o644)
	if rep, err := verifyFile(t, path); err != nil || !strings.Contains(strings.Join(rep.Problems, "\n"), "snapshot s: ") {
		t.Errorf("verify of a damaged snapshot: %v %v", rep, err)
	}
}

func TestDB_Verify_DamagedPostings(t *testing.T) {
	db, path := openFile(t)
	putText(t, db)
	if got := problems(t, db); got != "" {
		t.Fatalf("verify of a healthy text index: %q", got)
	}
	withIndex(t, db, func(ix *store.Index) error { return ix.Text().SetDocFreq("body", "bake", 3) })
	if got := problems(t, db); !strings.Contains(got, `index ix: term "body\x00bake" has document frequency 3 but 1 postings`) {
		t.Errorf("verify of a wrong document frequency: %q", got)
	}
	withIndex(t, db, func(ix *store.Index) error { return ix.Text().SetDocFreq("body", "bake", 1) })
	// Damage a posting's value on disk: it says it holds 9 positions and
	// holds 1.
	db.Close()
	data, _ := os.ReadFile(path)
	// The file may also hold stale copies of the page (bbolt writes pages
	// anew and frees the old ones): damage every copy.
	k := append([]byte("pbody\x00bake\x00"), key(2)...)
	damaged := 0
	for i := bytes.Index(data, k); i >= 0; i = next(data, k, i) {
		if v := i + len(k); bytes.Equal(data[v:v+3], []byte{5, 1, 4}) {
			data[v+1] = 9
			damaged++
		}
	}
	if damaged == 0 {
		t.Fatal("posting 050104 not found in the file")
	}
	os.WriteFile(path, data, 0o644)
	rep, err := verifyFile(t, path)
	if err != nil || rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), `collection c: index ix: posting "pbody\x00bake\x00`) {
		t.Errorf("verify of a damaged posting: %+v %v", rep, err)
	}
}

func TestDB_Verify_VectorLayout(t *testing.T) {
	db, _ := openFile(t)
	withIndex(t, db, func(ix *store.Index) error {
		ix.Vectors().Put(key(1), []byte("abcd"), []byte("q123"))
		ix.Vectors().Put(key(2), []byte("abcde"), []byte("q123"))
		return ix.Vectors().SetCount(5)
	})
	got := problems(t, db)
	for _, want := range []string{"is 5 bytes, not a multiple of 4", "count record says 5, found 2 records"} {
		if !strings.Contains(got, want) {
			t.Errorf("verify of a bad vector index: %q, want %q", got, want)
		}
	}
}

func TestDB_Verify_OneWayRollbackLink(t *testing.T) {
	db, path := openFile(t)
	db.Update(store.Change{}, func(tx *store.Tx) error { return tx.Rollbacks().Link("c1", "r1") })
	if got := problems(t, db); got != "" {
		t.Fatalf("verify of a healthy link: %q", got)
	}
	db.Close()
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("of\x00r1"))
	if i < 0 {
		t.Fatal("link not found in the file")
	}
	data[i+4] = '7' // of\x00r7 -> c1: c1 is undone by r1, which undid nothing
	os.WriteFile(path, data, 0o644)
	rep, _ := verifyFile(t, path)
	if rep == nil || !strings.Contains(strings.Join(rep.Problems, "\n"), `rollbacks: change c1 is linked to rollback r1, which undid ""`) {
		t.Errorf("verify of a one-way link: %+v", rep)
	}
}

// next returns the index of the next occurrence of sub in data after i,
// or -1.
func next(data, sub []byte, i int) int {
	j := bytes.Index(data[i+1:], sub)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

package store

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/value"
)

// TestVerify_IgnoresFreePages: free pages may hold anything, such as the
// pages a killed transaction wrote before it could commit, which point to
// pages past the end of the committed file. Verify must not read them
// (the crash test found it did).
func TestVerify_IgnoresFreePages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.omgdb")
	db, err := Open(path, &Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		err := db.Update(Change{}, func(tx *Tx) error {
			c, err := tx.CreateCollection("c")
			if err != nil {
				return err
			}
			for j := 0; j < 50; j++ {
				if _, err := c.Insert(value.MustParse(`{"pad":"` + strings.Repeat("x", 300) + `"}`)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var free []int
	db.bolt.View(func(btx *bolt.Tx) error {
		for id := 2; id < int(btx.Size())/db.bolt.Info().PageSize; id++ {
			if p, err := btx.Page(id); err == nil && p != nil && p.Type == "free" {
				free = append(free, id)
			}
		}
		return nil
	})
	ps := db.bolt.Info().PageSize
	db.Close()
	if len(free) == 0 {
		t.Fatal("no free pages to damage")
	}
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	for _, id := range free {
		junk := make([]byte, ps)
		binary.LittleEndian.PutUint64(junk[0:], uint64(id))
		binary.LittleEndian.PutUint16(junk[8:], branchPageFlag)
		binary.LittleEndian.PutUint16(junk[10:], 1)
		binary.LittleEndian.PutUint64(junk[16+8:], 1<<40) // a child far past the end
		f.WriteAt(junk, int64(id)*int64(ps))
	}
	f.Close()
	db, err = Open(path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK || rep.Documents != 1000 {
		t.Fatalf("verify after damaging %d free pages: %v %+v", len(free), err, rep)
	}
}

// TestVerify_ChangeIndex: the change-id index (what rollback of a change
// reads) must agree with the journal; damage to it is reported.
func TestVerify_ChangeIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.omgdb")
	db, err := Open(path, &Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var change string
	for i := 0; i < 3; i++ {
		db.Update(Change{}, func(tx *Tx) error {
			change = tx.ChangeID()
			c, _ := tx.CreateCollection("c")
			_, err := c.Insert(value.MustParse(`{}`))
			return err
		})
	}
	if rep, _ := db.Verify(context.Background()); !rep.OK {
		t.Fatalf("healthy store: %v", rep.Problems)
	}
	// A damaged key: the record is missing from the index, a stray entry is in it.
	db.bolt.Update(func(btx *bolt.Tx) error {
		b := btx.Bucket(bucketChanges)
		b.Delete(changeKey(change, 3))
		return b.Put(changeKey("x"+change[1:], 3), nil)
	})
	rep, _ := db.Verify(context.Background())
	want := "journal record 3: missing from the change index under change " + change
	if rep.OK || len(rep.Problems) != 1 || rep.Problems[0] != want {
		t.Fatalf("problems = %q, want %q", rep.Problems, want)
	}
	db.bolt.Update(func(btx *bolt.Tx) error { return btx.Bucket(bucketChanges).Put(changeKey(change, 3), nil) })
	rep, _ = db.Verify(context.Background())
	if rep.OK || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "the change index has 4 entries for 3 records") {
		t.Fatalf("problems = %q", rep.Problems)
	}
}

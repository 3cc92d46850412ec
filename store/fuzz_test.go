package store_test

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

var updateFuzzBase = flag.Bool("fuzzbase.update", false, "rewrite testdata/fuzzbase.omgdb")

const fuzzBase = "testdata/fuzzbase.omgdb"

// TestFuzzBase_Valid checks the store FuzzOpenDamaged damages: it must be
// a valid store with a nested tree, a compressed document over overflow
// pages and a journal, so that damage can reach every kind of page.
// Regenerate it with: go test ./store -run TestFuzzBase -fuzzbase.update
func TestFuzzBase_Valid(t *testing.T) {
	if *updateFuzzBase {
		writeFuzzBase(t)
	}
	db, err := store.Open(fuzzBase, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK || rep.Collections != 2 || rep.Documents != 59 || rep.JournalRecords != 3 {
		t.Fatalf("%s: %+v %v", fuzzBase, rep, err)
	}
}

func writeFuzzBase(t *testing.T) {
	os.Remove(fuzzBase)
	db, err := store.Open(fuzzBase, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := damageInsert(db, "small", 0, 60, 80); err != nil {
		t.Fatal(err)
	}
	if err := damageInsert(db, "big", 0, 1, 9000); err != nil {
		t.Fatal(err)
	}
	if err := damageRewrite(db, "small", 3, 2); err != nil {
		t.Fatal(err)
	}
}

// FuzzOpenDamaged damages the base store with a patch (each 4 bytes: a
// 24-bit offset and a byte to XOR there, or 0 to cut the file at that
// offset) and runs Open, Verify, Dump and Salvage on it: none may panic
// or hang, an open that fails must fail with an I/O error, and a salvaged
// store must verify clean.
func FuzzOpenDamaged(f *testing.F) {
	base, err := os.ReadFile(fuzzBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 16, 0xff})      // meta page 0's magic
	f.Add([]byte{0, 0x10, 40, 0x01})   // meta page 1's root
	f.Add([]byte{0, 0x20, 10, 0x7f})   // a count of elements
	f.Add([]byte{0, 0x30, 0x20, 0x40}) // inside a page's data
	f.Add([]byte{0, 0x50, 0, 0})       // cut the file
	f.Add([]byte{0, 0x20, 8, 0x03, 0, 0x21, 0x10, 0x80})
	f.Fuzz(func(t *testing.T, patch []byte) {
		data := applyFuzzPatch(base, patch)
		dir := t.TempDir()
		path := filepath.Join(dir, "f.omgdb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() { done <- openDamaged(path, filepath.Join(dir, "s.omgdb")) }()
		select {
		case msg := <-done:
			if msg != "" {
				t.Fatal(msg)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Open, Verify, Dump or Salvage hangs")
		}
	})
}

func applyFuzzPatch(base, patch []byte) []byte {
	data := append([]byte(nil), base...)
	for i := 0; i+4 <= len(patch); i += 4 {
		off := (int(patch[i])<<16 | int(patch[i+1])<<8 | int(patch[i+2])) % len(data)
		if patch[i+3] == 0 {
			data = data[:off]
			if len(data) == 0 {
				return data
			}
			continue
		}
		data[off] ^= patch[i+3]
	}
	return data
}

// openDamaged runs everything on a damaged file and returns what went
// wrong, or "".
func openDamaged(path, out string) string {
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err == nil {
		db.Verify(context.Background())
		db.Dump(context.Background(), io.Discard)
		db.Close()
	} else if errs.KindOf(err) != errs.IO {
		return "open failed without an I/O error: " + err.Error()
	}
	if _, err := store.Salvage(context.Background(), path, out); err != nil {
		return ""
	}
	db, err = store.Open(out, &store.Options{ReadOnly: true})
	if err != nil {
		return "open salvaged store: " + err.Error()
	}
	defer db.Close()
	if rep, err := db.Verify(context.Background()); err != nil || !rep.OK {
		return "salvaged store does not verify"
	}
	return ""
}

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/omgdb/omgdb/internal/leakcheck"
	"github.com/omgdb/omgdb/store"
)

// TestOpen_NoLeaks opens and closes stores many times, through the paths
// that end in errors too (damaged file, busy lock, salvage refusals), and
// checks that no file descriptor or goroutine is left behind.
func TestOpen_NoLeaks(t *testing.T) {
	if !leakcheck.Supported() {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	good := makeStore(t, 10)
	bad := filepath.Join(dir, "bad.omgdb")
	os.WriteFile(bad, []byte("not a store, not a store, not a store"), 0o644)
	empty := filepath.Join(dir, "empty.omgdb")
	os.WriteFile(empty, nil, 0o644)
	round := func(i int) {
		db, err := store.Open(good, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		db.Verify(context.Background())
		db.Close()
		db.Close() // idempotent
		store.Open(bad, &store.Options{ReadOnly: true})
		store.Open(empty, &store.Options{ReadOnly: true})
		w, err := store.Open(good, nil)
		if err != nil {
			t.Fatal(err)
		}
		store.Open(good, &store.Options{Timeout: -1}) // busy
		w.Close()
		store.Salvage(context.Background(), good, good) // refused: exists
		store.Salvage(context.Background(), bad, filepath.Join(dir, "x.omgdb"))
		out := filepath.Join(dir, "s.omgdb")
		os.Remove(out)
		store.Salvage(context.Background(), good, out)
		n, err := store.Open(filepath.Join(dir, "new.omgdb"), &store.Options{Create: true, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		n.Close()
		os.Remove(filepath.Join(dir, "new.omgdb"))
	}
	leakcheck.Rounds(t, 20, round)
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

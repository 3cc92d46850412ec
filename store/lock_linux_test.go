//go:build linux

package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLockSignals checks the kernel behaviour the handoff rests on: a
// read lock on the intent byte, taken through one open file, is seen
// through another opened read-only; it neither blocks nor is blocked by
// an exclusive flock on the file; and closing the file drops it.
func TestLockSignals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("x"), 0o644)
	holder, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	waiter, _ := os.Open(path)
	watcher, _ := os.Open(path)
	defer watcher.Close()
	if waitersIn(holder) || waitersIn(watcher) {
		t.Fatal("a waiter seen before any")
	}
	if err := ofdLock(waiter, unix.F_RDLCK, intentByte); err != nil {
		t.Fatalf("intent lock beside an exclusive flock: %v", err)
	}
	if !waitersIn(holder) || !waitersIn(watcher) {
		t.Fatal("the waiter is not seen")
	}
	if err := ofdLock(watcher, unix.F_RDLCK, intentByte); err != nil {
		t.Fatalf("a second waiter: %v", err)
	}
	ofdLock(watcher, unix.F_UNLCK, intentByte)
	waiter.Close()
	if waitersIn(holder) {
		t.Fatal("the intent lock outlived its file")
	}
	// lockFile: times out on the exclusive flock, and takes the lock once
	// it is released.
	other, _ := os.Open(path)
	defer other.Close()
	if err := lockFile(other, false, false, time.Now().Add(30*time.Millisecond)); err == nil {
		t.Fatal("lockFile took a shared lock beside an exclusive one")
	}
	fd := int(holder.Fd())
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(30 * time.Millisecond)
		unix.Flock(fd, unix.LOCK_UN)
	}()
	err = lockFile(other, false, false, time.Now().Add(5*time.Second))
	<-released
	if err != nil {
		t.Fatalf("lockFile after the holder let go: %v", err)
	}
	if waitersIn(holder) {
		t.Fatal("lockFile kept its intent lock after taking the lock")
	}
}

// TestRemoveAbandoned checks that a backup removes the temporary files of
// backups to the same name that were killed midway (old and unlocked),
// and keeps those of a backup still running (locked) and recent ones.
func TestRemoveAbandoned(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.omgdb")
	old := time.Now().Add(-2 * abandonedAge)
	make := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	abandoned := make(".b.omgdb.backup-1", old)
	live := make(".b.omgdb.backup-2", old)
	recent := make(".b.omgdb.backup-3", time.Now())
	other := make(".c.omgdb.backup-4", old)    // another output's
	restore := make(".b.omgdb.restore-5", old) // a restore's, not a backup's
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lockTemp(f)

	removeAbandoned(out, ".backup-")
	for path, want := range map[string]bool{abandoned: false, live: true, recent: true, other: true, restore: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
	f.Close() // the writer is gone: the file is abandoned now
	removeAbandoned(out, ".backup-")
	if _, err := os.Stat(live); err == nil {
		t.Errorf("%s was kept after its writer let go", filepath.Base(live))
	}
}

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

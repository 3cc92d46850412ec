//go:build linux

package store

import (
	"errors"
	"io"
	"os"
	"time"

	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// The lock handoff (see handoff.go) signals through open-file-description
// (OFD) byte-range locks on two bytes of the store file far beyond any
// size it can reach. On Linux these locks are independent of the flock
// that bbolt takes on the whole file, so they neither block nor are
// blocked by it; like flock they belong to an open file and the kernel
// drops them when it is closed, so a killed process leaves no signal
// behind and no file is added next to the store.
const (
	// intentByte is read-locked by every process waiting for the store's
	// lock: a writer that hands off tests it between batches.
	intentByte = 1 << 62
	// resumeByte is read-locked by a writer taking its lock back after
	// handing it off; processes that start to wait then defer to it.
	resumeByte = intentByte + 1
)

// handoffSupported reports whether this platform has the signals.
const handoffSupported = true

// ofdLock takes (typ unix.F_RDLCK) or releases (unix.F_UNLCK) an OFD lock
// on one byte of f, without waiting.
func ofdLock(f *os.File, typ int16, off int64) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: off, Len: 1}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}

// ofdHeld reports whether another open file holds a lock on byte off of
// the file f is open on.
func ofdHeld(f *os.File, off int64) bool {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: off, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}

// lockFile takes the flock bbolt is about to take on f (shared for a
// read-only open, exclusive otherwise), waiting until deadline. bbolt's
// own wait polls every 50 ms and says nothing to the holder; this one
// polls every lockPoll, holds the intent byte while it waits so that an
// importer hands the store over between batches, and first defers a while
// to a writer taking the store back (resuming: this is that writer).
// bbolt's flock on the same file afterwards finds the lock already held
// and returns at once.
func lockFile(f *os.File, exclusive, resuming bool, deadline time.Time) error {
	how := unix.LOCK_SH | unix.LOCK_NB
	if exclusive {
		how = unix.LOCK_EX | unix.LOCK_NB
	}
	fd := int(f.Fd())
	if !resuming {
		until := time.Now().Add(maxResumeDefer)
		if deadline.Before(until) {
			until = deadline
		}
		for ofdHeld(f, resumeByte) && time.Now().Before(until) {
			time.Sleep(lockPoll)
		}
	}
	err := unix.Flock(fd, how)
	if !errors.Is(err, unix.EWOULDBLOCK) {
		return err
	}
	if ofdLock(f, unix.F_RDLCK, intentByte) == nil {
		defer ofdLock(f, unix.F_UNLCK, intentByte)
	}
	for {
		if !time.Now().Before(deadline) {
			return berrors.ErrTimeout
		}
		time.Sleep(min(lockPoll, time.Until(deadline)))
		if err := unix.Flock(fd, how); !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
	}
}

// waitersIn reports whether a process is waiting for the lock of the file
// f is open on.
func waitersIn(f *os.File) bool { return ofdHeld(f, intentByte) }

// holdResume opens the store's file apart from bbolt's handle and
// read-locks its resume byte, for the time a writer is out of the store.
// It returns nil when it cannot.
func holdResume(path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	if ofdLock(f, unix.F_RDLCK, resumeByte) != nil {
		f.Close()
		return nil
	}
	return f
}

// lockTemp takes an exclusive flock on a temporary file being written, so
// that removeAbandoned can tell it from one a killed process left.
func lockTemp(f *os.File) {
	_ = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// tempAbandoned reports whether no process holds the lock of the
// temporary file at path.
func tempAbandoned(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

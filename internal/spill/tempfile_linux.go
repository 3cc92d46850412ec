package spill

import (
	"os"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new file in dir that has no name at all (Linux's
// O_TMPFILE): no exit path can leave it behind. ok is false where the
// file system cannot (then the caller names the file and removes it).
func openUnnamed(dir string) (f *os.File, ok bool, err error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	switch err {
	case nil:
		return os.NewFile(uintptr(fd), dir+"/(unnamed sort run)"), true, nil
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		return nil, false, nil
	}
	return nil, true, &os.PathError{Op: "open", Path: dir, Err: err}
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool { return unix.Kill(pid, 0) == unix.ESRCH }

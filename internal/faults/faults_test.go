//go:build linux

package faults_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/omgdb/omgdb/internal/faults"
)

// The tests run their faults in a child process: they cannot be undone.
func TestMain(m *testing.M) {
	switch os.Getenv("FAULTS_CHILD") {
	case "fdatasync":
		os.Exit(childFdatasync())
	case "fsize":
		os.Exit(childFsize())
	case "offset":
		os.Exit(childOffset())
	}
	os.Exit(m.Run())
}

func childFdatasync() int {
	f, err := os.Create(os.Getenv("FAULTS_FILE"))
	if err != nil || f.Sync() != nil {
		return 2 // before the filter, fsync works
	}
	rules, _ := faults.ParseRules("fdatasync=EIO,fsync=EIO")
	if err := faults.FailSyscalls(rules); err != nil {
		os.Stderr.WriteString(err.Error())
		return 3
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		return 4
	}
	if _, err := f.Write([]byte("still writes")); err != nil {
		return 5
	}
	return 0
}

func childFsize() int {
	if err := faults.LimitFileSize(1000); err != nil {
		return 3
	}
	f, err := os.Create(os.Getenv("FAULTS_FILE"))
	if err != nil {
		return 2
	}
	if _, err := f.Write(make([]byte, 999)); err != nil {
		return 4
	}
	if _, err := f.Write(make([]byte, 10)); !errors.Is(err, syscall.EFBIG) {
		return 5
	}
	return 0
}

// childOffset: pwrite64 fails below offset 8192 only.
func childOffset() int {
	f, err := os.Create(os.Getenv("FAULTS_FILE"))
	if err != nil {
		return 2
	}
	rules, err := faults.ParseRules("pwrite64<8192=EIO,fdatasync=ENOSPC")
	if err != nil || faults.FailSyscalls(rules) != nil {
		return 3
	}
	if _, err := f.WriteAt([]byte("x"), 4096); !errors.Is(err, syscall.EIO) {
		return 4
	}
	if _, err := f.WriteAt([]byte("x"), 8192); err != nil {
		return 5
	}
	if _, err := f.WriteAt([]byte("x"), 1<<33); err != nil { // high word set
		return 6
	}
	if err := syscall.Fdatasync(int(f.Fd())); !errors.Is(err, syscall.ENOSPC) {
		return 7 // the rule after an offset rule still applies
	}
	if _, err := f.Write([]byte("x")); err != nil { // write(2), not pwrite64
		return 8
	}
	return 0
}

func runChild(t *testing.T, mode string) {
	if !faults.Supported() {
		t.Skip("fault injection needs Linux on amd64 or arm64")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FAULTS_CHILD="+mode, "FAULTS_FILE="+filepath.Join(t.TempDir(), "f"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", mode, err, out)
	}
}

func TestFailSyscalls_Fdatasync(t *testing.T) { runChild(t, "fdatasync") }

func TestLimitFileSize(t *testing.T) { runChild(t, "fsize") }

func TestFailSyscalls_Offset(t *testing.T) { runChild(t, "offset") }

func TestParseRules(t *testing.T) {
	r, err := faults.ParseRules("fdatasync=EIO,pwrite64=ENOSPC")
	if err != nil || len(r) != 2 || r[1].Errno != syscall.ENOSPC {
		t.Fatalf("ParseRules = %v, %v", r, err)
	}
	if _, err := faults.ParseRules("fdatasync=EWHAT"); err == nil {
		t.Error("an unknown errno was accepted")
	}
}

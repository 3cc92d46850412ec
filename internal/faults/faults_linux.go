//go:build linux && (amd64 || arm64)

package faults

import (
	"fmt"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LimitFileSize sets this process's RLIMIT_FSIZE to n bytes and ignores
// SIGXFSZ, so that a write or truncate past n bytes fails with EFBIG, as
// on a full disk, instead of killing the process.
func LimitFileSize(n int64) error {
	signal.Ignore(syscall.SIGXFSZ)
	lim := unix.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("faults: setrlimit RLIMIT_FSIZE: %w", err)
	}
	return nil
}

// FailSyscalls installs a seccomp filter on every thread of the process:
// from now on each rule's system call fails with its errno without
// reaching the kernel. Other calls are untouched.
func FailSyscalls(rules []Rule) error {
	prog := []unix.SockFilter{
		{Code: bpfLoad, K: 4}, // seccomp_data.arch
		{Code: bpfJeq, Jt: 1, Jf: 0, K: auditArch},
		{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW}, // another ABI: leave it alone
		{Code: bpfLoad, K: 0},                     // seccomp_data.nr
	}
	for _, r := range rules {
		nr, ok := syscallNumbers[r.Syscall]
		if !ok {
			return fmt.Errorf("faults: unknown system call %q", r.Syscall)
		}
		fail := unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ERRNO | uint32(r.Errno)}
		if r.OffsetBelow == 0 {
			prog = append(prog, unix.SockFilter{Code: bpfJeq, Jt: 0, Jf: 1, K: nr}, fail)
			continue
		}
		// args[3] is at offset 40 of seccomp_data: low word, then high word
		// (little-endian). Fail when high == 0 and low < OffsetBelow; reload
		// the call number after, for the next rule.
		prog = append(prog,
			unix.SockFilter{Code: bpfJeq, Jt: 0, Jf: 7, K: nr},
			unix.SockFilter{Code: bpfLoad, K: 44},
			unix.SockFilter{Code: bpfJeq, Jt: 0, Jf: 2, K: 0},
			unix.SockFilter{Code: bpfLoad, K: 40},
			unix.SockFilter{Code: bpfJge, Jt: 0, Jf: 2, K: r.OffsetBelow},
			unix.SockFilter{Code: bpfLoad, K: 0},
			unix.SockFilter{Code: bpfJa, K: 1},
			fail,
		)
	}
	prog = append(prog, unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW})
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("faults: prctl no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("faults: seccomp: %w", errno)
	}
	return nil
}

// Classic BPF opcodes.
const (
	bpfLoad = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJa   = unix.BPF_JMP | unix.BPF_JA
)

var syscallNumbers = map[string]uint32{
	"fdatasync": unix.SYS_FDATASYNC,
	"fsync":     unix.SYS_FSYNC,
	"pwrite64":  unix.SYS_PWRITE64,
	"ftruncate": unix.SYS_FTRUNCATE,
	"fallocate": unix.SYS_FALLOCATE,
}

// Supported reports whether faults can be injected on this platform.
func Supported() bool { return true }

// Package faults injects I/O faults into the current process, for the
// tests that check what the engine does when the disk fails. bbolt does
// its own file I/O through *os.File, so the faults are made at the process
// level: a file-size limit (RLIMIT_FSIZE) stands in for a full disk, and a
// seccomp filter makes chosen system calls (fdatasync, pwrite64, …) fail
// with a chosen errno. Both are meant for a child process that a test
// starts for the purpose: they cannot be undone.
package faults

package faults

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// errnos are the errors a rule may inject, by name.
var errnos = map[string]syscall.Errno{
	"EIO":    syscall.EIO,
	"ENOSPC": syscall.ENOSPC,
	"EFBIG":  syscall.EFBIG,
	"EDQUOT": syscall.EDQUOT,
	"EROFS":  syscall.EROFS,
}

// Rule makes calls of one system call fail with Errno: every call, or with
// OffsetBelow, only those whose file offset (the fourth argument, as of
// pwrite64) is below it. bbolt writes its two meta pages at offsets 0 and
// one page size, so pwrite64 below two pages fails exactly the meta page
// write that completes a commit.
type Rule struct {
	Syscall     string // "fdatasync", "fsync", "pwrite64", "ftruncate", "fallocate"
	Errno       syscall.Errno
	OffsetBelow uint32 // 0: every call
}

// ParseRules parses a comma-separated list of syscall=ERRNO or
// syscall<OFFSET=ERRNO, such as "fdatasync=EIO,fsync=EIO" or
// "pwrite64<8192=EIO".
func ParseRules(s string) ([]Rule, error) {
	var rules []Rule
	for _, part := range strings.Split(s, ",") {
		name, errno, ok := strings.Cut(strings.TrimSpace(part), "=")
		e, known := errnos[errno]
		if !ok || !known {
			return nil, fmt.Errorf("faults: bad rule %q (want syscall=ERRNO, ERRNO one of %s)", part, strings.Join(errnoNames(), ", "))
		}
		r := Rule{Syscall: name, Errno: e}
		if n, below, ok := strings.Cut(name, "<"); ok {
			off, err := strconv.ParseUint(below, 10, 32)
			if err != nil || off == 0 {
				return nil, fmt.Errorf("faults: bad offset in rule %q", part)
			}
			r.Syscall, r.OffsetBelow = n, uint32(off)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func errnoNames() []string {
	var names []string
	for n := range errnos {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

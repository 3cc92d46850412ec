//go:build linux

package faults

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

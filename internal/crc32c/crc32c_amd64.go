package crc32c

import "golang.org/x/sys/cpu"

// forceGeneric makes update use the standard library even when the CPU
// has the instructions, so that tests cover the fallback.
var forceGeneric bool

// update reads the CPU features at each call rather than caching them in
// a package variable, which would be work at process start; the loads
// cost less than a nanosecond.
func update(crc uint32, p []byte) uint32 {
	if !cpu.X86.HasSSE42 || !cpu.X86.HasPCLMULQDQ || forceGeneric {
		return generic(crc, p)
	}
	return ^castagnoli(^crc, p)
}

// castagnoli updates the non-inverted crc with p: three interleaved lanes
// joined with PCLMULQDQ while 48 bytes or more are left, then one lane.
// It is in crc32c_amd64.s.
//
//go:noescape
func castagnoli(crc uint32, p []byte) uint32

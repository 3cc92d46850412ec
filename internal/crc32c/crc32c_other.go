//go:build !amd64

package crc32c

// forceGeneric has no effect: every architecture but amd64 uses the
// standard library.
var forceGeneric bool

func update(crc uint32, p []byte) uint32 {
	return generic(crc, p)
}

package crc32c

import "hash/crc32"

// Size is the size of a CRC-32C checksum in bytes.
const Size = 4

// Checksum returns the CRC-32C (Castagnoli) checksum of p.
func Checksum(p []byte) uint32 {
	return Update(0, p)
}

// Update returns the result of adding the bytes in p to crc, a checksum
// returned by Checksum or Update: Update(Checksum(a), b) equals
// Checksum(append(a, b...)).
func Update(crc uint32, p []byte) uint32 {
	return update(crc, p)
}

// generic is the standard library's CRC-32C, for CPUs without the
// instructions the fast path needs. Its first call builds the standard
// library's tables.
func generic(crc uint32, p []byte) uint32 {
	return crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p)
}

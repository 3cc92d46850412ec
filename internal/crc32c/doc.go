// Package crc32c computes the CRC-32C (Castagnoli) checksum that guards
// every stored value, with results identical to the standard library's
// crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)) for every input.
//
// The standard library runs the SSE4.2 CRC32 instruction three lanes wide
// only on buffers of 504 bytes and more; below that it runs one dependent
// chain, a third of the instruction's throughput. Stored documents are
// mostly 200-500 bytes. On amd64 with SSE4.2 and PCLMULQDQ this package
// splits any buffer of 48 bytes or more into three equal lanes, checksums
// them together and joins the three results with carry-less multiplies,
// as in Intel's "Fast CRC Computation for iSCSI Polynomial Using CRC32
// Instruction" (Gopal et al., 2011). The multipliers, one pair per lane
// length, are literal constants (shifts_amd64.go, generated and checked by
// a test), so the package does no work at process start.
//
// It pays for itself in a command a user runs: `omgdb export` of the
// benchmark's 1,000,000 documents took 134.9 ms with this package and
// 150.5 ms with the standard library's CRC-32C (hyperfine, 30 runs each of
// two builds that differ only in the checksum; docs/benchmarks.md).
//
// From about 500 bytes both this package and the standard library run
// three lanes and are bound by the CRC32 instruction's throughput (one
// quadword a cycle), so they take the same time; the gain is on shorter
// buffers. On other CPUs and architectures the package calls the standard
// library.
package crc32c

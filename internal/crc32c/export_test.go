package crc32c

// ForceGeneric points at the switch to the standard library's CRC-32C,
// so that tests cover the fallback on any CPU.
var ForceGeneric = &forceGeneric

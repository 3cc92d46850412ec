// Package leakcheck is a test helper: it runs a piece of work many times
// and fails the test if open file descriptors or goroutines grew.
package leakcheck

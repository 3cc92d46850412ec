package store

// SetParallelScanMin lowers the size from which counts and $group
// scans run on several goroutines, for tests; the returned function restores it.
func SetParallelScanMin(n int64) (restore func()) {
	old := parallelScanMin
	parallelScanMin = n
	return func() { parallelScanMin = old }
}

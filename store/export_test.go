package store

// SetParallelCountMin lowers the size from which counts run on two
// goroutines, for tests; the returned function restores it.
func SetParallelCountMin(n int64) (restore func()) {
	old := parallelCountMin
	parallelCountMin = n
	return func() { parallelCountMin = old }
}

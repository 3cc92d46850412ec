//go:build race

package store_test

// raceEnabled: the race detector slows tests about tenfold; property tests
// run smaller under it.
const raceEnabled = true

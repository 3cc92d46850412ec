//go:build race

package query_test

// raceEnabled: the race detector slows evaluation several times over.
const raceEnabled = true

//go:build race

package vector

// raceEnabled is set when tests run with the race detector, which makes
// the quality measurement several times slower: it then runs fewer queries.
const raceEnabled = true

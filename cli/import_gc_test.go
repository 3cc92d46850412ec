package cli

import (
	"runtime/debug"
	"testing"
)

// gcPercent returns the current GOGC percentage.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestImportGC: an import in batches raises GOGC by as much as its batches
// are small, leaves it alone for --atomic and when GOGC is set, and
// restores it.
func TestImportGC(t *testing.T) {
	before := gcPercent()
	for _, tc := range []struct {
		opts   importOptions
		gogc   string
		during int
	}{
		{importOptions{batch: 10000}, "", 400},
		{importOptions{batch: 1000}, "", 400},
		{importOptions{batch: 20000}, "", 200},
		{importOptions{batch: 40000}, "", 100},
		{importOptions{batch: 1000000}, "", 100},
		{importOptions{batch: 10000, atomic: true}, "", before},
		{importOptions{batch: 10000}, "50", before},
	} {
		t.Setenv("GOGC", tc.gogc)
		restore := importGC(&tc.opts)
		if got := gcPercent(); got != tc.during {
			t.Errorf("batch %d, atomic %v, GOGC=%q: GOGC %d during the import, want %d", tc.opts.batch, tc.opts.atomic, tc.gogc, got, tc.during)
		}
		restore()
		if got := gcPercent(); got != before {
			t.Errorf("GOGC %d after the import, want %d back", got, before)
		}
	}
}

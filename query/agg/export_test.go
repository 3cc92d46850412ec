package agg

import (
	"github.com/omgdb/omgdb/query/value"
)

// GroupScanDirect reports whether Extract reads g's key and arguments
// straight from the stored JSON (GroupScan.direct).
func GroupScanDirect(g *GroupScan) bool { return !g.direct.Empty() }

// PathValues runs the direct walk of g over doc, returning the values of
// its key and arguments in slot order, and whether the walk took doc.
func PathValues(g *GroupScan, doc []byte) ([]value.Value, bool) {
	return value.NewDecoder(false).ReadSlots(doc, &g.direct)
}

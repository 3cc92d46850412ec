package query

// Exported for the tests of the stored-JSON walk (filter_raw.go).
var (
	SkipCanonical = skipCanonical
	ShortNumber   = func(data []byte) (Value, int) {
		bits, kind, next := shortNumber(data, 0)
		return Value{kind: kind, num: bits}, next
	}
)

// GroupScanDirect reports whether Extract reads g's key and arguments
// straight from the stored JSON (GroupScan.direct).
func GroupScanDirect(g *GroupScan) bool { return g.direct != nil }

// PathValues runs the direct walk of g over doc, returning the values of
// its key and arguments in slot order, and whether the walk took doc.
func PathValues(g *GroupScan, doc []byte) ([]Value, bool) {
	var d rawDecoder
	d.p.keys = map[string]string{}
	slots := make([]Value, g.nslots)
	ok := d.pathValues(doc, g.direct, slots)
	return slots, ok
}

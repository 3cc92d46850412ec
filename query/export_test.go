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
func GroupScanDirect(g *GroupScan) bool { return g.direct.root != nil }

// PathValues runs the direct walk of g over doc, returning the values of
// its key and arguments in slot order, and whether the walk took doc.
func PathValues(g *GroupScan, doc []byte) ([]Value, bool) {
	var d rawDecoder
	d.p.keys = map[string]string{}
	ok := d.pathValues(doc, g.direct.root, d.slotsFor(g.direct.n))
	return d.slots, ok
}

// FilterDirect reports whether MatchJSON reads f's fields straight from
// the stored JSON (Filter.direct).
func FilterDirect(f *Filter) bool { return f.direct.root != nil }

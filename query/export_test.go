package query

// FilterDirect reports whether MatchJSON reads f's fields straight from
// the stored JSON (Filter.direct).
func FilterDirect(f *Filter) bool { return !f.direct.Empty() }

package vector

import "github.com/omgdb/omgdb/store"

// The postings, document frequencies, field lengths and statistics of a
// search index are kept through the store (store.TextIndex), which owns
// their layout in the file. This package decides what goes in them: the
// analyzed terms of each indexed field, and _all for an index over
// several fields.

// termRef names a term of a field, as a map key: field, 0, term.
func termRef(field, term string) string { return field + "\x00" + term }

// newStats returns zero statistics for n fields.
func newStats(n int) []store.FieldStats { return make([]store.FieldStats, n) }

package changes

import "github.com/omgdb/omgdb/query/value"

// EngineDiff is a diff between two revisions of an engine whose
// revisions are not journal lsns (a MongoDB deployment's, R being
// engine.Revision): the same keys and documents as DiffResult.
type EngineDiff[R any] struct {
	From      R         `json:"from"`
	To        R         `json:"to"`
	Inserted  int       `json:"inserted"`
	Deleted   int       `json:"deleted"`
	Updated   int       `json:"updated"`
	Documents []DocDiff `json:"documents"`
}

// Add adds a document whose state differs between the two revisions
// (Missing: absent there), with its field-level diff when updated, as
// Diff gives it for a store file.
func (r *EngineDiff[R]) Add(coll string, id, before, after value.Value) {
	if r.Documents == nil {
		r.Documents = []DocDiff{}
	}
	dd, ok := docDiff(&docState{coll: coll, id: id, state: before}, after)
	if !ok {
		return
	}
	Tally(dd.Change, &r.Inserted, &r.Deleted, &r.Updated)
	r.Documents = append(r.Documents, dd)
}

// Tally counts a document's change in a diff's counts.
func Tally(change string, inserted, deleted, updated *int) {
	switch change {
	case Inserted:
		*inserted++
	case Deleted:
		*deleted++
	default:
		*updated++
	}
}

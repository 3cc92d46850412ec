package changes

import (
	"context"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Document changes in a diff.
const (
	Inserted = "inserted"
	Deleted  = "deleted"
	Updated  = "updated"
)

// DiffResult is the difference between two revisions.
type DiffResult struct {
	From      Revision  `json:"from"`
	To        Revision  `json:"to"`
	Inserted  int       `json:"inserted"`
	Deleted   int       `json:"deleted"`
	Updated   int       `json:"updated"`
	Documents []DocDiff `json:"documents"`
}

// DocDiff is one document that differs between two revisions.
type DocDiff struct {
	Collection string      `json:"collection"`
	ID         Doc         `json:"_id"`
	Change     string      `json:"change"` // inserted, deleted or updated
	Before     Doc         `json:"before"` // at the first revision; null when inserted
	After      Doc         `json:"after"`  // at the second; null when deleted
	Fields     []FieldDiff `json:"fields,omitempty"`
}

// DiffOptions configures Diff. The zero value compares every collection.
type DiffOptions struct {
	Coll string // only this collection
}

// Diff compares two revisions (to defaults to now): for each document
// that differs, its state at both ends, and for an updated one the
// field-level differences. Documents touched in between but back to the
// same bytes are left out. It reads the journal after from and only the
// documents it names.
func Diff(ctx context.Context, db *store.DB, from, to string, opts *DiffOptions) (*DiffResult, error) {
	if opts == nil {
		opts = &DiffOptions{}
	}
	res := &DiffResult{Documents: []DocDiff{}}
	err := db.View(func(tx *store.Tx) error {
		var err error
		if res.From, err = ResolveRevision(tx, from); err != nil {
			return err
		}
		if res.To, err = ResolveRevision(tx, to); err != nil {
			return err
		}
		if res.From.LSN > res.To.LSN {
			return errs.Errorf(errs.Usage, "revision %s (lsn %d) is after revision %s (lsn %d)", from, res.From.LSN, to, res.To.LSN).
				WithHint("give the older revision first: omgdb diff <store> <from> <to>")
		}
		return diff(ctx, tx, res, opts.Coll)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func diff(ctx context.Context, tx *store.Tx, res *DiffResult, coll string) error {
	atFrom := &undoSet{docs: map[string]*docState{}, colls: map[string]bool{}}
	atTo := &undoSet{docs: map[string]*docState{}, colls: map[string]bool{}}
	err := tx.JournalReverse(res.From.LSN, func(r *store.Record) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		for i := len(r.Ops) - 1; i >= 0; i-- {
			op := &r.Ops[i]
			if coll != "" && op.Coll != coll {
				continue
			}
			atFrom.undo(op)
			if r.LSN > res.To.LSN {
				atTo.undo(op)
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, d := range atFrom.sorted() {
		after := value.Value{}
		if t := atTo.docs[d.key]; t != nil {
			after = t.state
		} else if _, after, err = current(tx, d.coll, d.id); err != nil {
			return err
		}
		if dd, ok := docDiff(d, after); ok {
			res.add(dd)
		}
	}
	return nil
}

func docDiff(d *docState, after value.Value) (DocDiff, bool) {
	if sameState(d.state, after) {
		return DocDiff{}, false
	}
	dd := DocDiff{Collection: d.coll, ID: Doc{d.id}, Before: Doc{d.state}, After: Doc{after}, Change: Updated}
	switch {
	case d.state.IsMissing():
		dd.Change = Inserted
	case after.IsMissing():
		dd.Change = Deleted
	default:
		dd.Fields = FieldDiffs(d.state, after)
	}
	return dd, true
}

func (r *DiffResult) add(dd DocDiff) {
	Tally(dd.Change, &r.Inserted, &r.Deleted, &r.Updated)
	r.Documents = append(r.Documents, dd)
}

// Field changes in a FieldDiff.
const (
	FieldAdded   = "added"
	FieldRemoved = "removed"
	FieldChanged = "changed"
)

// FieldDiff is one field that differs between two versions of a document.
type FieldDiff struct {
	Path   string `json:"path"` // dotted
	Op     string `json:"op"`   // added, removed or changed
	Before *Doc   `json:"before,omitempty"`
	After  *Doc   `json:"after,omitempty"`
}

// FieldDiffs returns the fields that differ between two documents:
// objects are compared field by field, recursively; any other value
// (arrays included) is compared as a whole, by its canonical bytes.
func FieldDiffs(before, after value.Value) []FieldDiff {
	return appendFieldDiffs(nil, "", before, after)
}

func appendFieldDiffs(out []FieldDiff, prefix string, a, b value.Value) []FieldDiff {
	for _, f := range a.Fields() {
		path := joinPath(prefix, f.Key)
		bv := b.Get(f.Key)
		switch {
		case bv.IsMissing():
			out = append(out, FieldDiff{Path: path, Op: FieldRemoved, Before: &Doc{f.Value}})
		case f.Value.Kind() == value.Object && bv.Kind() == value.Object:
			out = appendFieldDiffs(out, path, f.Value, bv)
		case !sameState(f.Value, bv):
			out = append(out, FieldDiff{Path: path, Op: FieldChanged, Before: &Doc{f.Value}, After: &Doc{bv}})
		}
	}
	for _, f := range b.Fields() {
		if a.Get(f.Key).IsMissing() {
			out = append(out, FieldDiff{Path: joinPath(prefix, f.Key), Op: FieldAdded, After: &Doc{f.Value}})
		}
	}
	return out
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

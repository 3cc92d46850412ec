package mongoengine

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/value"
)

// VerifyReport is what Verify found, in the shape of a store file's
// verify report.
type VerifyReport struct {
	Path           string   `json:"path"` // the deployment, credentials hidden
	Collections    int      `json:"collections"`
	Documents      int64    `json:"documents"`
	JournalRecords int64    `json:"journal_records"` // changes in omgdb.changes
	Problems       []string `json:"problems"`
	OK             bool     `json:"ok"`
}

// Verify checks omgdb's own collections and runs the server's validate
// on every collection, changing nothing. Problems: a change stuck
// applying (an interrupted write), an applied change whose items do not
// account for its counts, a drop whose aside collection is gone (it can
// no longer be rolled back), and a collection the server's validate
// finds invalid. The file format's checks (pages, checksums, replay)
// have no counterpart: the server keeps its own storage.
func (d *DB) Verify(ctx context.Context) (*VerifyReport, error) {
	rep := &VerifyReport{Path: d.target.Redacted, Problems: []string{}}
	names, err := d.Collections(ctx)
	if err != nil {
		return nil, err
	}
	rep.Collections = len(names)
	for _, n := range names {
		count, err := d.db.Collection(n).CountDocuments(ctx, bson.D{})
		if err != nil {
			return nil, wrapErr(d.target, "count the documents of", err)
		}
		rep.Documents += count
		if p, err := d.validate(ctx, n); err != nil {
			return nil, err
		} else if p != "" {
			rep.Problems = append(rep.Problems, p)
		}
	}
	if err := d.verifyJournal(ctx, rep); err != nil {
		return nil, err
	}
	rep.OK = len(rep.Problems) == 0
	return rep, nil
}

// validate runs the server's validate command on coll and returns its
// complaint, or "" when the server finds it valid.
func (d *DB) validate(ctx context.Context, coll string) (string, error) {
	raw, err := d.db.RunCommand(ctx, bson.D{{Key: "validate", Value: coll}}).Raw()
	if err != nil {
		return "", wrapErr(d.target, "validate a collection of", err)
	}
	v, err := fromDoc(raw)
	if err != nil {
		return "", err
	}
	if valid := v.Get("valid"); valid.IsMissing() || truthy(valid) {
		return "", nil
	}
	return fmt.Sprintf("collection `%s`: the server's validate finds it invalid: %s", coll, value.AppendJSON(nil, v.Get("errors"))), nil
}

// verifyJournal checks every change of omgdb.changes.
func (d *DB) verifyJournal(ctx context.Context, rep *VerifyReport) error {
	cur, err := d.db.Collection(ChangesColl).Find(ctx, bson.D{})
	if err != nil {
		return wrapErr(d.target, "read the journal from", err)
	}
	var changes []value.Value
	if err := d.drain(ctx, cur, func(v value.Value) error {
		changes = append(changes, v)
		return nil
	}); err != nil {
		return err
	}
	rep.JournalRecords = int64(len(changes))
	for _, v := range changes {
		p, err := d.verifyChange(ctx, v)
		if err != nil {
			return err
		}
		if p != "" {
			rep.Problems = append(rep.Problems, p)
		}
	}
	return nil
}

// verifyChange returns what is wrong with one change, or "".
func (d *DB) verifyChange(ctx context.Context, v value.Value) (string, error) {
	ch := changeOf(v)
	what := fmt.Sprintf("change %s (%s of `%s`)", ch.ID, ch.Kind, ch.Collection)
	if ch.Status != StatusApplied {
		hint := "compare its documents with its items (omgdb.plan_items) and its pending _ids"
		switch {
		case !v.Get("ops").IsMissing():
			hint = "`omgdb rollback` undoes the steps it carried out"
		case ch.Kind == "apply": // resume.go
			hint = "`omgdb apply --resume` finishes it, or `omgdb rollback` undoes what it wrote"
		}
		return fmt.Sprintf("%s is %s: it was interrupted; %s", what, ch.Status, hint), nil
	}
	if !v.Get("ops").IsMissing() {
		if ch.Kind != KindDrop || ch.RolledBackBy != "" {
			return "", nil
		}
		aside := v.Get("aside").Str()
		has, err := d.HasCollection(ctx, aside)
		if err != nil || has {
			return "", err
		}
		return fmt.Sprintf("%s: the dropped collection kept for rollback (`%s`) is gone: the drop cannot be rolled back", what, aside), nil
	}
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	n, err := d.db.Collection(PlanItemsColl).CountDocuments(ctx, bson.D{{Key: "plan", Value: tok}, {Key: "state", Value: StatusApplied}})
	if err != nil {
		return "", wrapErr(d.target, "read the plan items from", err)
	}
	if want := ch.Inserted + ch.Updated + ch.Deleted; n != want {
		return fmt.Sprintf("%s: %d document(s) written but %d item(s) marked applied: its rollback would not undo it exactly", what, want, n), nil
	}
	return "", nil
}

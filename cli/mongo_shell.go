package cli

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/shell"
)

// mongoShellWriter is the shell's writer over MongoDB (shell.Writer):
// the CLI's insert, update, replace and delete, each one journaled
// change by actor "shell".
type mongoShellWriter struct {
	db   *mongoengine.DB
	path string // the store as given, for hints
}

// Insert inserts docs as `omgdb insert` does: all or none.
func (w mongoShellWriter) Insert(ctx context.Context, coll string, docs []value.Value) ([]value.Value, string, error) {
	for i, d := range docs {
		d, err := value.PrepareDocument(d)
		if err != nil {
			return nil, "", err
		}
		docs[i] = d
	}
	return insertChange(ctx, w.db, coll, "shell", w.path, docs)
}

// insertChange inserts docs into coll as one change of kind insert by
// actor, all or none: a document that breaks the collection's rules
// stops it before anything is sent; when the server refuses a document, the documents
// written before it are rolled back, and the error says so (path names
// the store in its hint).
func insertChange(ctx context.Context, db *mongoengine.DB, coll, actor, path string, docs []value.Value) ([]value.Value, string, error) {
	docs = mongoengine.WithIDs(docs)
	if err := checkRules(ctx, db, coll, docs, nil); err != nil {
		return nil, "", err // as a store file's one transaction: nothing sent
	}
	ins, err := db.NewInserter(coll, mongoengine.KindInsert, actor)
	if err != nil {
		return nil, "", err
	}
	ids, werr := insertAll(ctx, ins, docs)
	res, err := ins.Close(context.WithoutCancel(ctx))
	if werr != nil {
		return nil, "", undoInsert(db, werr, res, path)
	}
	if err != nil {
		return nil, "", err
	}
	return ids, res.ChangeID, nil
}

// Update plans the update (or replacement) and applies it at once.
func (w mongoShellWriter) Update(ctx context.Context, coll string, filter, update value.Value, u *shell.WriteSpec) (*shell.WriteResult, error) {
	kind := changes.KindUpdate
	if u.Replace {
		kind = changes.KindReplace
	}
	spec := &mongoengine.PlanSpec{Collection: coll, Filter: filter, Update: update, ArrayFilters: u.ArrayFilters,
		Upsert: u.Upsert, First: u.One, Actor: "shell"}
	var err error
	if spec.Compiled, err = changes.CompileUpdate(update, &query.UpdateOptions{ArrayFilters: u.ArrayFilters}); err != nil {
		return nil, err
	}
	if err := changes.CheckUpdateKind(kind, update, spec.Compiled); err != nil {
		return nil, err
	}
	p, err := w.db.PlanUpdate(ctx, spec)
	if err != nil {
		return nil, err
	}
	return w.apply(ctx, kind, p)
}

// Delete plans the deletion and applies it at once.
func (w mongoShellWriter) Delete(ctx context.Context, coll string, filter value.Value, one bool) (*shell.WriteResult, error) {
	p, err := w.db.PlanDelete(ctx, &mongoengine.PlanSpec{Collection: coll, Filter: filter, First: one, Actor: "shell"})
	if err != nil {
		return nil, err
	}
	return w.apply(ctx, changes.KindDelete, p)
}

// apply applies p at once; documents that conflicted are an error.
func (w mongoShellWriter) apply(ctx context.Context, kind string, p *mongoengine.Plan) (*shell.WriteResult, error) {
	out, res, err := applyNow(ctx, w.db, kind, p, "shell")
	if err != nil {
		return nil, err
	}
	r := &shell.WriteResult{Matched: out.Matched, Modified: out.Modified, Upserted: out.Upserted, Deleted: out.Deleted, ChangeID: out.ChangeID}
	if out.UpsertedID != nil {
		r.UpsertedID = out.UpsertedID.Value
	}
	if res != nil && res.Written() > 0 && len(p.Items) > 0 {
		r.Before, r.After = p.Items[0].Before, p.Items[0].After
	}
	if res != nil {
		return r, conflictError(res, kind)
	}
	return r, nil
}

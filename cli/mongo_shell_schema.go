package cli

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/shell"
	"github.com/omgdb/omgdb/store"
)

// The shell's db.createCollection, drop, renameCollection, createIndex,
// createIndexes, dropIndex and dropIndexes over MongoDB
// (shell.SchemaWriter): the CLI's drop, rename, create-index and
// drop-index, each one journaled change by actor "shell".

var _ shell.SchemaWriter = mongoShellWriter{}

func (w mongoShellWriter) Drop(ctx context.Context, coll string) (string, error) {
	res, err := w.db.Drop(ctx, coll, "shell")
	if err != nil {
		return "", err
	}
	return res.ChangeID, nil
}

func (w mongoShellWriter) Rename(ctx context.Context, from, to string, dropTarget bool) (string, error) {
	res, err := w.db.Rename(ctx, from, to, dropTarget, "shell")
	if err != nil {
		return "", err
	}
	return res.ChangeID, nil
}

func (w mongoShellWriter) CreateIndexes(ctx context.Context, coll string, defs []store.IndexDef) (string, error) {
	specs := make([]value.Value, len(defs))
	for i, def := range defs {
		var err error
		if specs[i], err = indexToMongo(coll, def); err != nil {
			return "", err
		}
	}
	res, err := w.db.CreateIndexes(ctx, coll, specs, "shell")
	if err != nil {
		return "", err
	}
	return res.ChangeID, nil
}

func (w mongoShellWriter) DropIndex(ctx context.Context, coll, name string, fields []store.IndexField) (string, string, error) {
	res, err := w.db.DropIndex(ctx, coll, name, keyOf(coll, fields), "shell")
	if err != nil {
		return "", "", err
	}
	return res.IndexNames[0], res.ChangeID, nil
}

func (w mongoShellWriter) CreateCollection(ctx context.Context, coll string) (string, error) {
	res, err := w.db.Create(ctx, coll, "shell")
	if err != nil {
		return "", err
	}
	return res.ChangeID, nil
}

func (w mongoShellWriter) DropIndexes(ctx context.Context, coll string, names []string) (int, string, error) {
	res, was, err := w.db.DropIndexes(ctx, coll, names, "shell")
	if err != nil {
		return 0, "", err
	}
	return was, res.ChangeID, nil
}

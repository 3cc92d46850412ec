package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Collections and indexes over MongoDB: drop, rename, create-index and
// drop-index, each one journaled change in omgdb.changes that rollback
// undoes (mongoengine's schema changes). The output is the store file's,
// without its lsn.

// mongoCollectionResult is what drop and rename print over MongoDB: the
// file's changes.CollectionResult without lsn.
type mongoCollectionResult struct {
	ChangeID         string   `json:"change_id"`
	Kind             string   `json:"kind"`
	Collection       string   `json:"collection"`
	RenamedTo        string   `json:"renamed_to,omitempty"`
	Documents        int64    `json:"documents"`
	Indexes          int      `json:"indexes"`
	DroppedTarget    *int64   `json:"dropped_target,omitempty"`
	NextValidActions []string `json:"next_valid_actions"`
}

func collectionOutput(res *mongoengine.SchemaResult) *mongoCollectionResult {
	return &mongoCollectionResult{ChangeID: res.ChangeID, Kind: res.Kind, Collection: res.Collection, RenamedTo: res.RenamedTo,
		Documents: res.Documents, Indexes: res.Indexes, DroppedTarget: res.DroppedTarget,
		NextValidActions: []string{changes.ActionRollback}}
}

// mongoDrop drops a collection on the deployment, keeping it aside for
// rollback.
func (e *env) mongoDrop(ctx context.Context, opts *dropOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, err := db.Drop(ctx, opts.coll, "cli")
		if err != nil {
			return err
		}
		return e.printJSON(collectionOutput(res), opts.pretty)
	})
}

// mongoRename renames a collection on the deployment.
func (e *env) mongoRename(ctx context.Context, opts *renameOptions) error {
	if err := store.ValidateCollectionName(opts.to); err != nil {
		return err // the file's rule, and its message
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, err := db.Rename(ctx, opts.from, opts.to, opts.dropTarget, "cli")
		if err != nil {
			return err
		}
		return e.printJSON(collectionOutput(res), opts.pretty)
	})
}

// mongoCreateIndex creates indexes on the deployment from the same
// definitions a store file would get (names, kinds and options), in one
// change. A --collation is checked by omgdb's parser, then sent as the
// index's collation.
func (e *env) mongoCreateIndex(ctx context.Context, opts *createIndexOptions, text *store.IndexDef) error {
	collDoc, coll, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	var defs []store.IndexDef
	var printed []string
	if text != nil {
		defs = []store.IndexDef{*text}
	} else {
		for _, pattern := range opts.fields {
			fields, err := store.ParseKeyPattern(pattern)
			if err != nil {
				return err
			}
			spec := store.BTreeSpec{Fields: fields, Unique: opts.unique, Sparse: opts.sparse}
			if !collDoc.IsMissing() {
				spec.SetCollation(coll)
			}
			defs = append(defs, store.BTreeIndex(opts.name, spec))
			if strings.HasPrefix(strings.TrimSpace(pattern), "{") {
				pattern = store.FormatKeyPattern(fields)
			}
			printed = append(printed, pattern)
		}
	}
	specs := make([]value.Value, len(defs))
	for i, def := range defs {
		var err error
		if specs[i], err = indexToMongo(opts.coll, def); err != nil {
			return err
		}
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		if _, err := db.CreateIndexes(ctx, opts.coll, specs, "cli"); err != nil {
			return err
		}
		if text != nil {
			_, err := fmt.Fprintf(e.stdout, "created text index `%s` on `%s`\n", text.Name, opts.coll)
			return err
		}
		for _, p := range printed {
			if _, err := fmt.Fprintf(e.stdout, "created index on `%s.%s`\n", opts.coll, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// mongoDropIndex drops an index on the deployment, named by its name or
// by its fields as create-index takes them.
func (e *env) mongoDropIndex(ctx context.Context, opts *dropIndexOptions) error {
	fields, _ := store.ParseKeyPattern(opts.name)
	key := keyOf(opts.coll, fields)
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		res, err := db.DropIndex(ctx, opts.coll, opts.name, key, "cli")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "dropped index `%s` on `%s`\n", res.IndexNames[0], opts.coll)
		return err
	})
}

// schemaRollback says what the rollback of a schema change undid: it
// wrote no document, and can itself be rolled back.
func schemaRollback(out *mongoApplyResult, res *mongoengine.RollbackResult) {
	if res.Undid != "" {
		out.Message = "undid " + res.Undid
		out.NextValidActions = []string{changes.ActionRollback}
	}
}

// mongoVerify checks omgdb's collections on the deployment and runs the
// server's validate on each collection (mongoengine's Verify), printed
// as verify prints a store file's report.
func (e *env) mongoVerify(ctx context.Context, opts *verifyOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		rep, err := db.Verify(ctx)
		if err != nil {
			return err
		}
		if !e.printVerify((*store.VerifyReport)(rep), opts.json) {
			return errs.Errorf(errs.IO, "%s failed verification with %d problem(s)", rep.Path, len(rep.Problems)).
				WithHint("each problem names the change or collection and what to do; the server's own checks are `validate` (mongosh db.coll.validate())")
		}
		return nil
	})
}

// fileOnly is the refusal of a command about the store file's format
// (compact, backup, salvage) given a MongoDB store: the hint names the
// MongoDB tool that does it.
func fileOnly(command, store string) error {
	if !isMongo(store) {
		return nil
	}
	hints := map[string]string{
		"compact": "MongoDB reclaims space itself; to rewrite a collection's storage run the server's `compact` command (mongosh: db.runCommand({compact: \"<collection>\"})); to drop omgdb's old journal there, give --history-before <revision> --yes",
		"backup":  "back up a deployment with `mongodump` (or Atlas backups, or a filesystem snapshot of a replica set member), or copy it into a store file with `omgdb copy <uri> backup.omgdb`",
		"salvage": "a deployment repairs itself from its replica set members; on a standalone server run `mongod --repair` (see MongoDB's manual), then `omgdb verify` it",
	}
	return usage("`omgdb %s` works on a store file's format and does not run over MongoDB", command).
		WithHint("%s", hints[command])
}

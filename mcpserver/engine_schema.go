package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/store"
)

// Collections and indexes over an engine: create_collection,
// create_index and rename_collection at read-write scope (Config.Writer
// implements EngineSchemaWriter), drop_collection and drop_index at
// dangerous scope (Config.Writer also implements EngineDangerousWriter,
// which the CLI hands only to a dangerous-scope server: a read-write
// server's writer has no drop method). Each is one journaled change that
// rollback undoes; the arguments, policy checks and results are the
// store file's tools'.

// EngineSchemaWriter creates and renames collections and creates
// indexes, each one journaled change.
type EngineSchemaWriter interface {
	CreateCollection(ctx context.Context, coll, actor string) (changeID string, err error)
	// CreateIndex creates the index def (a B-tree index, as a store file
	// defines it) and returns its name.
	CreateIndex(ctx context.Context, coll string, def store.IndexDef, actor string) (name, changeID string, err error)
	RenameCollection(ctx context.Context, from, to, actor string) (*EngineCollectionResult, error)
}

// EngineDangerousWriter drops collections and indexes, each one
// journaled change that rollback undoes.
type EngineDangerousWriter interface {
	DropCollection(ctx context.Context, coll, actor string) (*EngineCollectionResult, error)
	// DropIndex drops the index named name, or else the one whose key is
	// fields (nil when name is not a key pattern), and returns its name.
	DropIndex(ctx context.Context, coll, name string, fields []store.IndexField, actor string) (dropped, changeID string, err error)
}

// EngineCollectionResult is what a drop or rename did.
type EngineCollectionResult struct {
	ChangeID  string
	Documents int64
	Indexes   int
}

func init() {
	engineWriteRuns["create_collection"] = runCreateCollectionEngine
	engineWriteRuns["create_index"] = runCreateIndexEngine
	engineWriteRuns["rename_collection"] = runRenameCollectionEngine
	engineWriteRuns["drop_collection"] = runDropCollectionEngine
	engineWriteRuns["drop_index"] = runDropIndexEngine
}

// schemaWriter is the server's EngineSchemaWriter.
func (c *call) schemaWriter() (EngineSchemaWriter, error) {
	if w, ok := c.srv.cfg.Writer.(EngineSchemaWriter); ok {
		return w, nil
	}
	return nil, c.srv.notOnEngine(c.tool.Name)
}

// dangerousWriter is the server's EngineDangerousWriter: a server
// handed none (read-write scope) cannot drop, whatever the catalog says.
func (c *call) dangerousWriter() (EngineDangerousWriter, error) {
	if w, ok := c.srv.cfg.Writer.(EngineDangerousWriter); ok && c.srv.cfg.Scope >= ScopeDangerous {
		return w, nil
	}
	return nil, errorf(CodeScopeDenied, "tool `%s` needs --scope dangerous", c.tool.Name).
		withHint("ask the user to run it, or to serve with --scope dangerous").withContext("tool", c.tool.Name)
}

func runCreateCollectionEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	if err := store.ValidateCollectionName(coll); err != nil {
		return nil, argError(err, "collection")
	}
	w, err := c.schemaWriter()
	if err != nil {
		return nil, err
	}
	id, err := w.CreateCollection(ctx, coll, c.actor())
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "change_id", id)), nil
}

func runCreateIndexEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	fields, err := c.indexFields(coll)
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	w, err := c.schemaWriter()
	if err != nil {
		return nil, err
	}
	spec := store.BTreeSpec{Fields: fields, Unique: c.value("unique").Bool(), Sparse: c.value("sparse").Bool()}
	cl, err := c.collation()
	if err != nil {
		return nil, err
	}
	if cl != nil {
		spec.SetCollation(cl)
	}
	name, id, err := w.CreateIndex(ctx, coll, store.BTreeIndex(c.str("name"), spec), c.actor())
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "name", name, "change_id", id)), nil
}

func runRenameCollectionEngine(ctx context.Context, c *call) (*output, error) {
	from, to := c.str("collection"), c.str("to")
	if err := c.renameAllowed(from, to); err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, from); err != nil {
		return nil, err
	}
	w, err := c.schemaWriter()
	if err != nil {
		return nil, err
	}
	res, err := w.RenameCollection(ctx, from, to, c.actor())
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", from, "renamed_to", to, "documents", res.Documents, "indexes", res.Indexes,
		"change_id", res.ChangeID, "next_valid_actions", c.next([]string{changes.ActionRollback}, "history"))), nil
}

func runDropCollectionEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	w, err := c.dangerousWriter()
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	res, err := w.DropCollection(ctx, coll, c.actor())
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "dropped", res.Documents, "change_id", res.ChangeID,
		"next_valid_actions", c.next([]string{changes.ActionRollback, "history"}, ""))), nil
}

func runDropIndexEngine(ctx context.Context, c *call) (*output, error) {
	coll, name := c.str("collection"), c.str("name")
	w, err := c.dangerousWriter()
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	fields, _ := store.ParseKeyPattern(name)
	dropped, id, err := w.DropIndex(ctx, coll, name, fields, c.actor())
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "dropped", dropped, "change_id", id)), nil
}

package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// insert and insert_many over an engine (Config.Writer that is also an
// EngineInserter): each call is one journaled change, all or none, that
// rollback undoes, with the file tools' arguments, result shape, cap
// (maxInsertMany documents) and checks: the policy's collections, a
// document that sets a redacted field under a unique index refused
// (whether it met a duplicate key would tell another document's
// value), and the server's duplicate-key message withheld on a
// collection with redactions. A document may hold a redacted field
// otherwise, as on a file: the agent wrote it, reads will hide it.

// EngineInserter is the insert half of an engine's writer.
type EngineInserter interface {
	// Insert inserts docs into coll as one change by actor, all or none,
	// and returns their _ids and the change id. A collection that does
	// not exist is created.
	Insert(ctx context.Context, coll string, docs []value.Value, actor string) (ids []value.Value, change string, err error)
}

func init() {
	engineWriteRuns["insert"] = runInsertEngine
	engineWriteRuns["insert_many"] = runInsertManyEngine
}

func runInsertEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	doc, err := value.PrepareDocument(c.value("document"))
	if err != nil {
		return nil, err
	}
	ids, change, created, err := c.engineInsert(ctx, coll, []value.Value{doc})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", coll, "inserted_id", ids[0], "change_id", change, "created_collection", created))
	out.returned = 1
	return out, nil
}

func runInsertManyEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	docs, err := c.prepareDocuments(coll)
	if err != nil {
		return nil, err
	}
	ids, change, created, err := c.engineInsert(ctx, coll, docs)
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", coll, "inserted_ids", arr(ids...), "inserted", len(ids),
		"change_id", change, "created_collection", created))
	out.returned = int64(len(ids))
	return out, nil
}

// engineInsert checks the path, the collection and the documents, and
// inserts them through the writer; created tells whether the collection
// was missing.
func (c *call) engineInsert(ctx context.Context, coll string, docs []value.Value) (ids []value.Value, change string, created bool, err error) {
	ins, ok := c.srv.cfg.Writer.(EngineInserter)
	if !ok {
		return nil, "", false, c.srv.notOnEngine(c.tool.Name)
	}
	if err := c.engineWritable(ctx, coll, true); err != nil {
		return nil, "", false, err
	}
	names, err := c.engineCollections(ctx)
	if err != nil {
		return nil, "", false, err
	}
	created = !contains(names, coll)
	if !created {
		if err := c.refuseUniqueRedactedEngine(ctx, coll, docs); err != nil {
			return nil, "", false, err
		}
	}
	ids, change, err = ins.Insert(ctx, coll, docs, c.actor())
	if err != nil {
		return nil, "", false, c.engineWriteError(coll, err)
	}
	return ids, change, created, nil
}

// refuseUniqueRedactedEngine is refuseUniqueRedacted over the engine:
// the unique indexes the server lists (but _id's) whose fields are
// redacted refuse a document that sets one.
func (c *call) refuseUniqueRedactedEngine(ctx context.Context, coll string, docs []value.Value) error {
	red := c.redactor(coll)
	if red == nil {
		return nil
	}
	ixs, err := c.srv.cfg.Engine.Indexes(ctx, coll)
	if errs.KindOf(err) == errs.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	for _, doc := range docs {
		if value.Equal(red(doc), doc) {
			continue
		}
		for _, ix := range ixs {
			if !ix.Unique || ix.Name == "_id_" {
				continue
			}
			for _, f := range ix.Key.Fields() {
				if c.srv.policy.overlapsRedacted(coll, f.Key) {
					return uniqueRedacted(coll, f.Key, ix.Name)
				}
			}
		}
	}
	return nil
}

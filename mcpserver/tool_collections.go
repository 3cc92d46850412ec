package mcpserver

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// maxInsertMany bounds the documents of one insert_many.
const maxInsertMany = MaxLimit

func (s *Server) insertManyTool() *tool {
	return &tool{
		Name: "insert_many", Title: "Insert documents", Scope: ScopeReadWrite,
		Description: sentence("Insert up to 1000 documents into a collection (created if missing) as one change:",
			"all or none; rollback with its change_id undoes it. Example:",
			s.example("collection", "users", "documents", arr(obj("name", "ada"), obj("name", "bo")))),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "documents", Type: "array", Required: true, Description: "The documents (JSON objects)."}},
		Output: outputSchema([]string{"inserted_ids"}, "inserted_ids", tArr(obj()), "inserted", tInt(),
			"change_id", tStr(), "created_collection", tBool()),
		Run: runInsertMany,
	}
}

func runInsertMany(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	docs, err := c.prepareDocuments(coll)
	if err != nil {
		return nil, err
	}
	var ids []value.Value
	created, changeID, err := c.writeCollection(coll, "insert_many", func(col *store.Collection, _ bool) error {
		for i, doc := range docs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := c.refuseUniqueRedacted(col, doc); err != nil {
				return err
			}
			id, err := col.Insert(doc)
			if err != nil {
				return fmt.Errorf("documents[%d]: %w", i, err)
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", coll, "inserted_ids", arr(ids...), "inserted", len(ids),
		"change_id", changeID, "created_collection", created))
	out.returned = int64(len(ids))
	return out, nil
}

// prepareDocuments checks what can be checked before a store may be
// created: the collection name and policy, and every document.
func (c *call) prepareDocuments(coll string) ([]value.Value, error) {
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	if err := store.ValidateCollectionName(coll); err != nil {
		return nil, err
	}
	list := c.value("documents").Array()
	if len(list) == 0 || len(list) > maxInsertMany {
		return nil, errorf(CodeInvalidArgument, "argument `documents` of `insert_many` has %d documents; give 1 to %d", len(list), maxInsertMany).
			withHint("split a larger load into several calls, or ask the user to run `omgdb import`").withContext("argument", "documents")
	}
	docs := make([]value.Value, len(list))
	for i, d := range list {
		if d.Kind() != value.Object {
			return nil, errorf(CodeInvalidArgument, "documents[%d] must be a JSON object, got %s", i, describeValue(d)).
				withHint("every element of documents is one document, e.g. {\"name\":\"ada\"}").withContext("argument", "documents", "index", i)
		}
		doc, err := value.PrepareDocument(d)
		if err != nil {
			return nil, argError(err, fmt.Sprintf("documents[%d]", i))
		}
		docs[i] = doc
	}
	return docs, nil
}

// writeCollection runs fn on a collection, creating it when missing, in
// one journaled transaction, and returns whether it was created and the
// change id.
func (c *call) writeCollection(coll, kind string, fn func(col *store.Collection, created bool) error) (created bool, changeID string, err error) {
	db, err := c.openStore(true)
	if err != nil {
		return false, "", err
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: kind}, func(tx *store.Tx) error {
		created = !contains(tx.Collections(), coll)
		col, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		changeID = tx.ChangeID()
		return fn(col, created)
	})
	return created, changeID, err
}

func (s *Server) createCollectionTool() *tool {
	return &tool{
		Name: "create_collection", Title: "Create a collection", Scope: ScopeReadWrite, Idempotent: false,
		Description: sentence("Create an empty collection; an existing one is a CONFLICT. Rollback with its change_id drops it",
			"while empty. Example:", s.example("collection", "events")),
		Params: []param{s.pathParam(), collectionParam},
		Output: outputSchema([]string{"change_id"}, "change_id", tStr()),
		Run:    runCreateCollection,
	}
}

func runCreateCollection(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	if err := store.ValidateCollectionName(coll); err != nil {
		return nil, err
	}
	_, changeID, err := c.writeCollection(coll, "create_collection", func(_ *store.Collection, created bool) error {
		if !created {
			return errorf(CodeConflict, "collection `%s` already exists", coll).
				withHint("use it as it is, or choose another name").withNext("describe").withContext("collection", coll)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "change_id", changeID)), nil
}

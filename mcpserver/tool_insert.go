package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) insertTool() *tool {
	return &tool{
		Name: "insert", Title: "Insert a document", Scope: ScopeReadWrite,
		Description: sentence("Insert one document into a collection (created if missing), in one transaction;",
			"returns its _id and the change_id of the write. _id is generated when absent.",
			"Tell the user what you insert. Example:",
			s.example("collection", "users", "document", obj("name", "ada", "age", 36))),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "document", Type: "object", Required: true, Description: "The document (a JSON object)."}},
		Output: outputSchema([]string{"inserted_id"}, "collection", tStr(), "inserted_id", obj(),
			"change_id", tStr(), "created_collection", tBool()),
		Run: runInsert,
	}
}

func runInsert(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	// Check what can be checked before a store may be created.
	if err := store.ValidateCollectionName(coll); err != nil {
		return nil, err
	}
	doc, err := value.PrepareDocument(c.value("document"))
	if err != nil {
		return nil, err
	}
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var id value.Value
	var changeID string
	created := false
	err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		created = !contains(tx.Collections(), coll)
		col, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		if err := c.refuseUniqueRedacted(col, doc); err != nil {
			return err
		}
		id, err = col.Insert(doc)
		changeID = tx.ChangeID()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", coll, "inserted_id", id, "change_id", changeID, "created_collection", created))
	out.returned = 1
	return out, nil
}

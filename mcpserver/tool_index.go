package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/store"
)

func (s *Server) createIndexTool() *tool {
	return &tool{
		Name: "create_index", Title: "Create an index", Scope: ScopeReadWrite,
		Description: sentence("Create and build a B-tree index on one field or several (compound); check with explain",
			"that a query needs it. Example:",
			s.example("collection", "users", "fields", "city,age:-1")),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "fields", Type: "string", Required: true, Description: "Comma-separated paths, :-1 for descending, :2dsphere for GeoJSON geometry.", MaxLength: 1000},
			{Name: "unique", Type: "boolean", Description: "Refuse duplicate keys."},
			{Name: "sparse", Type: "boolean", Description: "Skip documents without the fields."},
			{Name: "name", Type: "string", Description: "Index name; default like age_1.", MaxLength: 120},
			{Name: "collation", Type: "object", Description: "Key strings by this collation; only queries with the same one use it for strings."}},
		Output: outputSchema([]string{"name"}, "collection", tStr(), "name", tStr(), "change_id", tStr()),
		Run:    runCreateIndex,
	}
}

func runCreateIndex(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	fields, err := c.indexFields(coll)
	if err != nil {
		return nil, err
	}
	spec := store.BTreeSpec{Fields: fields, Unique: c.value("unique").Bool(), Sparse: c.value("sparse").Bool()}
	if c.has("collation") {
		cl, err := c.collation()
		if err != nil {
			return nil, err
		}
		spec.SetCollation(cl)
	}
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var name, changeID string
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		col, err := c.collection(tx, coll)
		if err != nil {
			return err
		}
		ix, err := col.CreateBTreeIndex(c.str("name"), spec)
		if err != nil {
			return err
		}
		name, changeID = ix.Def.Name, tx.ChangeID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "name", name, "change_id", changeID)), nil
}

// indexFields parses the fields argument of create_index, refusing a
// redacted field: a unique index on one would name its values in
// conflicts, and its bounds would count them.
func (c *call) indexFields(coll string) ([]store.IndexField, error) {
	fields, err := store.ParseKeyPattern(c.str("fields"))
	if err != nil {
		return nil, argError(err, "fields")
	}
	for _, f := range fields {
		if c.srv.policy.overlapsRedacted(coll, f.Path) {
			return nil, deniedRedactedField(coll, f.Path, "indexed")
		}
	}
	return fields, nil
}

func (s *Server) dropIndexTool() *tool {
	return &tool{
		Name: "drop_index", Title: "Drop an index", Scope: ScopeDangerous, Destructive: true,
		Description: sentence("Remove an index, named by its name or by its fields as create_index takes them.",
			"Ask the user first. Example:", s.example("collection", "users", "name", "age_1")),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "name", Type: "string", Required: true, Description: "Index name or fields.", MaxLength: 1000}},
		Output: outputSchema([]string{"dropped"}, "collection", tStr(), "dropped", tStr(), "change_id", tStr()),
		Run:    runDropIndex,
	}
}

func runDropIndex(ctx context.Context, c *call) (*output, error) {
	coll, name := c.str("collection"), c.str("name")
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var changeID string
	err = db.Update(store.Change{Kind: "drop_index"}, func(tx *store.Tx) error {
		col, err := c.collection(tx, coll)
		if err != nil {
			return err
		}
		if _, err := col.Index(name); err != nil {
			if fields, perr := store.ParseKeyPattern(name); perr == nil {
				if byFields := col.FindBTreeIndex(fields); byFields != "" {
					name = byFields
				}
			}
		}
		if err := col.DropIndex(name); err != nil {
			return err
		}
		changeID = tx.ChangeID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "dropped", name, "change_id", changeID)), nil
}

package vector

import (
	"strings"

	"github.com/omgdb/omgdb/store"
)

// Reindex rebuilds indexes of c from its documents: the named ones, or
// every vector and search index when names is empty. Each is dropped and
// created again from its definition in the same transaction (both steps go
// into the journal), so a vector index made by another embedder gets this
// program's vectors. It returns the definitions rebuilt.
func Reindex(c *store.Collection, names ...string) ([]store.IndexDef, error) {
	var defs []store.IndexDef
	for _, def := range c.Indexes() {
		if len(names) == 0 && (def.Kind == KindVector || def.Kind == KindSearch) {
			defs = append(defs, def)
		}
	}
	for _, name := range names {
		ix, err := c.Index(name)
		if err != nil {
			return nil, err
		}
		defs = append(defs, ix.Def)
	}
	for i, def := range defs {
		if err := c.DropIndex(def.Name); err != nil {
			return nil, err
		}
		ix, err := c.CreateIndex(def)
		if err != nil {
			return nil, err
		}
		defs[i] = ix.Def
	}
	return defs, nil
}

// IndexInfo describes a vector or search index for listings.
func IndexInfo(def store.IndexDef) string {
	return def.Name + " (" + def.Kind + ": " + strings.TrimSpace(string(def.Spec)) + ")"
}

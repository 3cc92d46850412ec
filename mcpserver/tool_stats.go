package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) statsTool() *tool {
	return &tool{
		Name: "stats", Title: "Storage statistics", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "Documents, data and index bytes per collection and in total.",
		Params:      []param{s.pathParam(), {Name: "collection", Type: "string", Description: "One collection; omit for all."}},
		Output: outputSchema([]string{"collections"}, "file_bytes", tInt(), "documents", tInt(), "data_bytes", tInt(),
			"index_bytes", tInt(), "collections", tList()),
		Run: runStats,
	}
}

func runStats(ctx context.Context, c *call) (*output, error) {
	info, err := c.storeInfo(c.str("collection"))
	if err != nil {
		return nil, err
	}
	var docs, data, ixBytes int64
	colls := []value.Value{}
	for _, ci := range info.Collections {
		var ix int64
		for _, i := range ci.Indexes {
			ix += i.SizeBytes
		}
		docs, data, ixBytes = docs+ci.Documents, data+ci.DataBytes, ixBytes+ix
		colls = append(colls, obj("name", ci.Name, "documents", ci.Documents, "data_bytes", ci.DataBytes,
			"indexes", len(ci.Indexes), "index_bytes", ix))
	}
	// The file's size counts what the agent may not see: it is given only
	// when every collection is visible.
	file := value.LongValue(info.SizeBytes)
	if c.hidesCollections(info) {
		file = value.MissingValue
	}
	out := newOutput(obj("file_bytes", file, "documents", docs, "data_bytes", data, "index_bytes", ixBytes, "collections", colls))
	out.fence = "statistics"
	return out, nil
}

// visibleInfo is the store's description as the agent may see it.
type visibleInfo struct {
	*store.Info     // Collections: the visible ones (or the one asked for)
	all         int // collections in the store
}

// storeInfo describes the store as the agent may see it: the visible
// collections, or only coll when it is given (NOT_FOUND or POLICY_DENIED
// as for any read of it).
func (c *call) storeInfo(coll string) (*visibleInfo, error) {
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if coll != "" {
		if err := db.View(func(tx *store.Tx) error { _, err := c.collection(tx, coll); return err }); err != nil {
			return nil, err
		}
	}
	info, err := db.Info()
	if err != nil {
		return nil, err
	}
	vi := &visibleInfo{Info: info, all: len(info.Collections)}
	kept := info.Collections[:0]
	for _, ci := range info.Collections {
		if c.srv.policy.collectionAllowed(ci.Name) && (coll == "" || ci.Name == coll) {
			kept = append(kept, c.hideRedactedIndexes(ci))
		}
	}
	info.Collections = kept
	return vi, nil
}

// hidesCollections reports whether the description leaves out a
// collection of the store.
func (c *call) hidesCollections(vi *visibleInfo) bool { return len(vi.Collections) < vi.all }

// hideRedactedIndexes leaves out what an index on a redacted field tells
// of its values: its entry count and which of its fields hold arrays.
func (c *call) hideRedactedIndexes(ci store.CollectionInfo) store.CollectionInfo {
	for i, ix := range ci.Indexes {
		for _, f := range indexFields(ix) {
			if c.srv.policy.overlapsRedacted(ci.Name, f) {
				ci.Indexes[i].Entries, ci.Indexes[i].Multikey = -1, nil
				break
			}
		}
	}
	return ci
}

// indexFields lists the fields an index reads: its key pattern's, or for
// other kinds the "fields" or "field" of its spec.
func indexFields(ix store.IndexInfo) []string {
	var fields []string
	if len(ix.Key) > 0 {
		if key, err := value.Parse(ix.Key); err == nil {
			for _, f := range key.Fields() {
				fields = append(fields, f.Key)
			}
		}
		return fields
	}
	var spec struct {
		Field  string   `json:"field"`
		Fields []string `json:"fields"`
	}
	json.Unmarshal(ix.Spec, &spec)
	if spec.Field != "" {
		fields = append(fields, spec.Field)
	}
	return append(fields, spec.Fields...)
}

func (s *Server) listIndexesTool() *tool {
	return &tool{
		Name: "list_indexes", Title: "List indexes", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "A collection's indexes with their keys, options, entries and bytes.",
		Params:      []param{s.pathParam(), collectionParam},
		Output:      outputSchema([]string{"indexes"}, "indexes", tList()),
		Run:         runListIndexes,
	}
}

func runListIndexes(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	info, err := c.storeInfo(coll)
	if err != nil {
		return nil, err
	}
	list := []value.Value{}
	for _, ci := range info.Collections {
		for _, ix := range ci.Indexes {
			v, err := jsonValue(ix)
			if err != nil {
				return nil, err
			}
			if ix.Entries < 0 {
				v = v.Without("entries")
			}
			list = append(list, v)
		}
	}
	out := newOutput(obj("collection", coll, "indexes", arr(list...)))
	out.fence = "indexes of `" + coll + "`"
	return out, nil
}

// jsonValue converts an engine report to a value.
func jsonValue(x any) (value.Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return value.Value{}, err
	}
	return value.Parse(b)
}

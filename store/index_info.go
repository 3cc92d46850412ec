package store

import (
	"encoding/json"
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// IndexInfo describes an index, as `omgdb indexes` and `inspect` print it.
type IndexInfo struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Key       json.RawMessage `json:"key,omitempty"`       // B-tree: the key pattern, {"age":-1,"name":1}; text: {"_fts":"text","_ftsx":1}
	Unique    bool            `json:"unique,omitempty"`    // B-tree
	Sparse    bool            `json:"sparse,omitempty"`    // B-tree
	Multikey  []string        `json:"multikey,omitempty"`  // B-tree: fields that have met an array
	Collation json.RawMessage `json:"collation,omitempty"` // B-tree: its collation, when it has one
	Spec      json.RawMessage `json:"spec,omitempty"`      // other kinds: their spec
	Entries   int64           `json:"entries"`
	SizeBytes int64           `json:"size_bytes"`
}

// IndexInfos describes the collection's indexes, sorted by name.
func (c *Collection) IndexInfos() ([]IndexInfo, error) {
	out := []IndexInfo{}
	for _, def := range c.Indexes() {
		ix, err := c.openIndex(def)
		if err != nil {
			return nil, err
		}
		info := IndexInfo{Name: def.Name, Kind: def.Kind, Entries: ix.Entries(), SizeBytes: ix.SizeBytes()}
		if def.Kind != BTreeKind {
			info.Spec = def.Spec
			if def.Kind == TextKind {
				info.Key = json.RawMessage(`{"_fts":"text","_ftsx":1}`) // MongoDB's key of a text index
			}
			out = append(out, info)
			continue
		}
		spec, err := ParseBTreeSpec(def)
		if err != nil {
			return nil, err
		}
		info.Key = value.JSON(spec.KeyPattern())
		info.Unique, info.Sparse, info.Collation = spec.Unique, spec.Sparse, spec.Collation
		for i, mk := range ix.Multikey() {
			if mk {
				info.Multikey = append(info.Multikey, spec.Fields[i].Path)
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// FindBTreeIndex returns the name of the B-tree index with exactly these
// fields, or "".
func (c *Collection) FindBTreeIndex(fields []IndexField) string {
	for _, def := range c.Indexes() {
		if def.Kind != BTreeKind {
			continue
		}
		spec, err := ParseBTreeSpec(def)
		if err != nil || len(spec.Fields) != len(fields) {
			continue
		}
		same := true
		for i, f := range spec.Fields {
			same = same && f == fields[i]
		}
		if same {
			return def.Name
		}
	}
	return ""
}

// CreateBTreeIndex creates a B-tree index (named by MongoDB's convention
// when name is empty), refusing one whose fields and directions repeat an
// existing index's.
func (c *Collection) CreateBTreeIndex(name string, spec BTreeSpec) (*Index, error) {
	if other := c.FindBTreeIndex(spec.Fields); other != "" {
		return nil, wrap(errs.Conflict, nil, "collection `%s` already has index `%s` on %s", c.name, other, spec.KeyPattern()).
			WithHint("drop it first to change its options: omgdb drop-index %s %s %s", c.tx.db.path, c.name, other)
	}
	return c.CreateIndex(BTreeIndex(name, spec))
}

// CreateBTreeIndexes creates several B-tree indexes, defined with
// BTreeIndex, in one scan of the documents (see CreateIndexes). Like
// CreateBTreeIndex, it refuses an index whose fields and directions repeat
// an existing index's, or another's of defs.
func (c *Collection) CreateBTreeIndexes(defs ...IndexDef) ([]*Index, error) {
	specs := make([]*BTreeSpec, len(defs))
	for i, def := range defs {
		if def.Kind != BTreeKind {
			return nil, errs.Errorf(errs.Invalid, "index `%s` is of kind %q, not %q", def.Name, def.Kind, BTreeKind)
		}
		spec, err := ParseBTreeSpec(def)
		if err != nil {
			return nil, err
		}
		if other := c.FindBTreeIndex(spec.Fields); other != "" {
			return nil, wrap(errs.Conflict, nil, "collection `%s` already has index `%s` on %s", c.name, other, spec.KeyPattern()).
				WithHint("drop it first to change its options: omgdb drop-index %s %s %s", c.tx.db.path, c.name, other)
		}
		for _, s := range specs[:i] {
			if slices.Equal(s.Fields, spec.Fields) {
				return nil, errs.Errorf(errs.Usage, "the key pattern %s is given twice", spec.KeyPattern())
			}
		}
		specs[i] = spec
	}
	return c.CreateIndexes(defs...)
}

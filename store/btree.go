package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

// A "btree" index is a secondary index over one or more dotted field paths.
// Its bucket holds one entry per distinct key of each document: the
// concatenated key encodings of the fields' values (value.AppendKey, or
// AppendKeyDesc for a descending field) followed by the key of the
// document's _id, mapped to an empty value. Equal keys of different
// documents are distinct entries, and both point lookups and range scans
// are seeks. One more record, under a key starting with 0x00 (which no
// entry does), says which fields have met an array (multikey).
//
// Keys follow MongoDB: an array yields one key per element (an empty array
// yields the key of []); a missing field is keyed as null, except in a
// sparse index, which leaves out documents where every field is missing;
// a compound key may draw on several arrays only when they are the same
// array (MongoDB's "cannot index parallel arrays").

// BTreeKind is the name of the B-tree index kind.
const BTreeKind = "btree"

// MaxIndexKeySize bounds the size of one index entry (the encoded field
// values and _id), in bytes. A document that would need a larger entry is
// refused by the index.
const MaxIndexKeySize = 16 << 10

// MaxIndexKeysPerDocument bounds how many entries one document may have in
// one index (the product of the array sizes a compound key draws on).
const MaxIndexKeysPerDocument = 100_000

// IndexField is one field of a B-tree index's key pattern.
type IndexField struct {
	Path string `json:"path"`           // dotted path
	Desc bool   `json:"desc,omitempty"` // descending (-1)
	Type string `json:"type,omitempty"` // "" for values; Geo2DSphere for the cells of a geometry (geoindex.go)
}

// BTreeSpec is the Spec of a "btree" IndexDef.
type BTreeSpec struct {
	Fields []IndexField `json:"fields"`
	Unique bool         `json:"unique,omitempty"`
	Sparse bool         `json:"sparse,omitempty"`
	// Collation, when set, is the index's collation document (all its
	// fields): the index keys strings by their collation keys (see
	// collation.go). Set it with SetCollation.
	Collation json.RawMessage      `json:"collation,omitempty"`
	coll      *collation.Collation // parsed Collation
}

// BTreeIndex returns the definition of a B-tree index. An empty name
// becomes MongoDB's default, such as "age_-1_name_1".
func BTreeIndex(name string, spec BTreeSpec) IndexDef {
	if name == "" {
		name = spec.defaultName()
	}
	raw, _ := json.Marshal(spec)
	return IndexDef{Name: name, Kind: BTreeKind, Spec: raw}
}

func (s *BTreeSpec) defaultName() string {
	parts := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		parts[i] = f.Path + "_1"
		if f.Desc {
			parts[i] = f.Path + "_-1"
		}
		if f.Type != "" {
			parts[i] = f.Path + "_" + f.Type
		}
	}
	return strings.Join(parts, "_")
}

// KeyPattern returns the spec's fields as MongoDB writes them:
// {"age":-1,"name":1}.
func (s *BTreeSpec) KeyPattern() value.Value {
	fields := make([]value.Field, len(s.Fields))
	for i, f := range s.Fields {
		dir := int64(1)
		if f.Desc {
			dir = -1
		}
		fields[i] = value.Field{Key: f.Path, Value: value.LongValue(dir)}
		if f.Type != "" {
			fields[i].Value = value.StringValue(f.Type)
		}
	}
	return value.ObjectValue(fields)
}

// ParseKeyPattern reads the fields argument of create-index:
// "age:-1,name" or "address.city:1". A field without a direction is
// ascending.
func ParseKeyPattern(s string) ([]IndexField, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		return parseKeyDocument(s)
	}
	var fields []IndexField
	for _, part := range strings.Split(s, ",") {
		path, dir, hasDir := strings.Cut(strings.TrimSpace(part), ":")
		f := IndexField{Path: path}
		switch {
		case !hasDir || dir == "1":
		case dir == "-1":
			f.Desc = true
		case dir == Geo2DSphere:
			f.Type = Geo2DSphere
		default:
			if err := refusedIndexType(path, dir); err != nil {
				return nil, err
			}
			return nil, errs.Errorf(errs.Usage, "index field `%s`: direction must be 1 or -1, got %q", path, dir).
				WithHint("write age:-1 for descending, age or age:1 for ascending")
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// parseKeyDocument reads a key pattern written as MongoDB's createIndex
// takes it: {"city":1,"age":-1}.
func parseKeyDocument(s string) ([]IndexField, error) {
	doc, err := value.ParseString(s)
	if err != nil || doc.Kind() != value.Object || doc.Len() == 0 {
		return nil, errs.Errorf(errs.Usage, "key pattern %q is not a JSON object of fields and directions", s).
			WithHint(`write '{"city":1,"age":-1}', or the comma form city,age:-1`)
	}
	var fields []IndexField
	for _, f := range doc.Fields() {
		switch {
		case f.Value.Kind() == value.String && f.Value.Str() == Geo2DSphere:
			fields = append(fields, IndexField{Path: f.Key, Type: Geo2DSphere})
		case f.Value.Kind() == value.String:
			if err := refusedIndexType(f.Key, f.Value.Str()); err != nil {
				return nil, err
			}
			return nil, errs.Errorf(errs.Usage, "index field `%s`: %q indexes are not supported; omgdb has B-tree indexes (1 or -1) and 2dsphere", f.Key, f.Value.Str()).
				WithHint("for full-text search use create-search-index, for vectors create-vector-index")
		case value.IsInteger(f.Value, 1):
			fields = append(fields, IndexField{Path: f.Key})
		case value.IsInteger(f.Value, -1):
			fields = append(fields, IndexField{Path: f.Key, Desc: true})
		default:
			return nil, errs.Errorf(errs.Usage, "index field `%s`: direction must be 1 or -1, got %s", f.Key, f.Value).
				WithHint(`write {"age":-1} for descending, {"age":1} for ascending`)
		}
	}
	return fields, nil
}

// FormatKeyPattern writes index fields in the comma form ParseKeyPattern
// reads: city,age:-1.
func FormatKeyPattern(fields []IndexField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Path
		if f.Desc {
			parts[i] += ":-1"
		}
		if f.Type != "" {
			parts[i] += ":" + f.Type
		}
	}
	return strings.Join(parts, ",")
}

// ParseBTreeSpec returns the spec of a B-tree index definition.
func ParseBTreeSpec(def IndexDef) (*BTreeSpec, error) {
	if s, ok := decodeBTreeSpecFast(def.Spec); ok {
		return &s, nil
	}
	var s BTreeSpec
	if err := json.Unmarshal(def.Spec, &s); err != nil {
		return nil, errs.Errorf(errs.Invalid, "index `%s`: unreadable spec: %v", def.Name, err)
	}
	coll, err := indexCollation(s.Collation)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "index `%s`: %v", def.Name, err).WithHint("%s", errs.HintOf(err))
	}
	if len(s.Collation) > 0 {
		s.SetCollation(coll)
	}
	return &s, nil
}

func (s *BTreeSpec) validate() error {
	if len(s.Fields) == 0 {
		return errs.Errorf(errs.Usage, "an index needs at least one field").
			WithHint("name the fields: create-index <store> <coll> age,name:-1")
	}
	if len(s.Fields) > 32 {
		return errs.Errorf(errs.Limit, "an index may have at most 32 fields, got %d", len(s.Fields))
	}
	seen := map[string]bool{}
	for _, f := range s.Fields {
		if err := checkIndexPath(f.Path); err != nil {
			return err
		}
		if seen[f.Path] {
			return errs.Errorf(errs.Usage, "field `%s` appears twice in the index", f.Path)
		}
		seen[f.Path] = true
		if err := f.checkType(s); err != nil {
			return err
		}
	}
	return nil
}

func checkIndexPath(path string) error { return rules.CheckPath(path) }

// btreeKind implements IndexKind, IndexBuilder and IndexChecker.
type btreeKind struct{}

func init() { RegisterIndexKind(BTreeKind, btreeKind{}) }

func (btreeKind) Prepare(def IndexDef) (IndexDef, error) {
	s, err := ParseBTreeSpec(def)
	if err != nil {
		return def, err
	}
	if err := s.validate(); err != nil {
		return def, err
	}
	if def.Name == "" {
		def.Name = s.defaultName()
	}
	def.Spec, _ = json.Marshal(s)
	return def, nil
}

// btree is the state of a B-tree index within one transaction.
type btree struct {
	ix       *Index
	spec     *BTreeSpec
	gen      *keyGen
	multikey uint64 // bit i: field i has met an array in some document
	scratch  keySet
	old      keySet
}

var keyMultikey = []byte("\x00multikey")

// btreeOf returns the index's parsed state, caching it on the Index.
func btreeOf(ix *Index) (*btree, error) {
	if t, ok := ix.state.(*btree); ok {
		return t, nil
	}
	s, err := ParseBTreeSpec(ix.Def)
	if err != nil {
		return nil, err
	}
	t := &btree{ix: ix, spec: s, gen: newKeyGen(s)}
	if v := ix.bucket.Get(keyMultikey); v != nil {
		t.multikey, _ = binary.Uvarint(v)
	}
	ix.state = t
	return t, nil
}

// Multikey reports, for each field of the index, whether some document
// has had an array on its path. The flags are never cleared.
func (ix *Index) Multikey() []bool {
	if ix.Def.Kind != BTreeKind {
		return nil
	}
	t, err := btreeOf(ix)
	if err != nil {
		return nil
	}
	out := make([]bool, len(t.spec.Fields))
	for i := range out {
		out[i] = t.multikey&(1<<i) != 0
	}
	return out
}

func (t *btree) noteMultikey(mask uint64) error {
	if mask&^t.multikey == 0 {
		return nil
	}
	t.multikey |= mask
	return t.ix.bucket.Put(keyMultikey, binary.AppendUvarint(nil, t.multikey))
}

var emptyValue = []byte{}

func (btreeKind) Update(ix *Index, before, after value.Value) error {
	t, err := btreeOf(ix)
	if err != nil {
		return err
	}
	var idKey []byte
	t.old.reset()
	if !before.IsMissing() {
		idKey = value.AppendKey(nil, before.Get("_id"))
		if _, err := t.gen.keys(before, &t.old); err != nil {
			// The stored document was indexed once, so this cannot fail
			// unless the index is damaged.
			return fmt.Errorf("index %s: keys of the stored document: %w", ix.Def.Name, err)
		}
	}
	t.scratch.reset()
	if !after.IsMissing() {
		idKey = value.AppendKey(idKey[:0], after.Get("_id"))
		mask, err := t.gen.keys(after, &t.scratch)
		if err != nil {
			return t.keyError(after, err)
		}
		if err := t.checkNew(after, idKey); err != nil {
			return err
		}
		if err := t.noteMultikey(mask); err != nil {
			return err
		}
	}
	return t.apply(idKey)
}

// checkNew refuses keys that are too large, and keys of a unique index
// that another document holds. It writes nothing.
func (t *btree) checkNew(doc value.Value, idKey []byte) error {
	for _, k := range t.scratch.keys {
		if t.old.has(k) {
			continue
		}
		if n := len(k) + len(idKey); n > MaxIndexKeySize {
			return t.keyError(doc, errs.Errorf(errs.Limit, "its key is %d bytes, over the %d-byte index key limit", n, MaxIndexKeySize).
				WithHint("index a shorter field, or leave this field out of the index"))
		}
		if !t.spec.Unique {
			continue
		}
		c := t.ix.bucket.Cursor()
		if other, _ := c.Seek(k); other != nil && bytes.HasPrefix(other, k) && !bytes.Equal(other[len(k):], idKey) {
			return t.duplicate(doc, k, other[len(k):])
		}
	}
	return nil
}

// apply deletes the old keys that are not new and puts the new ones that
// are not old.
func (t *btree) apply(idKey []byte) error {
	b := t.ix.bucket
	var buf []byte
	for _, k := range t.old.keys {
		if !t.scratch.has(k) {
			buf = append(append(buf[:0], k...), idKey...)
			if err := b.Delete(buf); err != nil {
				return err
			}
		}
	}
	for _, k := range t.scratch.keys {
		if !t.old.has(k) {
			buf = append(append(buf[:0], k...), idKey...)
			if err := b.Put(buf, emptyValue); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *btree) keyError(doc value.Value, err error) error {
	e := errs.Errorf(errs.KindOf(err), "index `%s` of collection `%s` cannot hold document _id %s: %v", t.ix.Def.Name, t.ix.coll.name, doc.Get("_id"), err)
	e.Hint, e.Err = errs.HintOf(err), err
	return e
}

// duplicate returns the Conflict error of a unique index for key k, held
// by the document whose _id key is otherID.
func (t *btree) duplicate(doc value.Value, k, otherID []byte) error {
	other := "(unknown)"
	if raw := t.ix.coll.docs.Get(otherID); raw != nil {
		if od, err := decodeDoc(raw); err == nil {
			other = od.Get("_id").String()
		}
	}
	key := t.gen.describe(doc, k)
	e := wrap(errs.Conflict, ErrDuplicateKey, "duplicate key in unique index `%s` of collection `%s`: %s is already used by _id %s (writing _id %s)",
		t.ix.Def.Name, t.ix.coll.name, key, other, doc.Get("_id"))
	e.Hint = fmt.Sprintf("each document needs its own value; change this document's value, or the other's (`omgdb get %s %s '%s'`)",
		t.ix.coll.tx.db.path, t.ix.coll.name, other)
	return e
}

// Entries counts the entries of a B-tree index.
func (ix *Index) Entries() int64 {
	n := int64(ix.bucket.Stats().KeyN)
	if ix.bucket.Get(keyMultikey) != nil {
		n--
	}
	return n
}

// SizeBytes returns the bytes of B+tree pages the index's data uses.
func (ix *Index) SizeBytes() int64 {
	st := ix.bucket.Stats()
	return int64(st.LeafInuse + st.BranchInuse + st.InlineBucketInuse)
}

// isEntry tells an index entry from the multikey record.
func isEntry(k []byte) bool { return len(k) > 0 && k[0] != 0 }

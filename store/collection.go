package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/internal/crc32c"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Collection is a collection of documents, within one transaction.
type Collection struct {
	tx     *Tx
	name   string
	bucket *bolt.Bucket // the collection's bucket
	docs   *bolt.Bucket // documents by key of _id
	meta   collMeta
	count  int64 // documents, as of this transaction
	dirty  bool  // count changed
	// appendOnly is true while every insert of this transaction went past
	// the last key, so pages can be filled completely.
	appendOnly bool
	lastKey    []byte   // the greatest key while appendOnly; nil until known
	indexes    []*Index // opened indexes, for maintenance; nil until needed
	// opened holds, in a write transaction, every index handle opened, by
	// name: one handle per index, so that what one part of the
	// transaction buffers through it (Vectors, Text) the others see, and
	// flushIndexes writes it.
	opened map[string]*Index
	// indexPaths holds _id and the paths the opened indexes read, when
	// they are all B-tree indexes (which read nothing else); nil otherwise.
	// indexPathList is the same as a list.
	indexPaths    *value.FieldSet
	indexPathList []string
	// buildProgress is called by index builds; see SetBuildProgress.
	buildProgress func(done, total int64)
	rules         *Rules // compiled from meta.Rules; nil when there are none
}

// collMeta is the collection's metadata record. It is stored sealed (with
// a checksum, like documents) and carries the collection's name, so that a
// damaged bucket name reads as an error rather than as another collection.
type collMeta struct {
	Name    string          `json:"name,omitempty"`
	Created string          `json:"created"`
	Indexes []IndexDef      `json:"indexes,omitempty"`
	Rules   json.RawMessage `json:"rules,omitempty"` // validation rules, canonical JSON
}

func (m collMeta) encode() []byte {
	js, _ := json.Marshal(m)
	return seal(append(make([]byte, headerSize, headerSize+len(js)), js...), encJSON)
}

// decodeMeta reads a collection's metadata record and checks it belongs
// to the bucket named name.
func decodeMeta(raw []byte, name string) (collMeta, error) {
	var m collMeta
	js := raw
	if len(raw) > 0 && raw[0] != '{' { // sealed; records written before sealing are bare JSON
		var err error
		if js, err = docJSON(raw); err != nil {
			return m, err
		}
	}
	if fast, ok := decodeMetaFast(js); ok {
		m = fast
	} else if err := json.Unmarshal(js, &m); err != nil {
		return m, fmt.Errorf("unreadable metadata: %v", err)
	}
	if m.Name != "" && m.Name != name {
		return m, fmt.Errorf("its metadata names it %q: the name or the record is damaged", m.Name)
	}
	return m, nil
}

// encodeCount seals a document count: 8 bytes and their CRC-32C.
func encodeCount(n int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(n))
	return binary.BigEndian.AppendUint32(b, crc32c.Checksum(b))
}

func decodeCount(raw []byte) (int64, error) {
	switch {
	case len(raw) == 8: // written before counts were sealed
	case len(raw) == 12 && crc32c.Checksum(raw[:8]) == binary.BigEndian.Uint32(raw[8:]):
	default:
		return 0, fmt.Errorf("damaged count record")
	}
	return int64(binary.BigEndian.Uint64(raw[:8])), nil
}

func (tx *Tx) open(name string, b *bolt.Bucket) (*Collection, error) {
	c := &Collection{tx: tx, name: name, bucket: b, docs: b.Bucket(bucketDocs), appendOnly: true}
	if c.docs == nil {
		return nil, wrap(errs.IO, ErrCorrupt, "collection %s in %s has no documents bucket", name, tx.db.path)
	}
	var err error
	if raw := b.Get(keyCollMeta); raw != nil {
		if c.meta, err = tx.db.metas.decode(raw, name, tx.writable); err != nil {
			return nil, wrap(errs.IO, ErrCorrupt, "collection %q in %s: %v", name, tx.db.path, err).
				WithHint("run `omgdb verify`; `omgdb salvage` copies what is readable")
		}
	}
	if err := c.compileRules(); err != nil {
		return nil, err
	}
	if raw := b.Get(keyCount); raw != nil {
		if c.count, err = decodeCount(raw); err != nil {
			return nil, wrap(errs.IO, ErrCorrupt, "collection %q in %s: %v", name, tx.db.path, err).
				WithHint("run `omgdb verify`; `omgdb salvage` copies what is readable")
		}
	}
	tx.colls[name] = c
	return c, nil
}

// Name returns the collection's name.
func (c *Collection) Name() string { return c.name }

// Tx returns the transaction the collection was opened in.
func (c *Collection) Tx() *Tx { return c.tx }

// Count returns the number of documents, in O(1).
func (c *Collection) Count() int64 { return c.count }

func (c *Collection) flush() error {
	if err := c.flushIndexes(); err != nil {
		return err
	}
	if c.appendOnly {
		c.docs.FillPercent = 1.0
	}
	if !c.dirty {
		return nil
	}
	return c.bucket.Put(keyCount, encodeCount(c.count))
}

func (c *Collection) checkWritable() error {
	if !c.tx.writable {
		return wrap(errs.Denied, ErrReadOnly, "cannot write to collection `%s`: read-only transaction", c.name)
	}
	return nil
}

// Insert stores a new document and returns its _id, generating an
// ObjectId when the document has none. An _id that is already taken is a
// Conflict error.
func (c *Collection) Insert(doc value.Value) (value.Value, error) {
	if err := c.checkWritable(); err != nil {
		return value.Value{}, err
	}
	doc, err := value.PrepareDocument(doc)
	if err != nil {
		return value.Value{}, err
	}
	id := doc.Get("_id")
	if id.IsMissing() {
		id = value.ObjectIDValue(value.NewOID())
		doc = value.ObjectValue(append([]value.Field{{Key: "_id", Value: id}}, doc.Fields()...))
	}
	val := value.AppendJSON(make([]byte, headerSize, 256), doc)
	return id, c.insert(val, id, doc)
}

// InsertJSON stores a new document given as JSON text, as Insert does. It
// validates and canonicalises the text in one pass, without building the
// document's value unless an index needs it: the fast path of imports.
func (c *Collection) InsertJSON(text []byte) (value.Value, error) {
	if err := c.checkWritable(); err != nil {
		return value.Value{}, err
	}
	val, id, err := value.AppendCanonicalDocument(make([]byte, headerSize, len(text)+48), text)
	if err != nil {
		return value.Value{}, err
	}
	return id, c.insert(val, id, value.Value{})
}

// insert stores the canonical JSON in val[headerSize:] under id. doc is
// the document's value, or missing to have it parsed when an index needs it.
func (c *Collection) insert(val []byte, id, doc value.Value) error {
	if n := len(val) - headerSize; n > value.MaxDocumentSize {
		return errs.Errorf(errs.Limit, "document with _id %s is %d bytes, over the %d-byte limit", id, n, value.MaxDocumentSize)
	}
	key := value.AppendKey(nil, id)
	// A key past every key in the collection cannot be taken: imports of
	// ascending ids skip a lookup per document.
	if !c.trackAppend(key) && c.docs.Get(key) != nil {
		e := wrap(errs.Conflict, ErrDuplicateID, "duplicate _id %s in collection `%s`", id, c.name)
		e.Hint = "each document needs a unique _id; omit _id to have one generated"
		return e
	}
	if (len(c.meta.Indexes) > 0 || c.rules != nil) && doc.IsMissing() {
		var err error
		if doc, err = value.Parse(val[headerSize:]); err != nil {
			return err
		}
	}
	if err := c.rules.Check(c.name, doc); err != nil {
		return err
	}
	if err := c.maintain(value.Value{}, doc); err != nil {
		return err
	}
	if err := c.docs.Put(key, encodeJSON(val)); err != nil {
		return err
	}
	c.count++
	c.dirty = true
	c.tx.record(Op{Op: OpInsert, Coll: c.name, ID: id})
	return nil
}

// trackAppend notes whether key goes past every key so far, and reports
// whether it does while every insert of the transaction has. (Only insert
// adds keys to the documents bucket, so lastKey bounds them all.)
func (c *Collection) trackAppend(key []byte) bool {
	if !c.appendOnly {
		return false
	}
	if c.lastKey == nil {
		last, _ := c.docs.Cursor().Last()
		c.lastKey = append([]byte{}, last...)
	}
	if bytes.Compare(key, c.lastKey) <= 0 {
		c.appendOnly = false
		return false
	}
	c.lastKey = append(c.lastKey[:0], key...)
	return true
}

// Get returns the document with the given _id, or a NotFound error.
func (c *Collection) Get(id value.Value) (value.Value, error) {
	raw := c.docs.Get(value.AppendKey(nil, id))
	if raw == nil {
		e := wrap(errs.NotFound, ErrNotFound, "no document with _id %s in collection `%s`", id, c.name)
		if id.Kind() == value.String {
			if _, ok := value.ParseOID(id.Str()); ok {
				e.Hint = `that looks like an ObjectId: write it as {"$oid":"` + id.Str() + `"}`
			}
		}
		return value.Value{}, e
	}
	return decodeDoc(raw)
}

// GetJSON returns the canonical JSON of the document with the given _id.
func (c *Collection) GetJSON(id value.Value) ([]byte, error) {
	raw := c.docs.Get(value.AppendKey(nil, id))
	if raw == nil {
		_, err := c.Get(id)
		return nil, err
	}
	return docJSON(raw)
}

// Replace replaces the document with the given _id by doc, whose _id must
// be absent or equal. The before-image goes into the journal.
func (c *Collection) Replace(id value.Value, doc value.Value) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	old, err := c.current(id)
	if err != nil {
		return err
	}
	storedID := old.id()
	if newID := doc.Get("_id"); !newID.IsMissing() && !value.Equal(newID, id) {
		return errs.Errorf(errs.Invalid, "cannot change _id %s to %s", id, newID).
			WithHint("_id is immutable; delete the document and insert a new one")
	}
	if doc.Get("_id").IsMissing() {
		doc = doc.With("_id", storedID)
	}
	doc, err = value.PrepareDocument(doc)
	if err != nil {
		return err
	}
	val, err := encodeDoc(doc)
	if err != nil {
		return err
	}
	if err := c.rules.Check(c.name, doc); err != nil {
		return err
	}
	before, err := c.beforeValue(old)
	if err != nil {
		return err
	}
	if err := c.maintain(before, doc); err != nil {
		return err
	}
	if err := c.docs.Put(value.AppendKey(nil, id), val); err != nil {
		return err
	}
	c.tx.record(Op{Op: OpUpdate, Coll: c.name, ID: storedID, beforeJSON: old.js})
	return nil
}

// ReplaceJSON replaces the document with the given _id by js: the
// canonical JSON of a prepared document with that _id, as value.AppendJSON
// writes a document that value.PrepareDocument accepted (a plan's
// after-image). It is Replace without the encoding: the bytes are stored
// as they are, and both images are parsed only as far as the indexes read
// (only _id and the indexed paths, when every index is a B-tree) or whole
// when validation rules apply. It checks the _id and the size, not that
// js is canonical.
func (c *Collection) ReplaceJSON(id value.Value, js []byte) error {
	return c.ReplaceJSONAt(id, js, nil, nil)
}

// ReplaceJSONAt is ReplaceJSON with two additions for apply. check, when
// set, is called first with the current document's canonical JSON (valid
// only during the call): if it returns an error, nothing is written and
// that error is returned, so a caller checks a document and replaces it
// with one read (apply checks each document's digest as it writes it).
// changed, when set, says that js differs from the current document only
// at those paths and below them: the caller knows it, as apply does when
// it writes what an update (query.Update.Paths) made of the very document
// whose digest it just checked. When the collection has no validation
// rules and its indexes are all B-trees, none of them reading a path that
// is one of changed, above one or below one (nor _id), no index entry can
// change and neither document is parsed for the indexes.
func (c *Collection) ReplaceJSONAt(id value.Value, js []byte, changed []string, check func(current []byte) error) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	if check != nil {
		cur, err := c.GetJSON(id)
		if err != nil {
			return err
		}
		if err := check(cur); err != nil {
			return err
		}
		return c.replaceJSON(id, js, cur, changed)
	}
	return c.replaceJSON(id, js, nil, changed)
}

// untouched reports whether a write that changes a document only at the
// paths changed leaves its index entries and its validity as they were.
func (c *Collection) untouched(changed []string) (bool, error) {
	if changed == nil || c.rules != nil {
		return false, nil
	}
	if len(c.meta.Indexes) == 0 {
		return !query.PathsOverlap(changed, []string{"_id"}), nil
	}
	if err := c.openIndexes(); err != nil {
		return false, err
	}
	return c.indexPathList != nil && !query.PathsOverlap(changed, c.indexPathList), nil
}

// replaceJSON is ReplaceJSONAt once writable; cur, when set, is the
// current document's JSON as GetJSON returned it.
func (c *Collection) replaceJSON(id value.Value, js, cur []byte, changed []string) error {
	if len(js) > value.MaxDocumentSize {
		return errs.Errorf(errs.Limit, "document with _id %s is %d bytes, over the %d-byte limit", id, len(js), value.MaxDocumentSize)
	}
	var old stored
	var err error
	if cur != nil {
		old, err = storedFrom(cur)
	} else {
		old, err = c.current(id)
	}
	if err != nil {
		return err
	}
	same, err := c.untouched(changed)
	if err != nil {
		return err
	}
	if !same {
		if err := c.checkReplace(id, js, old.js); err != nil {
			return err
		}
	}
	val := append(make([]byte, headerSize, headerSize+len(js)), js...)
	if err := c.docs.Put(value.AppendKey(nil, id), encodeJSON(val)); err != nil {
		return err
	}
	c.tx.record(Op{Op: OpUpdate, Coll: c.name, ID: old.id(), beforeJSON: old.js})
	return nil
}

// writePaths returns what a write must parse of a document: _id and the
// indexed paths when every index is a B-tree and no rules apply, or nil
// for the whole document.
func (c *Collection) writePaths() (*value.FieldSet, error) {
	if c.rules != nil || len(c.meta.Indexes) == 0 {
		return nil, nil
	}
	if err := c.openIndexes(); err != nil {
		return nil, err
	}
	return c.indexPaths, nil
}

// checkReplace checks the new document js of a replace (its _id and
// rules) and updates the indexes from the old one's entries to its.
func (c *Collection) checkReplace(id value.Value, js, old []byte) error {
	paths, err := c.writePaths()
	if err != nil {
		return err
	}
	doc, err := parseFor(js, paths)
	if err != nil {
		return err
	}
	if newID := doc.Get("_id"); !value.Equal(newID, id) {
		return errs.Errorf(errs.Invalid, "cannot change _id %s to %s", id, newID).
			WithHint("_id is immutable; delete the document and insert a new one")
	}
	if err := c.rules.Check(c.name, doc); err != nil {
		return err
	}
	var before value.Value
	if len(c.meta.Indexes) > 0 {
		if before, err = parseFor(old, paths); err != nil {
			return corruptValue(err.Error())
		}
	}
	return c.maintain(before, doc)
}

// parseFor parses a stored document, only the paths of fs when it is set.
func parseFor(js []byte, fs *value.FieldSet) (value.Value, error) {
	if fs == nil {
		return value.Parse(js)
	}
	return value.ParseFields(js, fs)
}

// Delete removes the document with the given _id. The before-image goes
// into the journal.
func (c *Collection) Delete(id value.Value) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	old, err := c.current(id)
	if err != nil {
		return err
	}
	before, err := c.beforeValue(old)
	if err != nil {
		return err
	}
	if err := c.maintain(before, value.Value{}); err != nil {
		return err
	}
	if err := c.docs.Delete(value.AppendKey(nil, id)); err != nil {
		return err
	}
	c.count--
	c.dirty = true
	c.tx.record(Op{Op: OpDelete, Coll: c.name, ID: old.id(), beforeJSON: old.js})
	return nil
}

// stored is a document about to be replaced or deleted: its canonical
// JSON (copied out of the store's pages) and its _id, which comes first.
type stored struct {
	js  []byte
	doc value.Value // the _id field alone
}

var idOnly = value.NewFieldSet([]string{"_id"})

// current reads the document with the given _id for a write that
// replaces it: its bytes go into the journal as they are, and it is
// parsed whole only when indexes need it.
func (c *Collection) current(id value.Value) (stored, error) {
	js, err := c.GetJSON(id)
	if err != nil {
		return stored{}, err
	}
	return storedFrom(js)
}

// storedFrom copies a document's JSON as GetJSON returned it (out of the
// store's pages) and parses its _id.
func storedFrom(js []byte) (stored, error) {
	js = bytes.Clone(js)
	doc, err := value.ParseFields(js, idOnly)
	if err != nil {
		return stored{}, corruptValue(err.Error())
	}
	return stored{js: js, doc: doc}, nil
}

func (s stored) id() value.Value { return s.doc.Get("_id") }

// beforeValue returns the whole document when indexes must be updated,
// and missing otherwise.
func (c *Collection) beforeValue(s stored) (value.Value, error) {
	if len(c.meta.Indexes) == 0 {
		return value.Value{}, nil
	}
	v, err := value.Parse(s.js)
	if err != nil {
		return value.Value{}, corruptValue(err.Error())
	}
	return v, nil
}

// Scan returns a cursor over every document in _id order.
func (c *Collection) Scan() *Cursor {
	return &Cursor{c: c.docs.Cursor()}
}

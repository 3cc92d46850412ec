package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// An index is data derived from a collection's documents and kept in step
// with them inside every write transaction: secondary B-tree indexes,
// vector indexes, full-text indexes. Each index has a definition recorded
// in the collection's metadata and the journal, and a bucket of its own.
// The store lays that bucket out: B-tree indexes are its own; a kind
// registered from outside keeps its data through Index.Vectors or
// Index.Text (one of them), typed areas whose keys and framing the store
// defines, so that Verify checks them and Compact copies them.

// IndexDef defines an index.
type IndexDef struct {
	Name string          `json:"name"`           // unique within the collection
	Kind string          `json:"kind"`           // a registered IndexKind: "btree", "vector", "search"
	Spec json.RawMessage `json:"spec,omitempty"` // kind-specific: fields, options, model
}

// IndexKind maintains one kind of index. Implementations register
// themselves with RegisterIndexKind, usually in an init function.
type IndexKind interface {
	// Prepare validates a definition before the index is created, and may
	// normalise its Spec.
	Prepare(def IndexDef) (IndexDef, error)
	// Update applies one document change to the index: before is missing
	// for an insert, after is missing for a delete. An error aborts the
	// whole transaction (a unique index refusing a duplicate key, say).
	Update(ix *Index, before, after value.Value) error
}

// IndexBuilder is an optional interface of an IndexKind that builds an
// index over existing documents faster than one Update per document.
type IndexBuilder interface {
	Build(ix *Index, docs *Cursor) error
}

// IndexChecker is an optional interface of an IndexKind that checks an
// index against the documents, for Verify. It returns problems found.
type IndexChecker interface {
	Check(ix *Index) []string
}

// IndexFlusher is an optional interface of an IndexKind that keeps state
// over a transaction (in Index.State), such as counts, and writes it at
// once. Flush is called before the transaction commits and before the
// collection's set of indexes changes; then the store writes what the kind
// buffered through Vectors and Text, in key order.
type IndexFlusher interface {
	Flush(ix *Index) error
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]IndexKind{}
)

// RegisterIndexKind makes a kind of index available by name. It panics if
// the name is taken.
func RegisterIndexKind(name string, k IndexKind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[name]; dup {
		panic("store: index kind registered twice: " + name)
	}
	kinds[name] = k
}

func indexKind(name string) (IndexKind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Index is an index of a collection, within one transaction.
type Index struct {
	Def IndexDef
	// State is the kind's own state for the transaction, such as changes
	// an IndexFlusher has not written yet; nil when the index is opened.
	State  any
	coll   *Collection
	bucket *bolt.Bucket
	kind   IndexKind
	state  any // the kind's parsed spec and cached state, for this transaction
	// pending holds the writes made through Vectors and Text until the
	// index is flushed.
	pending writeBuf
}

// Collection returns the collection the index belongs to.
func (ix *Index) Collection() *Collection { return ix.coll }

var bucketIndexes = []byte("idx")

// Indexes returns the collection's index definitions, sorted by name.
func (c *Collection) Indexes() []IndexDef {
	defs := append([]IndexDef(nil), c.meta.Indexes...)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// Index opens the named index, or returns a NotFound error. In a write
// transaction it returns the same handle every time, the one the
// collection maintains, so what is buffered through it (Vectors, Text)
// is seen by all and written before commit.
func (c *Collection) Index(name string) (*Index, error) {
	for _, def := range c.meta.Indexes {
		if def.Name == name {
			return c.openIndex(def)
		}
	}
	names := make([]string, len(c.meta.Indexes))
	for i, d := range c.meta.Indexes {
		names[i] = d.Name
	}
	return nil, wrap(errs.NotFound, ErrNotFound, "no index `%s` on collection `%s`%s", name, c.name, errs.DidYouMean(name, names)).
		WithHint("list indexes with `omgdb indexes %s %s`", c.tx.db.path, c.name)
}

func (c *Collection) openIndex(def IndexDef) (*Index, error) {
	if ix := c.opened[def.Name]; ix != nil {
		return ix, nil
	}
	kind, ok := indexKind(def.Kind)
	if !ok {
		return nil, wrap(errs.IO, ErrCorrupt, "index `%s` of collection `%s` has kind %q, which this program cannot maintain", def.Name, c.name, def.Kind).
			WithHint("use an omgdb build that includes the %s index kind", def.Kind)
	}
	var b *bolt.Bucket
	if root := c.bucket.Bucket(bucketIndexes); root != nil {
		b = root.Bucket([]byte(def.Name))
	}
	if b == nil {
		return nil, wrap(errs.IO, ErrCorrupt, "index `%s` of collection `%s` has no data bucket", def.Name, c.name)
	}
	return c.register(&Index{Def: def, coll: c, bucket: b, kind: kind}), nil
}

// register notes an index handle opened in a write transaction.
func (c *Collection) register(ix *Index) *Index {
	if c.tx.writable {
		if c.opened == nil {
			c.opened = map[string]*Index{}
		}
		c.opened[ix.Def.Name] = ix
	}
	return ix
}

// CreateIndex creates an index, builds it over the existing documents, and
// records its definition in the collection and the journal.
func (c *Collection) CreateIndex(def IndexDef) (*Index, error) {
	ixs, err := c.CreateIndexes(def)
	if err != nil {
		return nil, err
	}
	return ixs[0], nil
}

// CreateIndexes creates several indexes, as CreateIndex creates each, and
// builds the B-tree ones in one scan of the documents (as MongoDB's
// createIndexes takes several). It is atomic: when one definition is
// refused or one build fails, no index is created. A document that one of
// the B-tree indexes cannot hold is reported first, the earliest in _id
// order; then unique-key violations, index by index, in the order given.
func (c *Collection) CreateIndexes(defs ...IndexDef) ([]*Index, error) {
	if err := c.checkWritable(); err != nil {
		return nil, err
	}
	if len(defs) == 0 {
		return nil, nil
	}
	prepared := make([]IndexDef, len(defs))
	kinds := make([]IndexKind, len(defs))
	for i, def := range defs {
		kind, ok := indexKind(def.Kind)
		if !ok {
			return nil, errs.Errorf(errs.Invalid, "unknown index kind %q", def.Kind)
		}
		def, err := kind.Prepare(c.withDefaultCollation(def))
		if err != nil {
			return nil, err
		}
		if err := c.checkOneText(def, prepared[:i]); err != nil {
			return nil, err
		}
		for _, d := range c.meta.Indexes {
			if d.Name == def.Name {
				return nil, wrap(errs.Conflict, nil, "index `%s` already exists on collection `%s`", def.Name, c.name).
					WithHint("drop it first, or choose another --name")
			}
		}
		for _, d := range prepared[:i] {
			if d.Name == def.Name {
				return nil, wrap(errs.Conflict, nil, "index `%s` is given twice", def.Name).
					WithHint("give each index its own --name")
			}
		}
		prepared[i], kinds[i] = def, kind
	}
	root, err := c.bucket.CreateBucketIfNotExists(bucketIndexes)
	if err != nil {
		return nil, err
	}
	var ixs []*Index
	// undo removes the buckets created so far: a failed call creates nothing.
	undo := func(err error) ([]*Index, error) {
		for _, ix := range ixs {
			delete(c.opened, ix.Def.Name)
			if derr := root.DeleteBucket([]byte(ix.Def.Name)); derr != nil {
				return nil, fmt.Errorf("%w (and removing the half-built index %s failed: %v)", err, ix.Def.Name, derr)
			}
		}
		return nil, err
	}
	for i, def := range prepared {
		b, err := root.CreateBucket([]byte(def.Name))
		if err != nil {
			return undo(fmt.Errorf("create index bucket %s: %w", def.Name, err))
		}
		ixs = append(ixs, c.register(&Index{Def: def, coll: c, bucket: b, kind: kinds[i]}))
	}
	var btrees []*Index
	for _, ix := range ixs {
		if ix.Def.Kind == BTreeKind {
			btrees = append(btrees, ix)
		}
	}
	if len(btrees) > 0 {
		if err := buildBTrees(btrees, c.Scan()); err != nil {
			return undo(err)
		}
	}
	for _, ix := range ixs {
		if ix.Def.Kind == BTreeKind {
			continue
		}
		if err := c.buildIndex(ix); err != nil {
			return undo(err)
		}
	}
	c.meta.Indexes = append(c.meta.Indexes, prepared...)
	if err := c.flushIndexes(); err != nil {
		return nil, err
	}
	c.indexes = nil
	if err := c.saveMeta(); err != nil {
		return nil, err
	}
	for i := range prepared {
		c.tx.record(Op{Op: OpCreateIndex, Coll: c.name, Index: &prepared[i]})
	}
	return ixs, nil
}

func (c *Collection) buildIndex(ix *Index) error {
	if b, ok := ix.kind.(IndexBuilder); ok {
		if err := b.Build(ix, c.buildScan(ix)); err != nil {
			return err
		}
		return ix.pending.flush(ix.bucket)
	}
	cur := c.buildScan(ix)
	for cur.Next() {
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return err
		}
		if err := ix.kind.Update(ix, value.Value{}, doc); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return err
	}
	return flushIndex(ix)
}

// buildScan returns a cursor over the documents that reports each one
// read to the function SetBuildProgress set, if any (B-tree builds report
// their own, from their workers).
func (c *Collection) buildScan(ix *Index) *Cursor {
	cur := c.Scan()
	if _, own := ix.kind.(btreeKind); own {
		return cur
	}
	if fn := c.buildProgress; fn != nil {
		var done int64
		cur.seen = func() {
			if done++; done%256 == 0 || done == c.count {
				fn(done, c.count)
			}
		}
	}
	return cur
}

// DropIndex removes an index and its data. The definition goes into the
// journal.
func (c *Collection) DropIndex(name string) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	ix, err := c.Index(name)
	if err != nil {
		return err
	}
	if err := c.flushIndexes(); err != nil {
		return err
	}
	if err := deleteBucket(c.bucket.Bucket(bucketIndexes), []byte(name)); err != nil {
		return err
	}
	delete(c.opened, name)
	kept := c.meta.Indexes[:0]
	for _, d := range c.meta.Indexes {
		if d.Name != name {
			kept = append(kept, d)
		}
	}
	c.meta.Indexes, c.indexes = kept, nil
	if err := c.saveMeta(); err != nil {
		return err
	}
	c.tx.record(Op{Op: OpDropIndex, Coll: c.name, Index: &ix.Def})
	return nil
}

// maintain applies a document change to every index of the collection.
// It runs before the document itself is written: on error, nothing of the
// change is left in any index and the caller writes nothing.
func (c *Collection) maintain(before, after value.Value) error {
	if len(c.meta.Indexes) == 0 {
		return nil
	}
	if err := c.openIndexes(); err != nil {
		return err
	}
	for i, ix := range c.indexes {
		if err := ix.kind.Update(ix, before, after); err != nil {
			// Undo the indexes already updated, so that a caller that goes on
			// after a refused document (an import with --on-error skip) keeps
			// every index consistent with the documents.
			for j := i - 1; j >= 0; j-- {
				if uerr := c.indexes[j].kind.Update(c.indexes[j], after, before); uerr != nil {
					return fmt.Errorf("%w (and undoing index %s failed: %v)", err, c.indexes[j].Def.Name, uerr)
				}
			}
			return err
		}
	}
	return nil
}

// openIndexes opens the collection's indexes for maintenance, once, and
// notes the paths they read.
func (c *Collection) openIndexes() error {
	if c.indexes != nil {
		return nil
	}
	paths := []string{"_id"}
	for _, def := range c.meta.Indexes {
		ix, err := c.openIndex(def)
		if err != nil {
			c.indexes = nil
			return err
		}
		c.indexes = append(c.indexes, ix)
		if paths != nil && def.Kind == BTreeKind {
			t, err := btreeOf(ix)
			if err != nil {
				c.indexes = nil
				return err
			}
			for _, f := range t.spec.Fields {
				paths = append(paths, f.Path)
			}
		} else {
			paths = nil
		}
	}
	c.indexPaths, c.indexPathList = nil, paths
	if paths != nil {
		c.indexPaths = value.NewFieldSet(paths)
	}
	return nil
}

// flushIndexes has every index opened in the transaction write what it
// buffered, in name order.
func (c *Collection) flushIndexes() error {
	names := make([]string, 0, len(c.opened))
	for name := range c.opened {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := flushIndex(c.opened[name]); err != nil {
			return err
		}
	}
	return nil
}

// flushIndex has the index's kind write what it buffered (IndexFlusher),
// then writes what it buffered through Vectors and Text, in key order.
func flushIndex(ix *Index) error {
	if f, ok := ix.kind.(IndexFlusher); ok {
		if err := f.Flush(ix); err != nil {
			return err
		}
	}
	return ix.pending.flush(ix.bucket)
}

func (c *Collection) saveMeta() error {
	return c.bucket.Put(keyCollMeta, c.meta.encode())
}

package store

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Bucket and key names of the file layout.
var (
	bucketMeta        = []byte("meta")
	bucketCollections = []byte("collections")
	bucketJournal     = []byte("journal")
	bucketChanges     = []byte("changes") // change id + 0x00 + lsn -> nothing: the records of a change
	bucketDocs        = []byte("docs")
	keyFormat         = []byte("format")
	keyStoreID        = []byte("store_id")
	keyCreated        = []byte("created")
	keyCollMeta       = []byte("meta")
	keyCount          = []byte("count")
)

// Change describes the write a transaction makes, for the journal.
type Change struct {
	ID    string // change id; a new ObjectId hex when empty
	Kind  string // what made it: "insert", "import", "apply", "rollback", …
	Actor string // who made it; the DB's actor when empty
	Note  string // free text, such as the plan's description
	// Time, when set, is the record's time instead of the commit's: a
	// change carried from another store's journal (omgdb copy --history)
	// keeps the time it was made.
	Time time.Time
}

// Tx is a transaction. A Tx and the values it returns are valid only
// inside the function passed to View or Update.
type Tx struct {
	db       *DB
	btx      *bolt.Tx
	writable bool
	change   Change
	ops      []Op
	colls    map[string]*Collection // opened collections, by name
	lsn      uint64                 // the journal record written at commit
}

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(*Tx) error) (err error) {
	db.swap.RLock()
	defer db.swap.RUnlock()
	if err := db.usable(false); err != nil {
		return err
	}
	defer db.recoverPanic(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return db.bolt.View(func(btx *bolt.Tx) error {
		return fn(&Tx{db: db, btx: btx, colls: map[string]*Collection{}})
	})
}

// Update runs fn in a read-write transaction and commits it, with its
// journal record, when fn returns nil. The change is described by change,
// which may be the zero Change.
func (db *DB) Update(change Change, fn func(*Tx) error) (err error) {
	db.swap.RLock()
	defer db.swap.RUnlock()
	if err := db.usable(true); err != nil {
		return err
	}
	defer db.recoverPanic(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if change.ID == "" {
		change.ID = value.NewOID().Hex()
	}
	if change.Actor == "" {
		change.Actor = db.actor
	}
	committing := false
	err = db.bolt.Update(func(btx *bolt.Tx) error {
		tx := &Tx{db: db, btx: btx, writable: true, change: change, colls: map[string]*Collection{}}
		if err := fn(tx); err != nil {
			return err
		}
		if err := tx.finish(); err != nil {
			return err
		}
		failpoint.Hit(failpoint.Commit)
		committing = true
		return nil
	})
	if err != nil && committing {
		db.fail(err)
		return wrap(errs.IO, err, "commit to %s failed: %v", db.path, err).
			WithHint("the write is not guaranteed to be saved (usually it is not); this handle refuses further work: free disk space if the disk is full, then reopen the store and check what it holds")
	}
	return err
}

// recoverPanic turns a panic inside a transaction into an error. bbolt
// panics on some kinds of page damage; a damaged store must give an error,
// never crash the program. bbolt has already rolled the transaction back.
func (db *DB) recoverPanic(err *error) {
	if r := recover(); r != nil {
		e := wrap(errs.IO, ErrCorrupt, "store %s: internal error or damaged file: %v", db.path, r)
		e.Hint = "run `omgdb verify " + db.path + "`; if it reports damage, salvage or restore from a backup"
		*err = e
	}
}

func (db *DB) usable(write bool) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	switch {
	case db.closed:
		return wrap(errs.IO, ErrClosed, "store %s is closed", db.path)
	case db.failed != nil:
		return wrap(errs.IO, ErrFailed, "store %s: a previous commit failed (%v); reopen it", db.path, db.failed)
	case db.released != nil:
		return wrap(errs.Busy, ErrBusy, "store %s: this handle let another process in and could not take the store back (%v); reopen it", db.path, db.released)
	case write && db.readOnly:
		return wrap(errs.Denied, ErrReadOnly, "store %s is open read-only", db.path)
	}
	return nil
}

func (db *DB) fail(err error) {
	db.mu.Lock()
	db.failed = err
	db.mu.Unlock()
}

// ChangeID returns the id of the change a write transaction makes.
func (tx *Tx) ChangeID() string { return tx.change.ID }

// Writable reports whether tx can write.
func (tx *Tx) Writable() bool { return tx.writable }

// DB returns the store the transaction belongs to.
func (tx *Tx) DB() *DB { return tx.db }

// finish writes what the transaction accumulated: collection counts and
// the journal record.
func (tx *Tx) finish() error {
	for _, c := range tx.colls {
		if err := c.flush(); err != nil {
			return err
		}
	}
	if len(tx.ops) == 0 {
		return nil
	}
	return tx.appendJournal()
}

func (tx *Tx) record(op Op) {
	tx.ops = append(tx.ops, op)
}

// Grow makes room in the transaction's journal record for n more
// document writes, for a caller that knows how many it will make (a plan's
// apply): the record is not copied as it grows. It reserves at most a
// million at once.
func (tx *Tx) Grow(n int) {
	if n > 0 {
		tx.ops = slices.Grow(tx.ops, min(n, 1<<20))
	}
}

// Collections returns the names of the store's collections, sorted.
func (tx *Tx) Collections() []string {
	var names []string
	root := tx.btx.Bucket(bucketCollections)
	if root == nil {
		return nil
	}
	root.ForEachBucket(func(k []byte) error {
		names = append(names, string(k))
		return nil
	})
	return names
}

// Collection opens an existing collection. A missing collection is a
// NotFound error with a did-you-mean.
func (tx *Tx) Collection(name string) (*Collection, error) {
	if c := tx.colls[name]; c != nil {
		return c, nil
	}
	var b *bolt.Bucket
	if root := tx.btx.Bucket(bucketCollections); root != nil {
		b = root.Bucket([]byte(name))
	}
	if b == nil {
		return nil, tx.collectionNotFound(name)
	}
	return tx.open(name, b)
}

func (tx *Tx) collectionNotFound(name string) error {
	names := tx.Collections()
	e := wrap(errs.NotFound, ErrNotFound, "collection `%s` not found in %s%s", name, tx.db.path, errs.DidYouMean(name, names))
	if len(names) == 0 {
		e.Hint = "the store has no collections yet; insert or import documents to create one"
	} else {
		e.Hint = "list collections with `omgdb inspect " + tx.db.path + "`"
	}
	return e
}

// CreateCollection opens the collection, creating it if it does not exist.
func (tx *Tx) CreateCollection(name string) (*Collection, error) {
	if c, err := tx.Collection(name); err == nil {
		return c, nil
	}
	if !tx.writable {
		return nil, wrap(errs.Denied, ErrReadOnly, "cannot create collection `%s`: read-only transaction", name)
	}
	if err := ValidateCollectionName(name); err != nil {
		return nil, err
	}
	root, err := tx.btx.CreateBucketIfNotExists(bucketCollections)
	if err != nil {
		return nil, err
	}
	b, err := root.CreateBucket([]byte(name))
	if err != nil {
		return nil, err
	}
	if _, err := b.CreateBucket(bucketDocs); err != nil {
		return nil, err
	}
	meta := collMeta{Name: name, Created: time.Now().UTC().Format(time.RFC3339Nano)}
	if err := b.Put(keyCollMeta, meta.encode()); err != nil {
		return nil, err
	}
	tx.record(Op{Op: OpCreateCollection, Coll: name})
	return tx.open(name, b)
}

// DropCollection removes a collection, its documents, indexes and rules.
// Each document's before-image, each index definition and the rules go
// into the journal, so the drop can be undone.
func (tx *Tx) DropCollection(name string) error {
	c, err := tx.Collection(name)
	if err != nil {
		return err
	}
	cur := c.docs.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		js, err := docJSON(v)
		var old stored
		if err == nil {
			old, err = storedFrom(js) // the before-image goes to the journal as it is
		}
		if err != nil {
			return fmt.Errorf("drop collection %s: %w", name, err)
		}
		tx.record(Op{Op: OpDelete, Coll: name, ID: old.id(), beforeJSON: old.js})
	}
	for _, def := range c.Indexes() {
		tx.record(Op{Op: OpDropIndex, Coll: name, Index: &def})
	}
	if c.rules != nil { // cleared with the collection: a rollback defines them again
		tx.record(Op{Op: OpDefine, Coll: name, Before: c.rules.Spec()})
	}
	delete(tx.colls, name)
	if err := deleteBucket(tx.btx.Bucket(bucketCollections), []byte(name)); err != nil {
		return err
	}
	tx.record(Op{Op: OpDropCollection, Coll: name})
	return nil
}

// ValidateCollectionName checks a collection name: 1 to 120 bytes of
// letters, digits, '_', '-' and '.', not starting with '.' or '$'.
func ValidateCollectionName(name string) error {
	bad := name == "" || len(name) > 120 || name[0] == '.' || name[0] == '-'
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			bad = true
		}
	}
	if bad {
		return errs.Errorf(errs.Invalid, "invalid collection name %q", name).
			WithHint("use 1 to 120 letters, digits, '_', '-' or '.', starting with a letter, digit or '_'")
	}
	return nil
}

// deleteBucket deletes the nested bucket name of parent and everything in
// it, its own nested buckets first, each by name. bbolt's DeleteBucket
// deletes nested buckets while iterating over them, which skips one when
// the bucket was changed earlier in the transaction (its node is then in
// memory): the skipped bucket's pages leak (bbolt v1.5.0, Tx.Check:
// "unreachable unfreed"). Dropping an index or defining rules and then
// dropping the collection in one transaction did that.
func deleteBucket(parent *bolt.Bucket, name []byte) error {
	b := parent.Bucket(name)
	if b == nil {
		return parent.DeleteBucket(name) // bbolt's own error
	}
	var children [][]byte
	err := b.ForEachBucket(func(k []byte) error {
		children = append(children, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range children {
		if err := deleteBucket(b, k); err != nil {
			return err
		}
	}
	return parent.DeleteBucket(name)
}

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// copyDefs are what copy carries of a collection besides its documents.
type copyDefs struct {
	rules   value.Value      // omgdb's validation rules; Missing: none
	indexes []store.IndexDef // by name, without the _id index
}

// copyEnd is one side of a copy, a store file or a MongoDB database, as
// copy reads it.
type copyEnd interface {
	// where names the end in messages, without credentials.
	where() string
	collections(ctx context.Context) ([]string, error)
	defs(ctx context.Context, coll string) (copyDefs, error)
	// scan calls each with coll's documents in _id order, leaving out
	// those whose _id is not above after (Missing: none left out).
	scan(ctx context.Context, coll string, after value.Value, each func(value.Value) error) error
	// state says whether coll exists, its count and its greatest _id
	// (Missing when it has no document).
	state(ctx context.Context, coll string) (exists bool, n int64, last value.Value, err error)
	close() error
}

// copyTarget is the end a copy writes to.
type copyTarget interface {
	copyEnd
	// prepare runs before any document is written, for every collection:
	// it refuses definitions the end cannot hold.
	prepare(ctx context.Context, coll string, defs copyDefs) error
	// write writes the documents that feed passes on, in batches, and
	// returns how many it wrote, also when it fails.
	write(ctx context.Context, coll string, feed func(each func(value.Value) error) error) (int64, error)
	// finish sets coll's rules and indexes once its documents are in.
	finish(ctx context.Context, coll string, defs copyDefs) error
	// abandon removes coll, which prepare created, when the copy stops
	// before writing documents.
	abandon(ctx context.Context, coll string) error
}

// skipThrough wraps each to leave out the documents whose _id is not
// above after: a resumed copy reads the source again from its start, in
// _id order, and writes only what follows the target's last _id.
func skipThrough(after value.Value, each func(value.Value) error) func(value.Value) error {
	if after.IsMissing() {
		return each
	}
	return func(doc value.Value) error {
		if value.Compare(doc.Get("_id"), after) <= 0 {
			return nil
		}
		return each(doc)
	}
}

// fileEnd is a store file.
type fileEnd struct {
	path string
	db   *store.DB
	eng  *engine.File
	// batch is the number of documents per transaction when written to.
	batch int
}

func newFileEnd(db *store.DB, path string, batch int) *fileEnd {
	return &fileEnd{path: path, db: db, eng: engine.NewFile(db), batch: batch}
}

func (f *fileEnd) where() string { return f.path }

func (f *fileEnd) close() error { return f.db.Close() }

func (f *fileEnd) collections(ctx context.Context) ([]string, error) {
	return f.eng.Collections(ctx)
}

func (f *fileEnd) defs(_ context.Context, coll string) (copyDefs, error) {
	var d copyDefs
	err := f.db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		if r := c.Rules(); r != nil {
			d.rules = r.Spec()
		}
		d.indexes = c.Indexes()
		return nil
	})
	return d, err
}

func (f *fileEnd) scan(ctx context.Context, coll string, after value.Value, each func(value.Value) error) error {
	return f.eng.Find(ctx, coll, &engine.Find{}, skipThrough(after, each))
}

func (f *fileEnd) state(ctx context.Context, coll string) (bool, int64, value.Value, error) {
	names, err := f.collections(ctx)
	if err != nil || !slices.Contains(names, coll) {
		return false, 0, value.Value{}, err
	}
	var n int64
	var last value.Value
	err = f.db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		n = c.Count()
		return err
	})
	if err != nil || n == 0 {
		return true, n, last, err
	}
	desc := value.ObjectValue([]value.Field{{Key: "_id", Value: value.IntValue(-1)}})
	err = f.eng.Find(ctx, coll, &engine.Find{Sort: desc, Limit: 1}, func(doc value.Value) error {
		last = doc.Get("_id")
		return nil
	})
	return true, n, last, err
}

// prepare refuses a collection name a store file cannot hold (a MongoDB
// collection may have one), before any document is written.
func (f *fileEnd) prepare(_ context.Context, coll string, _ copyDefs) error {
	return store.ValidateCollectionName(coll)
}

// abandon has nothing to undo: prepare creates nothing in a store file.
func (f *fileEnd) abandon(context.Context, string) error { return nil }

// write imports the documents through the store's journaled import: in
// batches of f.batch documents, each one transaction, all one change of
// kind "copy" that history shows and rollback undoes. An _id already in
// the collection stops it (a copy never merges).
func (f *fileEnd) write(ctx context.Context, coll string, feed func(each func(value.Value) error) error) (int64, error) {
	pr, pw := io.Pipe()
	fed := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
		err := feed(func(doc value.Value) error {
			bw.Write(value.JSON(doc))
			return bw.WriteByte('\n')
		})
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
		fed <- err
	}()
	sum, err := f.db.Import(ctx, coll, pr, &store.ImportOptions{BatchSize: f.batch, Kind: "copy"})
	pr.CloseWithError(errCopyStopped)
	ferr := <-fed
	var n int64
	if sum != nil {
		n = sum.Inserted
	}
	if ferr != nil && !errors.Is(ferr, errCopyStopped) {
		return n, ferr // the source failed: its error, not the import's
	}
	return n, f.documentError(coll, err, sum)
}

// documentError turns the error of an import stopped by a document the
// collection refused ("line N: …", with a hint about import's flags) into
// copy's: the document's error, naming the collection.
func (f *fileEnd) documentError(coll string, err error, sum *store.ImportSummary) error {
	var e *errs.Error
	if err == nil || sum == nil || sum.StoppedAt == 0 || !errors.As(err, &e) || e.Err == nil {
		return err
	}
	out := errs.Errorf(errs.KindOf(e.Err), "copy into `%s` of %s: %v", coll, f.path, e.Err)
	out.Err, out.Hint = e.Err, errs.HintOf(e.Err)
	return out
}

// errCopyStopped ends the feed of a write that stopped.
var errCopyStopped = errors.New("copy stopped")

// finish creates the collection (an empty one too), then sets its rules
// and creates its indexes in one transaction, leaving alone those that
// are already there, as an earlier run of a resumed copy left them.
func (f *fileEnd) finish(ctx context.Context, coll string, defs copyDefs) error {
	if done, err := f.finished(coll, defs); done || err != nil {
		return err
	}
	return f.db.Update(store.Change{Kind: "copy"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		if !defs.rules.IsMissing() && !sameRules(c.Rules(), defs.rules) {
			if _, err := c.Define(defs.rules); err != nil {
				return err
			}
		}
		todo, err := missingIndexes(c, defs.indexes)
		if err != nil {
			return err
		}
		if _, err := c.CreateIndexes(todo...); err != nil {
			return err
		}
		return ctx.Err()
	})
}

// finished reports whether coll exists with defs' rules and indexes, as
// a resumed copy finds a collection whose copy ended.
func (f *fileEnd) finished(coll string, defs copyDefs) (bool, error) {
	done := false
	err := f.db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return nil
		}
		if !sameRules(c.Rules(), defs.rules) {
			return nil
		}
		todo, err := missingIndexes(c, defs.indexes)
		done = err == nil && len(todo) == 0
		return err
	})
	return done, err
}

// sameRules reports whether a collection's rules are want (Missing: none).
func sameRules(have *store.Rules, want value.Value) bool {
	if have == nil {
		return want.IsMissing()
	}
	return !want.IsMissing() && bytes.Equal(value.JSON(have.Spec()), value.JSON(want))
}

// missingIndexes returns the indexes of want that c does not have; one
// that c has under the same name with another definition is a conflict.
func missingIndexes(c *store.Collection, want []store.IndexDef) ([]store.IndexDef, error) {
	have := c.Indexes()
	var todo []store.IndexDef
	for _, def := range want {
		i := slices.IndexFunc(have, func(h store.IndexDef) bool { return h.Name == def.Name })
		if i < 0 {
			todo = append(todo, def)
			continue
		}
		if have[i].Kind != def.Kind || !sameJSON(have[i].Spec, def.Spec) {
			return nil, errs.Errorf(errs.Conflict, "collection `%s` already has an index `%s` defined otherwise than in the source", c.Name(), def.Name).
				WithHint("drop the index from the target (omgdb drop-index) and resume the copy")
		}
	}
	return todo, nil
}

// sameJSON reports whether two JSON texts are the same value.
func sameJSON(a, b []byte) bool {
	va, err1 := value.Parse(a)
	vb, err2 := value.Parse(b)
	return err1 == nil && err2 == nil && bytes.Equal(value.JSON(va), value.JSON(vb))
}

package shell

import (
	"errors"
	"fmt"
	"os"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

// open opens the store for one statement's work: read-only for reads
// (never creating it), read-write for writes (creating it, as insert
// does, when create is set).
func (s *Shell) open(write, create bool) *store.DB {
	if s.opts.Engine != nil {
		s.throw(s.notOnEngine())
	}
	if s.opts.Store == "" {
		s.throw(errs.Errorf(errs.Usage, "no store: the shell was started without one").
			WithHint("start it with a store file: omgdb shell app.omgdb"))
	}
	db, err := store.Open(s.opts.Store, &store.Options{
		ReadOnly: !write,
		Create:   write && create,
		Timeout:  s.opts.LockTimeout,
		Actor:    "shell",
	})
	s.must(err)
	if db.Created() {
		fmt.Fprintf(s.opts.Err, "created store %s\n", s.opts.Store)
	}
	return db
}

// view runs fn in a read transaction of the store.
func (s *Shell) view(fn func(*store.Tx) error) {
	db := s.open(false, false)
	defer db.Close()
	s.must(db.View(fn))
}

// collection runs fn on a collection in a read transaction.
func (s *Shell) collection(name string, fn func(*store.Collection) error) {
	s.view(func(tx *store.Tx) error {
		c, err := tx.Collection(name)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

// write runs fn in one journaled write transaction of the given kind and
// returns the change id it committed under.
func (s *Shell) write(kind string, create bool, fn func(*store.Tx) error) string {
	db := s.open(true, create)
	defer db.Close()
	var id string
	s.must(db.Update(store.Change{Kind: kind}, func(tx *store.Tx) error {
		id = tx.ChangeID()
		return fn(tx)
	}))
	return id
}

// withDB runs fn with the store opened for writing.
func (s *Shell) withDB(create bool, fn func(*store.DB) error) {
	db := s.open(true, create)
	defer db.Close()
	s.must(fn(db))
}

// storeExists reports whether the store file is there.
func (s *Shell) storeExists() bool {
	_, err := os.Stat(s.opts.Store)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

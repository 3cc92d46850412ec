package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// FormatVersion is the version of the file layout this code writes. A store
// with a newer version is refused rather than misread. Version 2 added the
// int, decimal, timestamp, regex, minKey and maxKey types, which a version
// 1 reader would misread or refuse; a version 1 store is upgraded when it
// is opened for writing (upgradeFormat). See docs/file-format.md.
const FormatVersion = 2

// DefaultTimeout is how long Open waits for the store's lock by default.
const DefaultTimeout = 5 * time.Second

// Options configures Open. A nil *Options means the defaults.
type Options struct {
	// ReadOnly opens the store with a shared lock; writes fail with
	// ErrReadOnly and nothing is ever written. Default false.
	ReadOnly bool
	// Create creates the file when it does not exist. Without it, opening a
	// missing store is a NotFound error. Default false (reads never create).
	Create bool
	// Timeout bounds the wait for the lock. Zero means DefaultTimeout; a
	// negative value means do not wait at all. An Import that hands the
	// lock to a waiting process between batches (handoff.go) waits 30 s,
	// or Timeout when longer, to take it back.
	Timeout time.Duration
	// NoSync skips fsync on commit. Unsafe: for tests and bulk loads whose
	// result is thrown away on failure. Default false.
	NoSync bool
	// Actor names who writes, for the journal ("cli", "mcp:<client>").
	// Default "library".
	Actor string
}

// DB is an open store. It is safe for concurrent use: bbolt serialises
// writers and lets readers run beside them.
type DB struct {
	path     string
	bolt     *bolt.DB
	file     *os.File // bolt's file, for the handoff's signals
	readOnly bool
	created  bool
	format   int // the store's format version, set by init
	actor    string

	mu       sync.Mutex // guards failed, released and closed
	failed   error      // set when a commit fails; every later write returns ErrFailed
	released error      // set when a handoff could not take the store back
	closed   bool

	// swap guards the bolt field: transactions hold it shared, a lock
	// handoff (handoff.go) exclusively while it closes and reopens bolt.
	swap    sync.RWMutex
	timeout time.Duration // the lock wait Open was given, for reopening
	noSync  bool

	metas metaCache // decoded collection metadata, for read transactions
}

// Open opens the store at path. See Options for the defaults.
func Open(path string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	created, err := checkPath(path, opts)
	if err != nil {
		return nil, err
	}
	if created {
		if err := createStore(path); err != nil {
			return nil, err
		}
	}
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultTimeout
	case timeout < 0:
		timeout = time.Nanosecond
	}
	bdb, file, err := openCurrent(path, timeout, opts, false)
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, bolt: bdb, file: file, readOnly: opts.ReadOnly, created: created, actor: opts.Actor,
		timeout: timeout, noSync: opts.NoSync}
	if db.actor == "" {
		db.actor = "library"
	}
	if err := db.init(); err != nil {
		bdb.Close()
		return nil, err
	}
	return db, nil
}

// openCurrent opens the file at path and takes its lock. Compaction
// replaces a store's file by renaming a new one over it while holding the
// old one's lock, so a process that was waiting for that lock wakes up
// holding the lock of a file that no longer has a name: writes there would
// be lost. openCurrent checks, once it holds the lock, that the file it
// locked is still the one at path, and otherwise opens the new one.
//
// The lock itself is taken by lockFile (lock_linux.go), which signals
// that this process waits so that an import hands the store over; resuming
// says this is that import taking the store back.
func openCurrent(path string, timeout time.Duration, opts *Options, resuming bool) (*bolt.DB, *os.File, error) {
	deadline := time.Now().Add(timeout)
	for {
		var f *os.File
		bdb, err := openBolt(path, &bolt.Options{
			Timeout:         max(time.Until(deadline), time.Nanosecond),
			ReadOnly:        opts.ReadOnly,
			NoSync:          opts.NoSync,
			FreelistType:    bolt.FreelistMapType,
			InitialMmapSize: initialMmapSize(path),
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				file, err := os.OpenFile(name, flag, perm)
				if err != nil {
					return nil, err
				}
				if err := lockFile(file, !opts.ReadOnly, resuming, deadline); err != nil {
					file.Close()
					return nil, err
				}
				f = file
				return file, nil
			},
		})
		if err != nil {
			return nil, nil, openError(path, timeout, err)
		}
		if f == nil || isCurrent(path, f) {
			return bdb, f, nil
		}
		bdb.Close()
		if time.Now().After(deadline) {
			return nil, nil, openError(path, timeout, berrors.ErrTimeout)
		}
	}
}

// initialMmapSize is how much of the file bbolt maps at open: twice its
// size, so that a commit that rewrites much of the file (an update spread
// over a whole collection dirties most of its leaf pages, all written to
// new pages) does not grow the file past the mapping. Growing the mapping
// in a commit remaps the file and first copies every dirty node's keys and
// values out of it (bbolt's dereference): measured at 0.3 s of an update
// of 83,000 of 1,000,000 documents. It reserves address space, not
// memory; bbolt rounds it up as it would the file's size.
func initialMmapSize(path string) int {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > math.MaxInt/4 {
		return 0
	}
	return 2 * int(fi.Size())
}

// isCurrent reports whether f is the file that path names now.
func isCurrent(path string, f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(fi, now)
}

// openBolt opens the bbolt file, turning a panic on a damaged file into an
// error.
func openBolt(path string, opts *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged file: %v", r)
		}
	}()
	return bolt.Open(path, 0o644, opts)
}

// checkPath reports whether the file will be created, and refuses what
// cannot be a store: a directory, a missing file without Create.
func checkPath(path string, opts *Options) (bool, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return false, errs.Errorf(errs.Invalid, "%s is not a regular file", path).
			WithHint("a store is one file, such as app.omgdb")
	case err == nil && fi.Size() == 0 && opts.ReadOnly:
		// A read-only open cannot initialise it, and bbolt's error would be
		// about a failed write.
		return false, wrap(errs.IO, ErrCorrupt, "%s is an empty file, not an omgdb store", path).
			WithHint("delete it, or write to it (insert, import) to make it a store")
	case err == nil:
		return false, nil
	case !errors.Is(err, os.ErrNotExist):
		return false, wrap(errs.IO, err, "cannot open store %s: %v", path, err)
	case opts.Create && !opts.ReadOnly:
		return true, nil
	}
	e := wrap(errs.NotFound, ErrNotFound, "store not found: %s", path)
	e.Hint = missingStoreHint(path)
	return false, e
}

// createStore makes a new, laid-out store at path without ever letting a
// half-made file appear under that name, so that a process killed while
// creating a store leaves either no store or a whole one. It builds the
// store in a temporary file beside path, syncs it, links it into place and
// syncs the directory. When another process creates the same store at the
// same moment, one link wins and both then open the same file.
func createStore(path string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".creating-"+value.NewOID().Hex())
	defer os.Remove(tmp)
	bdb, err := openBolt(tmp, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return wrap(errs.IO, err, "cannot create store %s: %v", path, err)
	}
	err = (&DB{path: path, bolt: bdb}).layout()
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = os.Link(tmp, path); errors.Is(err, os.ErrExist) {
			err = nil
		}
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return wrap(errs.IO, err, "cannot create store %s: %v", path, err)
	}
	return nil
}

// SyncDir fsyncs a directory, so that a new name in it survives a crash
// (the CLI's files written by rename use it too).
func SyncDir(dir string) error { return syncDir(dir) }

// syncDir fsyncs a directory, so that a new name in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func missingStoreHint(path string) string {
	dir := filepath.Dir(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "*.omgdb"))
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(m)
	}
	if s, ok := errs.Suggest(filepath.Base(path), names); ok {
		return fmt.Sprintf("did you mean %s?", filepath.Join(dir, s))
	}
	if len(names) > 0 && len(names) <= 5 {
		return "stores in " + dir + ": " + strings.Join(names, ", ")
	}
	return "create it by inserting or importing into it, or with `omgdb create " + path + "`"
}

func openError(path string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		e := wrap(errs.Busy, ErrBusy, "store %s is busy: another process holds its lock (waited %s)", path, timeout)
		e.Hint = "retry in a moment; a writer holds the store (find it with `fuser " + path + "`)"
		return e
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		e := wrap(errs.IO, ErrCorrupt, "%s is not a valid omgdb store: %v", path, err)
		e.Hint = "check the path; if this is a damaged store, run `omgdb verify` on a copy"
		return e
	case errors.Is(err, os.ErrPermission):
		return wrap(errs.IO, err, "cannot open store %s: permission denied", path).
			WithHint("check the file's permissions, or open it read-only")
	}
	e := wrap(errs.IO, ErrCorrupt, "cannot open store %s: %v", path, err)
	e.Err = err
	return e
}

// init checks the format of an existing store, or lays out a new one.
func (db *DB) init() (err error) {
	defer db.recoverPanic(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var format []byte
	empty := true
	err = db.bolt.View(func(btx *bolt.Tx) error {
		if size := db.Size(); btx.Size() > size {
			return fmt.Errorf("file is truncated: its header says %d bytes, it has %d", btx.Size(), size)
		}
		if b := btx.Bucket(bucketMeta); b != nil {
			format = append([]byte(nil), b.Get(keyFormat)...)
		}
		return btx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
	})
	if err != nil {
		return wrap(errs.IO, ErrCorrupt, "store %s is damaged: %v", db.path, err).
			WithHint("restore it from a backup; `omgdb verify` on a copy says more")
	}
	switch {
	case format != nil:
		return db.checkFormat(format)
	case !empty:
		e := wrap(errs.IO, ErrCorrupt, "%s is a bbolt file but not an omgdb store (no format record)", db.path)
		e.Hint = "check the path"
		return e
	case db.readOnly:
		// A new file whose layout was never committed: nothing to read.
		return nil
	}
	return db.layout()
}

func (db *DB) checkFormat(format []byte) error {
	var v int
	if _, err := fmt.Sscanf(string(format), "%d", &v); err != nil {
		return wrap(errs.IO, ErrCorrupt, "store %s has an unreadable format record %q", db.path, format)
	}
	if v > FormatVersion {
		return wrap(errs.IO, ErrCorrupt, "store %s has format %d; this omgdb reads format %d and older", db.path, v, FormatVersion).
			WithHint("upgrade omgdb")
	}
	db.format = v
	if v < FormatVersion && !db.readOnly {
		return db.upgradeFormat(v)
	}
	return nil
}

// upgradeFormat brings a store of an older format to FormatVersion when it
// is opened for writing, in one transaction. From 1 to 2 nothing stored
// changes (every version 1 value reads the same in version 2); the format
// record alone is raised, so that older omgdb binaries refuse the store
// instead of misreading the new types it may now hold. A read-only open
// leaves an older store as it is: it reads it unchanged.
func (db *DB) upgradeFormat(from int) error {
	err := db.bolt.Update(func(btx *bolt.Tx) error {
		return btx.Bucket(bucketMeta).Put(keyFormat, []byte(fmt.Sprint(FormatVersion)))
	})
	if err != nil {
		return wrap(errs.IO, err, "upgrade store %s from format %d to %d: %v", db.path, from, FormatVersion, err)
	}
	db.format = FormatVersion
	return nil
}

func (db *DB) layout() error {
	db.format = FormatVersion
	return db.bolt.Update(func(btx *bolt.Tx) error {
		meta, err := btx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		for k, v := range map[string]string{
			string(keyFormat):  fmt.Sprint(FormatVersion),
			string(keyStoreID): value.NewOID().Hex(),
			string(keyCreated): now.Format(time.RFC3339Nano),
		} {
			if err := meta.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		for _, name := range [][]byte{bucketCollections, bucketJournal} {
			if _, err := btx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// Path returns the file the store lives in.
func (db *DB) Path() string { return db.path }

// Created reports whether Open created the file.
func (db *DB) Created() bool { return db.created }

// ReadOnly reports whether the store was opened read-only.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Close releases the file and its lock. It is idempotent.
func (db *DB) Close() error {
	db.mu.Lock()
	closed := db.closed
	db.closed = true
	db.mu.Unlock()
	if closed {
		return nil
	}
	db.swap.Lock() // after db.mu, never inside it: View takes swap, then mu
	defer db.swap.Unlock()
	if db.bolt == nil { // a handoff could not take the store back
		return nil
	}
	return db.bolt.Close()
}

// Size returns the size of the store file in bytes.
func (db *DB) Size() int64 {
	fi, err := os.Stat(db.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Format returns the store's format version: FormatVersion, or an older
// one for a store opened read-only (which is never upgraded). A new store
// opened read-only before its layout was written reports 0.
func (db *DB) Format() int { return db.format }

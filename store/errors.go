package store

import (
	"errors"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
)

// Sentinel errors. Errors returned by the store are *errs.Error values
// (with a Kind and a Hint) that wrap one of these where it applies, so
// callers can test with errors.Is.
var (
	// ErrNotFound is wrapped by errors about a missing store, collection or document.
	ErrNotFound = errors.New("store: not found")
	// ErrBusy is wrapped when the store's lock could not be taken in time.
	ErrBusy = errors.New("store: busy")
	// ErrReadOnly is returned by writes through a read-only handle.
	ErrReadOnly = errors.New("store: opened read-only")
	// ErrDuplicateID is wrapped when an insert reuses an existing _id.
	ErrDuplicateID = errors.New("store: duplicate _id")
	// ErrClosed is returned by operations on a closed DB.
	ErrClosed = errors.New("store: closed")
	// ErrCorrupt is wrapped by errors about damaged or foreign files.
	ErrCorrupt = errors.New("store: corrupt")
	// ErrFailed is returned after a commit failed (for example an fsync):
	// the handle must be closed and the store reopened; a failed fsync is
	// never retried.
	ErrFailed = errors.New("store: a previous commit failed; reopen the store")
	// ErrReplaced is wrapped when an import that handed the store to
	// another process finds, on taking it back, a different file at its
	// path (not its store, or without its last batch).
	ErrReplaced = errors.New("store: replaced during a lock handoff")
)

func wrap(kind errs.Kind, sentinel error, format string, args ...any) *errs.Error {
	e := errs.Errorf(kind, format, args...)
	e.Err = sentinel
	return e
}

// ErrDuplicateKey is wrapped when a write would give two documents the same
// key in a unique index.
var ErrDuplicateKey = errors.New("store: duplicate key in unique index")

// ErrRuleViolation is wrapped when a document breaks its collection's
// validation rules.
var ErrRuleViolation = rules.ErrViolation

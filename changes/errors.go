package changes

import (
	"errors"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// Sentinel errors. Errors returned by this package are *errs.Error values
// (with a Kind and a Hint) that wrap one of these where it applies, so
// callers can test with errors.Is.
var (
	// ErrNotFound is wrapped by errors about an unknown plan token, change
	// id, snapshot or revision.
	ErrNotFound = errors.New("changes: not found")
	// ErrConflict is wrapped when documents changed since a plan was made
	// or since a change was applied (see ConflictError).
	ErrConflict = errors.New("changes: documents changed")
	// ErrNotPending is wrapped when a plan cannot be applied or discarded
	// because it was already applied, discarded, or has expired.
	ErrNotPending = errors.New("changes: plan is not pending")
	// ErrRolledBack is wrapped when a change was already rolled back.
	ErrRolledBack = errors.New("changes: change already rolled back")
)

// maxListed bounds how many documents an error message names; the error
// value carries all of them.
const maxListed = 10

// ConflictError reports the documents that changed since a plan was made
// (apply) or since a change was applied (rollback). Nothing was written.
// Its message names the first documents; Docs lists every one.
type ConflictError struct {
	Docs []DocRef    // every document that changed
	Err  *errs.Error // kind Conflict, wrapping ErrConflict; its text is the message
}

func (e *ConflictError) Error() string { return e.Err.Error() }

// Unwrap returns the *errs.Error, which wraps ErrConflict.
func (e *ConflictError) Unwrap() error { return e.Err }

// DocRef names a document: its collection and _id.
type DocRef struct {
	Collection string `json:"collection"`
	ID         Doc    `json:"_id"`
}

func (r DocRef) String() string { return r.Collection + " " + r.ID.String() }

func newConflict(docs []DocRef, hint, format string, args ...any) *ConflictError {
	e := errs.Errorf(errs.Conflict, "%s: %s", fmt.Sprintf(format, args...), listDocs(docs))
	e.Err, e.Hint = ErrConflict, hint
	return &ConflictError{Docs: docs, Err: e}
}

// listDocs names the first maxListed documents of docs.
func listDocs(docs []DocRef) string {
	names := make([]string, 0, maxListed)
	for i, d := range docs {
		if i == maxListed {
			names = append(names, fmt.Sprintf("and %d more", len(docs)-maxListed))
			break
		}
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

func wrap(kind errs.Kind, sentinel error, format string, args ...any) *errs.Error {
	e := errs.Errorf(kind, format, args...)
	e.Err = sentinel
	return e
}

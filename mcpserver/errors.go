package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Stable error codes of the tool error envelope. Agents branch on these;
// they are only ever added to, never renamed.
const (
	CodeScopeDenied     = "SCOPE_DENIED"     // the tool needs a wider scope than the server's
	CodePolicyDenied    = "POLICY_DENIED"    // refused by a policy flag (--tools, --collections, a canned tool's reject filter, …)
	CodePathDenied      = "PATH_DENIED"      // the path is outside the root, not the pinned store, or not a regular file
	CodeNotFound        = "NOT_FOUND"        // a store, collection, tool, resource or document that does not exist
	CodeInvalidArgument = "INVALID_ARGUMENT" // an argument is missing, unknown, of the wrong type or out of range
	CodeInvalidFilter   = "INVALID_FILTER"   // the filter does not compile
	CodeConflict        = "CONFLICT"         // a duplicate _id, a changed plan
	CodeBusy            = "BUSY"             // another process holds the store's lock; retry
	CodeLimitExceeded   = "LIMIT_EXCEEDED"   // a configured limit was exceeded (time, size)
	CodeInternal        = "INTERNAL"         // an I/O failure, corruption, or a bug
)

// toolError is a failure a tool reports to the agent as a result with
// isError set. Its message is the library's message, unchanged.
type toolError struct {
	code      string
	msg       string
	hint      string
	retryable bool
	next      []string    // tools worth calling next (filtered to the listed ones when sent)
	context   value.Value // details: the tool, argument, path, limit… (an object or missing)
}

func (e *toolError) Error() string { return e.msg }

// errorf returns a toolError with the given code and message.
func errorf(code, format string, args ...any) *toolError {
	return &toolError{code: code, msg: fmt.Sprintf(format, args...)}
}

func (e *toolError) withHint(format string, args ...any) *toolError {
	e.hint = fmt.Sprintf(format, args...)
	return e
}

func (e *toolError) withNext(tools ...string) *toolError {
	e.next = append(e.next, tools...)
	return e
}

func (e *toolError) withContext(kv ...any) *toolError {
	e.context = obj(kv...)
	return e
}

// asToolError classifies any error a tool returned. timeout is the
// server's per-call limit, named in the message when it fired.
func asToolError(err error, name string, timeout string) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errorf(CodeLimitExceeded, "tool `%s` took longer than the %s limit (--timeout)", name, timeout).
			withHint("narrow the filter, lower the limit, or ask for a longer --timeout")
	}
	var qe *errs.Error
	if !errors.As(err, &qe) {
		return errorf(CodeInternal, "%s", err.Error()).withHint("this is unexpected; report it if it persists")
	}
	e := &toolError{code: codeOfKind(qe.Kind, err), msg: qe.Error(), hint: manualRef().ReplaceAllString(errs.HintOf(err), "the manual page omgdb://docs/$1")}
	e.retryable = e.code == CodeBusy
	return e
}

// codeOfKind maps an error kind (errs.Kind) to the tool error code an
// agent reads.
func codeOfKind(kind errs.Kind, err error) string {
	switch kind {
	case errs.Invalid, errs.Usage:
		return CodeInvalidArgument
	case errs.NotFound:
		return CodeNotFound
	case errs.Conflict:
		return CodeConflict
	case errs.Busy:
		return CodeBusy
	case errs.Limit:
		return CodeLimitExceeded
	case errs.Denied:
		if errors.Is(err, store.ErrReadOnly) {
			return CodeScopeDenied
		}
		return CodePolicyDenied
	}
	return CodeInternal
}

// manualRef finds the CLI's pointers to the manual in hints; an agent
// reads the same pages as resources.
// (Compiled on first use, to keep it out of every command's start-up.)
var manualRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`omgdb docs ([a-z-]+)`") })

// filterError marks a filter's compile error as INVALID_FILTER.
func filterError(err error) error {
	if errs.KindOf(err) != errs.Invalid {
		return err
	}
	e := asToolError(err, "", "")
	e.code, e.next = CodeInvalidFilter, []string{"describe"}
	return e
}

// text returns the error as the CLI prints it, without the "error: "
// prefix: the message and, on a second line, the hint.
func (e *toolError) text() string {
	if e.hint == "" {
		return e.msg
	}
	return e.msg + "\nhint: " + e.hint
}

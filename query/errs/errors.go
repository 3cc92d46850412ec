package errs

import (
	"errors"
	"fmt"
)

// Kind classifies an error so that callers can react to it without
// parsing its message. The CLI maps kinds to its exit codes and the MCP
// server to its error codes; this package knows neither.
type Kind uint8

// The kinds of Error. The zero kind is Invalid: bad input data.
const (
	Invalid  Kind = iota // malformed or semantically invalid input: fix the input and try again
	Usage                // a command or option used wrongly: fix the call
	NotFound             // a store, collection, document, plan or index that does not exist
	Conflict             // a unique key taken, a plan whose documents changed: the state moved on
	IO                   // an I/O failure or corruption, and any failure without a kind
	Busy                 // the store is locked by another process: retry later
	Denied               // refused by policy or scope: the caller may not do this
	Limit                // a configured limit was exceeded: ask for less, or raise the limit
)

var kindNames = [...]string{"invalid", "usage", "not found", "conflict", "io", "busy", "denied", "limit"}

// String returns the kind's name, such as "not found".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is omgdb's structured error. Its Error() text is the product: the
// CLI and the MCP server print it unchanged, followed by Hint.
type Error struct {
	Kind    Kind   // how a caller may react
	Message string // what went wrong, naming the exact token, field or line
	Hint    string // what to do about it; may be empty
	Err     error  // the underlying cause, if any
}

// Error returns the message, without the hint.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// WithHint sets the hint and returns e, for chaining.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// KindOf reports the kind of the first *Error in err's chain, or IO for an
// error that carries none (an unclassified failure is treated as I/O).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return IO
}

// HintOf returns the first non-empty hint in err's chain.
func HintOf(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}

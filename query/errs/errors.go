package query

import (
	"errors"
	"fmt"
)

// ErrorKind classifies an error so that callers (the CLI's exit codes, the
// MCP server's error codes) can react without parsing messages.
type ErrorKind uint8

// The kinds of Error. The zero kind is Invalid: bad input data.
const (
	Invalid  ErrorKind = iota // malformed or semantically invalid input (exit 65)
	Usage                     // a command or option used wrongly (exit 64)
	NotFound                  // a store, collection, document, plan or index that does not exist (exit 66)
	Conflict                  // a unique key taken, a plan whose documents changed (exit 69)
	IO                        // an I/O failure or corruption (exit 74)
	Busy                      // the store is locked by another process; retry (exit 75)
	Denied                    // refused by policy or scope (exit 77)
	Limit                     // a configured limit was exceeded (exit 65)
)

var kindNames = [...]string{"invalid", "usage", "not found", "conflict", "io", "busy", "denied", "limit"}

func (k ErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is omgdb's structured error. Its Error() text is the product: the
// CLI and the MCP server print it unchanged, followed by Hint.
type Error struct {
	Kind    ErrorKind
	Message string // what went wrong, naming the exact token, field or line
	Hint    string // what to do about it; may be empty
	Err     error  // the underlying cause, if any
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// WithHint sets the hint and returns e, for chaining.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// KindOf reports the kind of the first *Error in err's chain, or IO for an
// error that carries none (an unclassified failure is treated as I/O).
func KindOf(err error) ErrorKind {
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

// Limits on input. They are variables so that tools can document them; the
// store and servers pass their own configured values where they differ.
const (
	MaxDepth        = 100      // maximum nesting of objects and arrays
	MaxDocumentSize = 16 << 20 // maximum size of one document's JSON text, in bytes
)

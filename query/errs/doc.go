// Package errs holds the error kinds that every layer of omgdb shares.
// It imports no other omgdb package, so that any package may use it.
//
// # Errors
//
// An *Error carries a Kind, a Message that names the exact token, field or
// line at fault, a Hint that says what to do about it (possibly empty)
// and the underlying cause, if any. Its Error() text is the message alone:
// the CLI and the MCP server print it unchanged, followed by the hint.
// Errorf makes one; WithHint sets the hint. KindOf and HintOf read the
// first kind and the first non-empty hint along a chain of wrapped errors.
//
// # Kinds
//
// A kind says how a caller may react, never how the caller reports it:
// Invalid (bad input data: fix it), Usage (a command or option used
// wrongly), NotFound (no such store, collection, document, plan or index),
// Conflict (the state moved on: a unique key taken, a plan whose documents
// changed), IO (an I/O failure or corruption), Busy (locked by another
// process: retry), Denied (refused by policy or scope) and Limit (a
// configured limit exceeded). The zero kind is Invalid; an error that
// carries no *Error counts as IO, an unclassified failure. The CLI maps
// kinds to its exit codes and the MCP server to its error codes; this
// package knows neither.
//
// # Suggestions
//
// Suggest and DidYouMean find the candidate within edit distance 2 of a
// misspelt name (an operator, a stage, an option) for "did you mean"
// messages.
package errs

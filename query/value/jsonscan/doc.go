// Package jsonscan holds the primitives that omgdb's hand-written JSON
// readers share, so that a string, an escape, a number or a skipped value
// is read one way everywhere: the parser and the stored-JSON decoder of
// query/value, the canonicalising transcoder, the store's metadata
// decoder, the raw updater of changes, and the CLI's indenter.
//
// The primitives work on a byte slice and a position, and return a
// position: they allocate only the errors they return, and Unquote the
// growth of the caller's buffer. They do not build values, so they know nothing of
// documents or of omgdb's value model; that stays in query/value.
//
// # Strings
//
// String finds where a string ends and says what its text holds
// (escapes, control characters, bytes outside ASCII); Plain finds where
// a run of plain ASCII ends; StringEnd finds where a string ends by its
// quote alone, as the fast skips over stored JSON do. Unquote decodes a
// string's escapes strictly: valid UTF-8, surrogate pairs only in pairs,
// no control characters.
//
// # Numbers
//
// Number reads the JSON number grammar and says whether it is an integer;
// ParseInt and ParseFloat give its value as the parser does (short ones
// without strconv, exactly); Short reads the short numbers that stored
// documents hold, in one pass.
//
// # Skipping
//
// Space passes over white space; ScalarEnd over a number or a literal;
// SkipValue and SkipContainer over a whole value, checking only that
// strings and brackets end, which is what a reader of documents that were
// validated when written needs.
//
// # Errors
//
// Unquote and Number report a *SyntaxError with the byte offset and the
// text that the parser prints after "invalid JSON at byte N: ".
//
// It imports nothing of omgdb.
package jsonscan

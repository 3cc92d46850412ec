// Package collation is MongoDB's collation document ({"locale":"en",
// "strength":2}) over golang.org/x/text/collate: Parse validates the
// document as MongoDB does and returns a *Collation, nil for the binary
// ("simple") comparison; Key turns a string into its collation key, whose
// byte order is the collation's order, and Map turns every string inside
// a value (in arrays and embedded documents too) into its key.
//
// The rest of the language compares strings by comparing their keys:
// a filter compiled with a collation maps its operands once and each
// value it tests, a sort maps the values it orders by, $group maps its
// keys, and an index with a collation stores mapped keys. A mapped value
// is only ever compared or hashed, never shown: it is not readable text.
// Field names, regular expressions and values of other types are left as
// they are, as in MongoDB.
//
// A *Collation is immutable and safe for concurrent use (each goroutine
// borrows a collator from a pool). docs/filters.md ("Collation") lists the
// supported fields and locales, and docs/differences.md what ICU does
// that x/text does not.
package collation

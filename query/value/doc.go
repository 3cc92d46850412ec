// Package value is the value model of omgdb's document language, free of
// I/O: values and documents, their canonical JSON codec, MongoDB's total
// order over values, an order-preserving byte encoding of values for
// keys, paths and sort keys, and a decoder that reads only the parts of a
// stored document a caller needs. It imports only query/errs and
// query/value/jsonscan, the scanner that every hand-written JSON reader of
// omgdb shares: the parser, the decoder and the canonicalising transcoder
// here read strings, escapes, numbers and skipped values through it, so
// they read them as the store's metadata decoder, the raw updater and the
// CLI do.
//
// # Values
//
// A Value is one of ten types: null, bool, long (int64), double
// (float64), string, binData, array, object, objectId and date. The zero
// Value is "missing": the result of looking up a field that is not there.
// There is no int32 (a $numberInt input becomes a long) and no decimal
// ($numberDecimal is refused). Values are immutable by convention:
// functions that "modify" a document (With, Without, SetPath) return a
// new Value that shares the unchanged parts.
//
// # Canonical JSON
//
// Parse accepts strict JSON (valid UTF-8, no duplicate keys, nesting at
// most MaxDepth, integers that fit in int64) plus the MongoDB Extended
// JSON v2 input forms ($numberLong, $numberInt, $numberDouble, $date,
// $oid, $binary). AppendJSON writes the canonical form: compact, field
// order kept, a double always shows a '.' or an exponent, non-finite
// doubles as {"$numberDouble":"NaN"}. Canonical output parses back to the
// same value and re-encodes to the same bytes. AppendCanonicalDocument
// turns a document's JSON text into its canonical form (with _id first)
// and copies what is already canonical as it is.
//
// # Order
//
// Compare implements MongoDB's comparison and sort order: values of
// different types order by type bracket (null < numbers < string <
// object < array < binData < objectId < bool < date), and long and double
// are compared exactly, never through a lossy conversion. AppendKey
// encodes a value so that bytes.Compare on two encodings agrees with
// Compare; KeyLen finds where an encoding ends. SortSpec and SortKeyOf
// compute the key a document sorts by at a path: an array sorts by its
// smallest element ascending and its largest descending, a missing field
// as null, an empty array below null.
//
// # Reading stored documents
//
// ParseFields and Decoder read a stored document's JSON keeping only
// what a set of paths (a FieldSet, or a SlotTree whose paths end in
// slots) can reach, and skip the rest of the text. A Decoder builds what
// it decodes in scratch memory that it reuses, with strings that alias
// the input: its values are valid until its next document, and must be
// copied (Clone) to outlive it. The documents given to a decoder must be
// valid, as stored documents are: it reports the errors it meets in the
// parts it reads, and only finds where the other parts end.
package value

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
// A Value is one of MongoDB's types: null, bool, int (int32), long
// (int64), double (float64), decimal (decimal128), string, binData,
// array, object, objectId, date, timestamp, regex, minKey and maxKey (the
// deprecated undefined, dbPointer, javascript and symbol are refused). The
// zero Value is "missing": the result of looking up a field that is not
// there. Decimals keep their text and compute through
// github.com/cockroachdb/apd in the Decimal128 context. Values are
// immutable by convention: functions that "modify" a document (With,
// Without, SetPath) return a new Value that shares the unchanged parts.
//
// # Canonical JSON
//
// Parse accepts strict JSON (valid UTF-8, no duplicate keys, nesting at
// most MaxDepth, integers that fit in int64) plus the MongoDB Extended
// JSON v2 input forms, canonical and relaxed, and the legacy ones
// ($numberLong, $numberInt, $numberDouble, $numberDecimal, $date, $oid,
// $binary, $uuid, $timestamp, $regularExpression, $minKey, $maxKey; the
// legacy {"$regex","$options"} object is a regex only in stored documents,
// PrepareDocument, since it is also the $regex operator). Parse reads a
// plain integer as a long, the stored form's reading; ParseInput and
// AppendCanonicalInput, for documents a user brings, read one that fits in
// 32 bits as an int, as mongoimport and the drivers do. AppendJSON
// writes the canonical (stored) form: compact, field order kept, longs
// plain, a double always shows a '.' or an exponent, non-finite doubles as
// {"$numberDouble":"NaN"}, the other types as their canonical Extended
// JSON but dates ({"$date":ms}) and generic binData ({"$binary":"…"}). Canonical output parses back to the
// same value and re-encodes to the same bytes. AppendCanonicalDocument
// turns a document's JSON text into its canonical form (with _id first)
// and copies what is already canonical as it is.
//
// # Order
//
// Compare implements MongoDB's comparison and sort order: values of
// different types order by type bracket (minKey < null < numbers < string
// < object < array < binData < objectId < bool < date < timestamp < regex
// < maxKey), and numbers of every type are compared exactly, never
// through a lossy conversion. AppendKey
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

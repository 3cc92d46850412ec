// Package query is omgdb's document language, free of I/O: the value model
// and its canonical JSON codec, MongoDB's total order over values, an
// order-preserving byte encoding of values for keys, and (in later files)
// filters, projection, sort, update operators and aggregation.
//
// # Values
//
// A Value is one of ten types: null, bool, long (int64), double (float64),
// string, binData, array, object, objectId and date. The zero Value is
// "missing": the result of looking up a field that is not there. There is
// no int32 and no decimal.
//
// # Canonical JSON
//
// Parse accepts strict JSON (valid UTF-8, no duplicate keys, nesting at most
// MaxDepth, integers that fit in int64) plus the MongoDB Extended JSON v2
// input forms ($numberLong, $numberInt, $numberDouble, $date, $oid,
// $binary). AppendJSON writes the canonical form: compact, field order kept,
// a double always shows a '.' or an exponent, non-finite doubles as
// {"$numberDouble":"NaN"}. Canonical output parses back to the same value
// and re-encodes to the same bytes.
//
// # Order
//
// Compare implements MongoDB's comparison/sort order: values of different
// types order by type bracket (null < numbers < string < object < array <
// binData < objectId < bool < date), and long and double are compared
// exactly, never through a lossy conversion. AppendKey encodes a value so
// that bytes.Compare on two encodings agrees with Compare.
//
// # Filters, projection and sort
//
// CompileFilter, CompileProjection and CompileSort compile MongoDB's query
// language once; the results are immutable and safe for concurrent use.
// Paths are followed as MongoDB's matcher follows them (see Lookup): through
// embedded documents, into every document of an array met on the way, and
// to an array position for a numeric component. A condition holds when any
// value the path reaches satisfies it, so {"tags":"red"} matches an array
// containing "red". null matches missing fields, $ne and $nin match
// documents without the field, and values of different types never
// compare. Regular expressions use Go's RE2. docs/filters.md and
// docs/projection-and-sort.md list every operator and every known
// difference from MongoDB.
//
// # Updates
//
// CompileUpdate validates a MongoDB update (operators such as $set, $inc,
// $push and $pull, or a replacement document) once; Update.Apply runs it
// on a document and returns a new one, sharing unchanged parts, without
// modifying its input. Operators apply in MongoDB's order (by path), so
// new fields land where MongoDB puts them. Positional paths ($, $[],
// $[<identifier>] with arrayFilters) are resolved against the document as
// it was before the update. UpsertSeed builds the document an upsert
// starts from out of a filter's equality conditions. Long arithmetic that
// overflows is an error: there is no decimal to widen to. docs/updates.md
// lists every operator, message and difference from MongoDB.
//
// # Aggregation
//
// CompileExpr compiles an aggregation expression; Expr.Eval evaluates it
// with a document as $$ROOT. CompilePipeline compiles a pipeline of stages
// once, checking every stage, accumulator, operator and variable; Run
// streams a Source through it and returns a Source, reading other
// collections for $lookup and $unionWith through an Env. Streaming stages
// pass documents on as they arrive; blocking stages ($group, $sort, …)
// buffer at most PipelineOptions.MaxMemory, and one expression evaluation
// builds at most MaxEvalWork, so hostile pipelines fail cleanly. A
// Pipeline is immutable: runs share nothing. docs/aggregation.md lists
// every stage, accumulator and operator, the limits and the differences
// from MongoDB.
package query

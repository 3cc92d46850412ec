// Package query is omgdb's query language, free of I/O: filters,
// projection, sort and update operators over the values of query/value,
// with the aggregation expressions of query/expr where the language embeds
// them ($expr, computed projection fields). Aggregation pipelines are in
// query/agg, error kinds in query/errs.
//
// # Filters, projection and sort
//
// CompileFilter, CompileProjection and CompileSort compile MongoDB's
// query language once; the results are immutable and safe for concurrent
// use. Paths are followed as MongoDB's matcher follows them (see Lookup):
// through embedded documents, into every document of an array met on the
// way, and to an array position for a numeric component. A condition
// holds when any value the path reaches satisfies it, so {"tags":"red"}
// matches an array containing "red". null matches missing fields, $ne and
// $nin match documents without the field, and values of different types
// never compare. Regular expressions use Go's RE2. Filter.MatchJSON
// matches a stored document's JSON without parsing the parts the filter
// does not read, with the same answer as Match. That reader is our own,
// not a JSON path library such as gjson: MongoDB's paths go into every
// element of an array they meet, a numeric component is both a position
// and a field name, null matches a missing field, and longs compare
// exactly from their text, where gjson reads numbers as float64
// (docs/filters.md, "How filters read stored documents"). docs/filters.md and
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
package query

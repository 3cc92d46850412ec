// Package engine is the surface the CLI, the shell and the MCP server
// read a store through, whichever engine holds it: a store file (package
// store, adapted here by File) or a MongoDB deployment (package
// mongoengine). A shared conformance suite (engine/enginetest) runs the
// same cases against both and is what "the same behaviour" means.
//
// # The read half
//
// Reader lists collections, finds (filter, projection, sort, skip,
// limit), counts, lists distinct values, runs aggregation pipelines and
// lists indexes. Queries arrive as specifications (value.Value), and
// Check compiles each one with omgdb's own query language before an
// engine runs it, so a bad filter gets omgdb's error, with its hint,
// whichever engine holds the data; a MongoDB engine then sends the
// specification as it is, to run in the server's own engine.
//
// Every engine returns the same results in the same order: a find
// without a sort returns documents in _id order, a sort is followed by _id
// to break ties, and distinct values come in MongoDB's sort order
// (value.Compare). A read of a missing collection is an errs.NotFound
// error with a did-you-mean, never an empty result. A pipeline that
// writes ($out, $merge) is refused by Check, so a Reader cannot write.
//
// Past is the read half of an engine's journal (time travel and diff):
// a read-only interface that a read-scope server may hold. Scanned turns
// a Scanner (documents of a collection in _id order, such as a MongoDB
// collection rebuilt at a revision) into a Reader whose queries run in
// omgdb's own engine, as a store file's past revisions are read.
//
// A Reader that is also a Collater (the MongoDB engine, and Redacting and
// the read-only wrappers around it) gives a view of itself that reads
// with a collation: Collated returns it, the redaction still first.
//
// # Inspection
//
// Inspector is the read-only introspection of an engine that runs queries
// on a server (a MongoDB deployment): the server's explain of a find,
// count or pipeline, and its collStats and dbStats. ServerPlan maps a
// server's explain to the shape `omgdb explain` prints for a store file,
// the plan marked as the server's; RedactingInspector explains, on a
// collection with redactions, the pipeline the redacting reader runs.
// Diagnose, SuggestIndexes, Describe and Schema give the store file's
// why-not diagnosis, index suggestions, manual and field inference over
// any Reader, every count a bounded pipeline the engine runs (through
// Redacting, on the redacted documents).
//
// Writes (as changes), history and plans are the next half of the
// interface; until then the CLI keeps the store file's own write path.
package engine

// Package store is omgdb's engine: a store is one file, a bbolt B+tree,
// holding collections of documents, their indexes and a journal of every
// committed write.
//
// # Transactions
//
// DB.View runs a read-only transaction and DB.Update a read-write one. Any
// number of readers, in this process and others, run beside one writer;
// each sees the state as of its start. A write transaction that returns
// nil is committed and fsynced before Update returns; one that returns an
// error or panics leaves nothing behind.
//
// # Processes
//
// Opening a store takes an flock: shared for read-only opens, exclusive
// for writers. Open waits at most Options.Timeout for the lock and then
// fails with a Busy error that names the file. Read-only opens never write.
//
// # Journal
//
// Every write transaction appends one journal record, in the same
// transaction: its change id, actor, time and operations, with the
// before-image of every updated or deleted document and the id of every
// inserted one. After-images follow from the next record or the current
// document. The journal is what history, time travel, rollback and Verify
// are built on.
//
// # Layout
//
// Top-level buckets: "meta" (format version, store id, settings),
// "collections" (one nested bucket per collection: "docs" keyed by the
// order-preserving key of _id, a "meta" record and a "count"), and
// "journal" (records keyed by big-endian log sequence number).
// Documents are stored as one header byte followed by canonical JSON,
// zstd-compressed when large.
package store

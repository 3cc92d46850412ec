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
// zstd-compressed when large. A collection's bucket also holds "idx", one
// nested bucket per index.
//
// This package is the only one that opens the file and knows its layout
// (TestImportRules enforces it). The packages above keep their data
// through typed handles, inside the caller's transaction, whose keys and
// framing the store defines: package changes its plans (Tx.Plans: header
// and chunks, in "plans"), named revisions (Tx.Snapshots, in "snapshots")
// and rollback links (Tx.Rollbacks, in "rollbacks"); index kinds
// registered from outside, such as package vector's, their vectors
// (Index.Vectors) or postings, document frequencies, lengths and
// statistics (Index.Text, TextBuild) in their index bucket. Values that
// need it are Blobs (checksummed, compressed when large). So Verify checks
// all of it (every blob's checksum, every key's shape, the counts that tie
// entries together), Compact copies it, and Salvage rebuilds the indexes
// from the recovered documents and names what it leaves behind, without
// knowing who wrote what. docs/file-format.md lists the keys.
//
// # Indexes and the planner
//
// An IndexKind keeps an index in step with the documents inside every
// write transaction; the "btree" kind (btree.go) is the secondary index:
// compound, dotted, multikey, descending, sparse and unique keys, each
// entry the field keys followed by the _id key. Find, CountQuery and
// Aggregate go through the planner (planner.go): it turns the filter's
// conditions into key ranges per index (bounds.go, conds.go), counts the
// entries in bounds to cost each candidate against a collection scan, and
// runs the cheapest (ixscan.go), always re-checking the whole filter, so an
// index changes only the speed of a query, never its result or order.
// Explain, Diagnose and SuggestIndexes describe plans and results.
//
// Scans match on the stored JSON (query.Filter.MatchJSON), decoding only
// the fields a filter or pipeline reads, and a pipeline that starts with a
// $group (after a $match no index serves) extracts its keys and arguments
// from the stored JSON (agg.GroupScan). Over large collections, an
// unindexed count and such a $group run on GOMAXPROCS goroutines
// (scan.go): one walks the cursor of the read transaction and hands
// batches of stored values to the others; counts are added up, and $group
// arguments are fed to the groups in key order, so the results are those
// of a plain scan.
//
// # Cancellation
//
// Every scan (collection and index scans, counts, the parallel count and
// $group, Diagnose, SuggestIndexes, executionStats) checks its context
// before each document it reads (a covered count every 4,096 index
// keys), and matches, projects and groups with query's context-aware
// calls, so a costly $expr stops inside its evaluation. A stopped scan
// returns the context's error, unwrapped (context.DeadlineExceeded or
// context.Canceled).
//
// # Validation
//
// A collection may have rules (rules.go) that every inserted or replaced
// document must follow; Define changes them and journals the change.
//
// # Progress
//
// Long operations report how far they have come without printing
// anything: Verify, Backup and Restore to the Progress that WithProgress
// puts in their context (step, done, total), Compact to
// CompactOptions.Progress, Import to ImportOptions.Progress, and index
// builds to Collection.SetBuildProgress. A cancelled context stops
// Verify, Backup, Restore, Compact and Import; an index build runs to its
// end, and its caller decides whether to commit.
package store

// Package mongoengine is omgdb's MongoDB engine: an engine.Reader over a
// database of a MongoDB deployment, built on the official Go driver
// (go.mongodb.org/mongo-driver/v2).
//
// A store argument names the deployment and the database: a URI
// ("mongodb://host/DB", "mongodb+srv://host/DB"), or "mongodb:" or
// "mongodb:DB" to take the URI from $OMGDB_MONGODB_URI and keep the
// credentials off the command line (Resolve).
//
// Queries are compiled by omgdb first (engine.Check, engine.CheckPipeline)
// so a bad filter gets omgdb's error, then sent as they are, converted
// value by value to BSON (bson.go, never through text or float64), to
// run in the server's own engine. To give the file engine's order, a
// find without a sort is sorted by _id and a sort is followed by _id.
// Results come back the same way, BSON to values.
//
// Credentials never leave the package in a message: every error is
// passed through Redact, which replaces the URI's userinfo, password and
// user name, and Target.Redacted is the only form of the URI that is
// meant to be printed.
//
// Collated gives the engine a collation, checked by omgdb's parser and
// sent with every read and every plan's read (collation.go); a server
// that has none (FerretDB v1 answers NotImplemented) is reported as such.
//
// It is also an engine.Inspector (inspect.go): Explain runs the server's
// explain command of a find, count or aggregate, and CollStats and
// DBStats its statistics commands, all read-only.
//
// Reads are the engine.Reader interface; a pipeline that writes ($out,
// $merge) is refused before anything is sent. Collections whose names
// start with "system." or "omgdb." are not listed, so not readable.
//
// Writes are reviewable and reversible (plan.go, write.go, journal.go):
// PlanUpdate and PlanDelete read the matching documents and compute the
// after-images with omgdb's own update engine (the caller compiles the
// update), and store the plan in omgdb.plans and omgdb.plan_items. Apply
// claims a pending plan, journals the change in omgdb.changes, and writes
// each document under a precondition (an exact read compared with the
// before-image, then a replaceOne or deleteOne whose filter holds each
// top-level field's value and type; insertOne for an insert). With
// transactions (a replica set or mongos, per hello) every write is in one
// transaction and a conflict writes nothing; without, the other documents
// are written and each conflict is returned. Rollback applies the reverse
// of a change the same way; History lists the journal. Only writes made
// through this package are journaled.
//
// Plans are listed, shown and discarded as on a store file (plans.go);
// a plan keeps what was planned (filter, update, pipeline) as omgdb's
// canonical JSON text. PlanWrites (aggregate.go) stores a plan whose
// writes the caller computed: a plan-aggregate's, whose $out and $merge
// semantics are the store file's own (changes.WriteStage), over results
// the server returned.
//
// Inserts and imports (insert.go) are an Inserter: one change, written in
// ordered insertMany batches. A batch's documents are stored as unmarked
// items of the change, and their _ids recorded in it ("pending"), before
// it is sent; the items of the documents the server wrote are marked
// applied after, so Rollback deletes exactly the inserted documents.
//
// A change being written holds a lease (lease.go) that its writer renews;
// one whose lease expired is interrupted, and Rollback takes it over
// atomically and undoes exactly what was written (recover.go): the items
// marked applied, and the unmarked ones whose document shows the write.
// Resume (resume.go) takes such a change over instead (or a partial one)
// with a lease of its own and writes its unmarked items, finishing it.
//
// Time travel (revision.go, timetravel.go, snapshot.go, revert.go,
// log.go) reads the same journal. Each change takes a seq (a document
// of omgdb.seqs, whose _id the server keeps unique) when it is journaled:
// the journal's order, as the lsn
// is a store file's. A revision is now, a snapshot name (omgdb.snapshots),
// a seq, a change id or a time. A collection at revision R is the
// documents of the collection its name held at R, wherever that
// collection is now (timetravel_follow.go: the journal's drops and
// renames are followed, a drop to its omgdb_dropped_<id> collection),
// where each document written by a change of it after R takes its
// before-image in the earliest such change; documents written around
// omgdb are read as they are now. An interrupted change is read from
// its marks, its one unsure document (an import's batch) judged against
// its images; a change whose writer still holds its lease, or an unsure
// document that holds neither image, is refused. At returns an
// engine.Reader (engine.Scanned) that runs queries on those documents
// with omgdb's own engine; Diff compares two revisions (a collection a
// drop or rename moved is compared whole); PlanRevert plans the writes
// back to a revision, for one collection, applied with Apply.
//
// Schema changes (schema.go, schema_index.go, schema_rollback.go): Create,
// Drop, Rename, CreateIndexes, DropIndex and DropIndexes are each one
// change whose journal entry lists its steps (a renameCollection, an
// index creation or drop), each with a known inverse: a drop renames the
// collection aside to omgdb_dropped_<change id> (hidden, like omgdb.*),
// a dropped index's specification is kept, and Rollback runs the
// inverses, last first. A step the server refuses undoes the ones before
// it and removes the change; after a crash Rollback finds which steps
// were carried out by looking at the collections and indexes. Verify
// (verify.go) checks the journal and runs the server's validate.
//
// Validation rules (rules.go, package query/rules): Define keeps a
// collection's rules in its record in omgdb.copy, as one schema change (a
// "define" step, undone by a define of the rules it replaced), and sends
// them to the server as its validator (collMod) where the server takes
// one. Every write checks them before anything is sent: a plan when it is
// stored and again when it is applied, an insert's or import's batch.
// A rename or drop moves the record with the collection.
//
// Carrying a journal (carry.go) is omgdb copy --history's, and only
// its: CarryOut reads the journal oldest first as Carried changes (each
// with its applied items), and Carry writes a change carried from
// another store under its own id, kind, time, actor and note, items
// first, then its documents by _id, then its plan, and its journal entry
// last, so that a journaled change has all its documents and a resumed
// copy carries each change once.
//
// An apply or rollback stops at its context's deadline (or cancellation)
// between documents, never inside one (deadline.go): the change is then
// journaled "partial" with what was written, and Rollback undoes it.
//
// Guarantees without transactions: not atomic across documents; after a
// crash each document is its before- or after-image, every item marked
// applied holds its after-image, and at most one unmarked document of an
// apply (the one being written; a batch of an insert) may hold its
// after-image. The transaction path has not been run (the test server,
// FerretDB, has none).
package mongoengine

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
// Inserts and imports (insert.go) are an Inserter: one change, written in
// ordered insertMany batches. A batch's _ids are recorded in the change
// ("pending") before it is sent, and the documents the server wrote are
// stored as the change's items (op insert, state applied) after, so
// Rollback deletes exactly the inserted documents; after a crash the
// documents written without an item are among the pending _ids.
//
// Guarantees without transactions: not atomic across documents; after a
// crash each document is its before- or after-image, every item marked
// applied holds its after-image, and at most one unmarked document (the
// one being written) may hold its after-image. The transaction path has
// not been run (the test server, FerretDB, has none).
package mongoengine

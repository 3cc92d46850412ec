// Package shell is omgdb's interactive shell: the mongosh language
// (JavaScript, run by github.com/dop251/goja in this process only, never
// inside a query) over one store file.
//
// A Shell holds a JavaScript runtime whose globals are mongosh's: db with
// its collections (db.users, db.getCollection("users")), cursors, the
// value constructors ObjectId, ISODate, NumberLong/Long, and print,
// printjson, it, help, show, use, exit. Values cross between JavaScript
// and the store through one conversion (convert.go): integers in the
// int32 range become ints and other numbers doubles (as mongosh's BSON
// serialiser does), Long keeps all 64 bits, Date is a date, a regular
// expression literal becomes {$regex, $options}.
//
// The shell opens the store for each statement and closes it after, so it
// holds no lock while it waits for input. Reads open it read-only and never
// create it; the first write creates a missing store, as omgdb insert
// does. Every write is one journaled change whose id the result carries
// (changeId), so omgdb rollback undoes it: updates, replaces, deletes,
// drops and renames are changes' one-step writes (those of omgdb update,
// delete, drop and rename), the findOneAnd… methods and an aggregate that
// ends in $out or $merge plan and apply at once, inserts and index
// changes run in a store write transaction.
//
// With Options.Engine (a MongoDB deployment, package mongoengine) the
// reads go to that engine instead of a store file (engine.go): find,
// findOne, the counts, distinct, aggregate, getIndexes and the collection
// names. With Options.Writer the writes of engine.go (insertOne,
// insertMany, updateOne, updateMany, replaceOne, deleteOne, deleteMany),
// the findOneAnd… methods (mongo_findandmodify.go) and bulkWrite go there
// too, and when the Writer is also a SchemaWriter (engine_schema.go)
// db.createCollection, drop, renameCollection and the index methods; with
// an engine.Inspector, explain (the server's plan) and db.stats() too
// (engine_inspect.go), and field-name completion reads the engine.
// Everything else that would open a store file is refused with a usage
// error before anything is sent.
//
// Run reads statements through a LineReader, the seam between the loop
// and the terminal: a line editor on a terminal (readline.go), a plain
// reader for pipes and tests. A statement that is not finished (an open
// bracket, say) continues on the next line. The line editor is
// github.com/chzyer/readline: pure Go, a history file, reverse search,
// a completion callback and raw-mode handling, and the only line editor
// the project's package list offers (its maintained fork
// ergochat/readline, peterh/liner and reeflective/readline are not
// there).
package shell

// Package mongotest starts a MongoDB-compatible test server inside go
// test: embedded FerretDB (github.com/FerretDB/FerretDB v1.24.2, package
// ferretdb) on its SQLite handler, in a temporary directory, listening on
// 127.0.0.1 on a free port. There is no manual step and no download.
//
// One server serves the whole test binary: Start starts it on first use
// and gives each caller a database of its own, dropped when the test ends.
// Stop (from TestMain) stops the server and removes its directory.
//
// FerretDB implements only part of MongoDB: no transactions, no $lookup,
// no $avg, and $project with a field path returns the literal string.
// Tests that need those mark the case as one the test server cannot run.
//
// This is a test helper: only tests may import it, so FerretDB and its
// dependencies are never linked into the omgdb binary (TestImportRules
// and TestBinaryDeps check it).
package mongotest

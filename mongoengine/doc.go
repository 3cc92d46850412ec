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
// Only reads exist so far (the engine.Reader interface); a pipeline that
// writes ($out, $merge) is refused before anything is sent. Collections
// whose names start with "system." or "omgdb." are not listed.
package mongoengine

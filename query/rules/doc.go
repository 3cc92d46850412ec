// Package rules is omgdb's validation rules ("define"): a collection's
// required fields, field rules (types, enum, min, max, pattern), a
// MongoDB query validator and a default collation, compiled from their
// JSON form (Compile) and checked against a document (Rules.Check), with
// the same message, naming the collection, the field and the _id,
// wherever a document is written: by the store file's engine (store) and
// by the MongoDB engine (mongoengine), which both import this package.
//
// Validator translates rules to a MongoDB validator ($jsonSchema), as
// omgdb copy and define over MongoDB send it to the server; Report counts
// the existing documents that break rules being defined.
//
// The package is pure: no I/O.
package rules

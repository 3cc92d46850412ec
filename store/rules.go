package store

import (
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

// Validation rules (OMGDB's "define") constrain the documents of a
// collection; they are the language's (package query/rules), shared with
// the MongoDB engine, and checked here on every write of a document:
// insert, import, update, apply, revert.

// TypeNames are the type names rules accept: the types' $type aliases and
// "number".
var TypeNames = rules.TypeNames

// Rules are a collection's compiled validation rules.
type Rules = rules.Rules

// CompileRules checks a rules document and compiles it (rules.Compile).
// The empty document (or missing) is no rules, and returns nil.
func CompileRules(spec value.Value) (*Rules, error) { return rules.Compile(spec) }

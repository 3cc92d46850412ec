package mcpserver

import (
	"github.com/omgdb/omgdb/query/errs"
)

// Scope is what a server lets an agent do. Scopes are ordered: a server
// with scope S lists and runs exactly the tools whose scope is at most S.
type Scope int

// The scopes, in increasing order of power.
const (
	ScopeRead      Scope = iota // read the store; nothing is ever written
	ScopeReadWrite              // plus reversible writes
	ScopeDangerous              // plus irreversible operations
)

var scopeNames = [...]string{"read", "read-write", "dangerous"}

// String returns the scope's canonical name.
func (s Scope) String() string {
	if s >= 0 && int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "unknown"
}

// ParseScope parses a scope name or one of its aliases: read (ro),
// read-write (write, rw), dangerous (all).
func ParseScope(name string) (Scope, error) {
	switch name {
	case "read", "ro":
		return ScopeRead, nil
	case "read-write", "write", "rw":
		return ScopeReadWrite, nil
	case "dangerous", "all":
		return ScopeDangerous, nil
	}
	return 0, errs.Errorf(errs.Usage, "invalid --scope '%s' (use read, read-write, or dangerous)", name).
		WithHint("read (alias ro) is the default and the safe choice for untrusted agents")
}

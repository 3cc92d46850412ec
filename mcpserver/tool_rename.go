package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) renameCollectionTool() *tool {
	return &tool{
		Name: "rename_collection", Title: "Rename a collection", Scope: ScopeReadWrite,
		Description: sentence("Rename a collection with its documents, indexes and rules, as one change that rollback undoes;",
			"an existing target is a CONFLICT. Example:", s.example("collection", "users", "to", "people")),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "to", Type: "string", Required: true, Description: "The new name."}},
		Output: outputSchema([]string{"renamed_to", "change_id"}, "renamed_to", tStr(), "documents", tInt(),
			"indexes", tInt(), "change_id", tStr(), "next_valid_actions", tArr(tStr())),
		Run: runRenameCollection,
	}
}

// renameAllowed checks a rename against the policy: both names allowed,
// a valid new name, and the same redactions under both.
func (c *call) renameAllowed(from, to string) error {
	for _, name := range []string{from, to} {
		if !c.srv.policy.collectionAllowed(name) {
			return deniedCollection(name)
		}
	}
	if err := store.ValidateCollectionName(to); err != nil {
		return argError(err, "to")
	}
	// Redaction rules follow names: a rename must not move documents to a
	// name under which fewer of their fields are redacted.
	if !sameStrings(c.srv.policy.redactedNames(from), c.srv.policy.redactedNames(to)) {
		return errorf(CodePolicyDenied, "cannot rename `%s` to `%s`: this server redacts different fields of the two names", from, to).
			withHint("choose a name with the same redaction, or have the user rename it with the CLI").
			withContext("collection", from, "to", to)
	}
	return nil
}

func runRenameCollection(ctx context.Context, c *call) (*output, error) {
	from, to := c.str("collection"), c.str("to")
	if err := c.renameAllowed(from, to); err != nil {
		return nil, err
	}
	db, err := c.openFor(from, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var res *changes.CollectionResult
	err = db.View(func(tx *store.Tx) error { _, err := c.collection(tx, from); return err })
	if err == nil {
		res, err = changes.RenameCollection(ctx, db, from, to, &changes.CollectionOptions{Actor: c.actor()})
	}
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", from, "renamed_to", to, "documents", res.Documents, "indexes", res.Indexes,
		"change_id", res.ChangeID, "next_valid_actions", c.next(res.NextValidActions, "history"))), nil
}

// sameStrings reports whether a and b hold the same strings in any order.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s]--; seen[s] < 0 {
			return false
		}
	}
	return true
}

package changes

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// checkCollation validates PlanOptions.Collation before a plan begins.
func checkCollation(opts *PlanOptions) error {
	_, err := store.ResolveCollation(nil, opts.Collation)
	return err
}

// collatedFilter returns the filter a plan on coll matches with: f, or
// the filter compiled again with the collation the plan runs with
// (opts.Collation when given, else the collection's default), when that
// is not the simple one.
func collatedFilter(tx *store.Tx, coll string, filter value.Value, f *query.Filter, opts *PlanOptions) (*query.Filter, error) {
	c, err := tx.Collection(coll)
	if err != nil {
		c = nil // a missing collection (an upsert) has no default
	}
	cl, err := store.ResolveCollation(c, opts.Collation)
	if err != nil || cl == nil || f == nil {
		return f, err
	}
	return query.CompileFilterCollation(filter, cl)
}

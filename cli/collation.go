package cli

import (
	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// registerCollation adds --collation to a command.
func registerCollation(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "collation", "", `compare strings by this collation, e.g. '{"locale":"en","strength":2}' (default: the collection's, see omgdb docs filters)`)
}

// parseCollation parses --collation: the collation document (missing
// when the flag is not given) and its collation (nil for simple).
func (e *env) parseCollation(arg string) (value.Value, *collation.Collation, error) {
	if arg == "" {
		return value.Value{}, nil, nil
	}
	v, err := e.parseArg(arg, "--collation")
	if err != nil {
		return value.Value{}, nil, err
	}
	c, err := collation.Parse(v)
	return v, c, err
}

// defaultCollation returns the default collation of coll (its rules'),
// which applies when --collation (flag) is not given; nil otherwise.
func defaultCollation(tx *store.Tx, coll, flag string) *collation.Collation {
	if flag != "" {
		return nil
	}
	c, err := tx.Collection(coll)
	if err != nil {
		return nil
	}
	return c.DefaultCollation()
}

// compileFilterColl compiles a parsed filter with a collation; {} is nil.
func compileFilterColl(spec value.Value, coll *collation.Collation) (*query.Filter, error) {
	if spec.Kind() == value.Object && spec.Len() == 0 {
		return nil, nil
	}
	return query.CompileFilterCollation(spec, coll)
}

// recollate compiles q's filter (from its spec) and sort again with the
// collection's default collation, when --collation was not given and
// the collection has one.
func recollate(tx *store.Tx, coll, flag string, filter value.Value, q *store.Query) error {
	dc := defaultCollation(tx, coll, flag)
	if dc == nil {
		return nil
	}
	f, err := compileFilterColl(filter, dc)
	if err != nil {
		return err
	}
	q.Filter = f
	if q.Sort != nil {
		q.Sort = q.Sort.WithCollation(dc)
	}
	return nil
}

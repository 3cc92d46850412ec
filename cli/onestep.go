package cli

import (
	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// writeFlags are the flags the one-step writes (update, replace, delete)
// share.
type writeFlags struct {
	storeFlags
	dryRun, pretty bool
}

func (f *writeFlags) register(cmd *cobra.Command) {
	f.storeFlags.register(cmd)
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "write nothing: plan the change and print the plan (as plan-update/plan-delete do)")
	cmd.Flags().BoolVar(&f.pretty, "pretty", false, "indent the JSON")
}

const writeOutput = `Prints {"change_id","kind","collection","matched","modified","deleted",
"upserted","upsertedId","lsn","message","next_valid_actions"}; change_id (absent
when nothing was written) names the change in omgdb history, and omgdb
rollback <store> <change_id> undoes it. With --dry-run nothing is written and
the plan is printed instead, exactly as plan-update or plan-delete print it:
its token applies it later (omgdb apply) or it expires.`

// parseArrayFilters parses --array-filters: a JSON array of filters.
func (e *env) parseArrayFilters(arg string) ([]value.Value, error) {
	if arg == "" {
		return nil, nil
	}
	af, err := e.parseArg(arg, "--array-filters")
	if err != nil {
		return nil, err
	}
	if af.Kind() != value.Array {
		return nil, errs.Errorf(errs.Invalid, "--array-filters must be an array of filter documents, got %s", af.TypeName()).
			WithHint(`e.g. --array-filters '[{"t":"gold"}]'`)
	}
	return af.Array(), nil
}

// writing opens the store at path for writing, runs fn with it and prints
// what fn returns as JSON.
func (e *env) writing(path string, f storeFlags, pretty bool, fn func(*store.DB) (any, error)) error {
	db, err := e.open(path, readWrite, f)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := fn(db)
	if err != nil {
		return err
	}
	if w, ok := res.(*changes.WriteResult); ok && w.Plan != nil {
		res = w.Plan // a dry run prints its plan
	}
	return e.printJSON(res, pretty)
}

// parseFilterAnd parses a filter argument and the JSON argument after it
// (an update or a document, named what).
func (e *env) parseFilterAnd(filter, arg, what string) (value.Value, value.Value, error) {
	// The values of a replacement or an update, and those an upsert takes
	// from the filter, are stored as given: read as mongosh sends them (an
	// integer of 32 bits is an int).
	f, err := e.parseDocArg(filter, "filter")
	if err != nil {
		return value.Value{}, value.Value{}, err
	}
	v, err := e.parseDocArg(arg, what)
	return f, v, err
}

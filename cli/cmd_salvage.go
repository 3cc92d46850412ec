package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"salvage", newSalvageCmd}) }

type salvageOptions struct {
	damaged, out string
}

func newSalvageCmd(e *env) *cobra.Command {
	opts := &salvageOptions{}
	return &cobra.Command{
		Use:   "salvage <damaged> <out>",
		Short: "Copy every readable document of a damaged store into a new store",
		Long: `Read a damaged store without trusting it and copy every document that can
still be read, whole and under its own key, into a new store at <out> (which
must not exist). The damaged file is never changed. Documents whose
checksum fails, and parts of the tree that cannot be read, are left out
and listed. Each collection's indexes are created again and built over the
recovered documents. The new store verifies clean; its journal starts with
the salvage (history is not carried over, nor are the plans, snapshots and
rollback links that refer to it: the report counts them under
"left_behind"). Stop any writer of the damaged store first: it is read
without taking its lock.

Prints a JSON report:
{"source","output","meta","collections":[{"name","expected","recovered",
"unreadable":[{"key","page","reason"}],"indexes":[…]}],"recovered",
"unreadable","problems":[…],"complete","left_behind":[…]}. Exits 0 when everything was recovered, 74 when
something could not be (the new store is written all the same).`,
		Example: `  omgdb salvage damaged.omgdb rescued.omgdb
  omgdb verify rescued.omgdb`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.damaged, opts.out = args[0], args[1]
			return e.runSalvage(cmd.Context(), opts)
		},
	}
}

func (e *env) runSalvage(ctx context.Context, opts *salvageOptions) error {
	if err := fileOnly("salvage", opts.damaged); err != nil {
		return err
	}
	rep, err := store.Salvage(ctx, opts.damaged, opts.out)
	if err != nil {
		return err
	}
	js, _ := json.Marshal(rep)
	e.stdout.Write(append(js, '\n'))
	if !rep.Complete {
		return errs.Errorf(errs.IO, "salvaged %d document(s) from %s into %s; %d document(s) unreadable, %d other problem(s)",
			rep.Recovered, opts.damaged, opts.out, rep.Unreadable, len(rep.Problems)).
			WithHint("the new store holds every document that could be read and verifies clean; the report lists what was lost")
	}
	return nil
}

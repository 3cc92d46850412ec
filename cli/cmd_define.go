package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"define", newDefineCmd}) }

type defineOptions struct {
	storeFlags
	path, coll, rules string
	from              string
	json              bool
}

func newDefineCmd(e *env) *cobra.Command {
	opts := &defineOptions{}
	cmd := &cobra.Command{
		Use:   "define <store> <collection> <rules> | define <store> --from spec.json",
		Short: "Set a collection's validation rules (or apply a whole spec)",
		Long: `Replace the validation rules of a collection, creating it if needed:
{"required":["name"],"fields":{"age":"long","status":{"type":"string","enum":["new","done"]}}}
A field rule is a type name (null, bool, long, double, string, binData,
array, object, objectId, date, or number), a list of them, or an object with
type, enum, min, max and pattern. Paths may be dotted. A "collation" key
({"collation":{"locale":"en","strength":2}}) sets the collection's default
collation: queries without --collation and indexes created later use it.
{} removes the rules.
Rules apply to every later write (insert, import, update, apply, revert);
existing documents are checked and those that break the new rules are
reported, not changed. With --from, apply a spec file as create --from does.
Prints "defined rules for ` + "`<collection>`" + `"; --json prints
{"collection","rules","checked","violations","examples"} (a list with --from).
Over MongoDB, each collection's define is one journaled change (rollback
undoes it); omgdb checks the rules on every write it makes, and sends them
as the server's validator (collMod) where the server takes one; where not,
a note says that writes made around omgdb are not checked; --json adds
"change_id", "server_enforces" and "note". A "collation" is refused there.
See omgdb docs validation and omgdb docs mongodb.`,
		Example: `  omgdb define app.omgdb users '{"required":["name"],"fields":{"age":"long"}}'
  omgdb define app.omgdb users '{}'
  omgdb define app.omgdb --from spec.json`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			switch {
			case opts.from != "" && len(args) != 1:
				return usage("define --from takes only the store")
			case opts.from == "" && len(args) != 3:
				return usage("define takes <store> <collection> <rules>, or <store> --from spec.json")
			case opts.from == "":
				opts.coll, opts.rules = args[1], args[2]
			}
			return e.runDefine(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.from, "from", "", "a spec file declaring collections, rules and indexes (- for stdin)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	return cmd
}

func (e *env) runDefine(ctx context.Context, opts *defineOptions) error {
	arg, what := opts.rules, "rules"
	if opts.from != "" {
		arg, what = "@"+opts.from, "spec"
		if opts.from == "-" {
			arg = "-"
		}
	}
	spec, err := e.parseArg(arg, what)
	if err != nil {
		return err
	}
	if isMongo(opts.path) {
		return e.mongoDefine(ctx, opts, spec)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	var reps []*store.DefineReport
	err = db.Update(store.Change{Kind: "define"}, func(tx *store.Tx) error {
		if opts.from != "" {
			rep, err := tx.ApplySpec(spec)
			if rep != nil {
				reps = rep.Rules
			}
			return err
		}
		c, err := tx.CreateCollection(opts.coll)
		if err != nil {
			return err
		}
		rep, err := c.Define(spec)
		reps = append(reps, rep)
		return err
	})
	if err != nil {
		return err
	}
	return e.printDefine(reps, opts)
}

func (e *env) printDefine(reps []*store.DefineReport, opts *defineOptions) error {
	if opts.json {
		return printDefineJSON(e, reps, opts)
	}
	for _, rep := range reps {
		verb := "defined rules for"
		if string(rep.Rules) == "null" {
			verb = "removed the rules of"
		}
		fmt.Fprintf(e.stdout, "%s `%s`\n", verb, rep.Collection)
		if rep.Violations > 0 {
			fmt.Fprintf(e.stderr, "warning: %d of %d existing document(s) in `%s` break the new rules; later writes must follow them\n", rep.Violations, rep.Checked, rep.Collection)
			for _, ex := range rep.Examples {
				fmt.Fprintf(e.stderr, "  %s\n", ex)
			}
		}
	}
	return nil
}

// printDefineJSON prints define's --json: the report, or with --from the
// list of them.
func printDefineJSON[R any](e *env, reps []R, opts *defineOptions) error {
	var js []byte
	if opts.from != "" {
		js, _ = json.Marshal(reps)
	} else {
		js, _ = json.Marshal(reps[0])
	}
	_, err := e.stdout.Write(append(js, '\n'))
	return err
}

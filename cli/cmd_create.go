package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"create", newCreateCmd}) }

type createOptions struct {
	storeFlags
	path string
	from string
}

func newCreateCmd(e *env) *cobra.Command {
	opts := &createOptions{}
	cmd := &cobra.Command{
		Use:   "create <store> [--from spec.json]",
		Short: "Create an empty store file, optionally with collections, rules and indexes",
		Long: `Create an empty store. It is an error if the file already exists.

With --from, create the collections a spec declares, with their validation
rules and indexes, and print "created store at <store> (<n> collection(s) defined)":
{"collections":{"users":{"required":["name"],"fields":{"age":"long"},"indexes":["email"]}}}
See omgdb docs validation. An invalid spec creates nothing.
Over MongoDB, --from is required and creates the spec's collections (none may
exist yet), each with its rules (as define) and indexes; see omgdb docs mongodb.`,
		Example: `  omgdb create app.omgdb
  omgdb create app.omgdb --from spec.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runCreate(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.from, "from", "", "a spec file declaring collections, rules and indexes (- for stdin)")
	return cmd
}

func (e *env) runCreate(ctx context.Context, opts *createOptions) error {
	var spec value.Value
	if opts.from != "" {
		arg := opts.from
		if arg != "-" {
			arg = "@" + arg
		}
		var err error
		if spec, err = e.parseArg(arg, "spec"); err != nil {
			return err
		}
		if err := store.CheckSpec(spec); err != nil {
			return err
		}
	}
	if isMongo(opts.path) {
		return e.mongoCreate(ctx, opts, spec)
	}
	db, err := e.open(opts.path, createIfNone, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	if !db.Created() {
		return errs.Errorf(errs.Conflict, "store %s already exists", opts.path).
			WithHint("choose another file name, or use the existing store (omgdb define changes its rules)")
	}
	if spec.IsMissing() {
		_, err = fmt.Fprintf(e.stdout, "created store at %s\n", opts.path)
		return err
	}
	var rep *store.SpecReport
	err = db.Update(store.Change{Kind: "create"}, func(tx *store.Tx) (err error) {
		rep, err = tx.ApplySpec(spec)
		return err
	})
	if err != nil {
		db.Close()
		os.Remove(opts.path)
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "created store at %s (%d collection(s) defined)\n", opts.path, len(rep.Collections))
	return err
}

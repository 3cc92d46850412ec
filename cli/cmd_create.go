package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query"
)

func init() { commands = append(commands, newCreateCmd) }

type createOptions struct {
	storeFlags
	path string
}

func newCreateCmd(e *env) *cobra.Command {
	opts := &createOptions{}
	cmd := &cobra.Command{
		Use:     "create <store>",
		Short:   "Create an empty store file",
		Long:    `Create an empty store. It is an error if the file already exists.`,
		Example: `  omgdb create app.omgdb`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runCreate(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runCreate(_ context.Context, opts *createOptions) error {
	db, err := e.open(opts.path, createIfNone, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	if !db.Created() {
		return query.Errorf(query.Conflict, "store %s already exists", opts.path).
			WithHint("choose another file name, or use the existing store")
	}
	_, err = fmt.Fprintf(e.stdout, "created store at %s\n", opts.path)
	return err
}

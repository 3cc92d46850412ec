package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"
)

func init() {
	commands = append(commands, command{"export", newExportCmd}, command{"dump", newDumpCmd}, command{"load", newLoadCmd})
}

type exportOptions struct {
	storeFlags
	path, coll string
	mongo      mongoexportFlags
	out        formatFlags
}

func newExportCmd(e *env) *cobra.Command {
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export <store> <collection>",
		Short: "Print one collection as canonical NDJSON, in _id order, or as mongoexport does",
		Long: `Print every document of one collection, one canonical JSON document per
line, in _id order. The output imports back with "omgdb import" unchanged.
mongoexport's options choose and shape the output: --query, --fields,
--sort, --skip, --limit; --jsonArray (one JSON array), --pretty (indented),
--type csv (with --fields: a header line, then one row per document, nested
fields by dotted name); --out FILE writes a file, whole or not at all. See
omgdb docs import-export. Printed to a terminal without those options, the
documents are shown as find shows them; --format chooses.`,
		Example: `  omgdb export app.omgdb users > users.ndjson
  omgdb export app.omgdb users --query '{"age":{"$gte":30}}' --sort '{"age":-1}' --limit 100
  omgdb export app.omgdb users --type csv --fields name,age,address.city --out users.csv
  omgdb export app.omgdb users --jsonArray --pretty --out users.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll = args[0], args[1]
			if err := opts.mongo.check(&opts.out); err != nil {
				return err
			}
			return e.runExport(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	opts.out.register(cmd)
	opts.mongo.register(cmd)
	return cmd
}

type dumpOptions struct {
	storeFlags
	path string
}

func newDumpCmd(e *env) *cobra.Command {
	opts := &dumpOptions{}
	cmd := &cobra.Command{
		Use:   "dump <store>",
		Short: "Print the whole store as deterministic canonical NDJSON",
		Long: `Print every collection, in name order, as a line {"collection":"<name>"}
followed by one line {"collection":"<name>","document":{…}} per document in
_id order, then {"collection":"<name>","rules":{…}} when it has validation
rules and {"collection":"<name>","index":{"name","kind","spec"}} per index.
"omgdb load" reads it back (rules and indexes after the documents); dump,
load, dump is byte-identical.`,
		Example: `  omgdb dump app.omgdb > app.ndjson`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runDump(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runDump(ctx context.Context, opts *dumpOptions) error {
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Dump(ctx, e.stdout)
}

type loadOptions struct {
	storeFlags
	path, file string
}

func newLoadCmd(e *env) *cobra.Command {
	opts := &loadOptions{}
	cmd := &cobra.Command{
		Use:   "load <store> [file|-]",
		Short: "Load a dump into a store, in one transaction",
		Long: `Read the output of "omgdb dump" from a file or standard input and insert
it, all in one transaction: a bad line loads nothing. A missing store is
created. Prints a JSON summary {"collections","documents","lines"}.`,
		Example: `  omgdb dump old.omgdb | omgdb load new.omgdb`,
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.file = args[0], "-"
			if len(args) == 2 {
				opts.file = args[1]
			}
			return e.runLoad(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runLoad(ctx context.Context, opts *loadOptions) error {
	in, _, err := e.openInput(opts.file)
	if err != nil {
		return err
	}
	defer in.Close()
	db, err := e.open(opts.path, createIfNone, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := db.Load(ctx, in)
	if err != nil {
		return err
	}
	js, _ := json.Marshal(sum)
	_, err = e.stdout.Write(append(js, '\n'))
	return err
}

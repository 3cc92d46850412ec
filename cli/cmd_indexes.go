package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"indexes", newIndexesCmd}) }

type indexesOptions struct {
	storeFlags
	path, coll string
	format     string
}

func newIndexesCmd(e *env) *cobra.Command {
	opts := &indexesOptions{}
	cmd := &cobra.Command{
		Use:   "indexes <store> <collection>",
		Short: "List a collection's indexes with their keys, options, entries and size",
		Long: `List the indexes of a collection, one JSON object per line:
{"name","kind","key","unique","sparse","multikey","collation","entries","size_bytes"}.
key is the key pattern ({"age":-1,"name":1}); multikey lists the fields on
which some document has had an array; entries counts index entries (one per
array element for multikey fields). --format table prints a table.`,
		Example: `  omgdb indexes app.omgdb users
  omgdb indexes app.omgdb users --format table`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll = args[0], args[1]
			if opts.format != "json" && opts.format != "table" {
				return usage("invalid --format %q (use json or table)", opts.format)
			}
			return e.runIndexes(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.format, "format", "json", "output format: json (one object per line) or table")
	return cmd
}

func (e *env) runIndexes(ctx context.Context, opts *indexesOptions) error {
	if isMongo(opts.path) {
		return e.mongoIndexes(ctx, opts)
	}
	var infos []store.IndexInfo
	err := e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
		var err error
		infos, err = c.IndexInfos()
		return err
	})
	if err != nil {
		return err
	}
	if opts.format == "table" {
		return writeIndexTable(e, infos)
	}
	for _, info := range infos {
		js, _ := json.Marshal(info)
		if _, err := e.stdout.Write(append(js, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func writeIndexTable(e *env, infos []store.IndexInfo) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tkey\toptions\tentries\tsize")
	for _, info := range infos {
		var opt []string
		if info.Unique {
			opt = append(opt, "unique")
		}
		if info.Sparse {
			opt = append(opt, "sparse")
		}
		if len(info.Multikey) > 0 {
			opt = append(opt, "multikey("+strings.Join(info.Multikey, ",")+")")
		}
		key := string(info.Key)
		if key == "" {
			key = info.Kind + " " + string(info.Spec)
		}
		if len(opt) == 0 {
			opt = append(opt, "-")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", info.Name, key, strings.Join(opt, " "), info.Entries, humanBytes(info.SizeBytes))
	}
	return tw.Flush()
}

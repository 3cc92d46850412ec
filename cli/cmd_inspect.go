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

func init() { commands = append(commands, command{"inspect", newInspectCmd}) }

type inspectOptions struct {
	storeFlags
	path string
	json bool
}

func newInspectCmd(e *env) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect <store>",
		Short: "Describe a store: collections, counts, sizes, journal",
		Long: `Print the store's collections with their document counts and sizes, the
file size and the journal position. --json prints
{"path","format","store_id","created","size_bytes","last_lsn","collections":[{"name","documents","data_bytes","created","indexes","rules"}]},
where indexes are as omgdb indexes prints them and rules are the validation
rules, when defined. Over a MongoDB store it prints the server's figures
(dbStats, collStats) in the fields that have a counterpart: --json prints
{"path","database","size_bytes","collections":[{"name","documents","data_bytes","indexes"}]}.`,
		Example: `  omgdb inspect app.omgdb
  omgdb inspect app.omgdb --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runInspect(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func (e *env) runInspect(ctx context.Context, opts *inspectOptions) error {
	if isMongo(opts.path) {
		return e.mongoInspect(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	info, err := db.Info()
	if err != nil {
		return err
	}
	header := fmt.Sprintf("store %s (format %d, %s, journal at lsn %d)", info.Path, info.Format, humanBytes(info.SizeBytes), info.LastLSN)
	return e.printInspect(opts.json, info, header, info.Collections)
}

// printInspect prints inspect's output, for a store file or a
// deployment: info as JSON with --json; else the header line, the number
// of collections and a table of them (an index's size is all a row
// needs of it).
func (e *env) printInspect(asJSON bool, info any, header string, colls []store.CollectionInfo) error {
	if asJSON {
		js, _ := json.Marshal(info)
		_, err := e.stdout.Write(append(js, '\n'))
		return err
	}
	fmt.Fprintln(e.stdout, header)
	fmt.Fprintf(e.stdout, "%d collection(s)\n", len(colls))
	if len(colls) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\ncollection\tdocuments\tdata\tindexes\trules")
	for _, c := range colls {
		rules := "-"
		if len(c.Rules) > 0 {
			rules = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", c.Name, c.Documents, humanBytes(c.DataBytes), indexNames(c.Indexes), rules)
	}
	return tw.Flush()
}

// indexNames lists index names with their sizes, or "-".
func indexNames(infos []store.IndexInfo) string {
	if len(infos) == 0 {
		return "-"
	}
	parts := make([]string, len(infos))
	for i, ix := range infos {
		parts[i] = fmt.Sprintf("%s (%s)", ix.Name, humanBytes(ix.SizeBytes))
	}
	return strings.Join(parts, ", ")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

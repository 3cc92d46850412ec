package cli

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

func init() { commands = append(commands, command{"diagnose", newDiagnoseCmd}) }

type diagnoseOptions struct {
	storeFlags
	path, coll, filter string
	limit              int64
	pretty             bool
}

func newDiagnoseCmd(e *env) *cobra.Command {
	opts := &diagnoseOptions{}
	cmd := &cobra.Command{
		Use:   "diagnose <store> <collection> <filter>",
		Short: "Explain why a filter matches what it matches (or nothing), predicate by predicate",
		Long: `The why-not debugger. For each predicate of the filter ($and is expanded),
print how many documents it matches alone, together with the predicates before
it, and how many the filter would match without it; name the predicate that
empties the result; and give hints with a corrected filter and how many
documents it would match: a field no document has (did you mean, including
case and dotted-path slips such as city for address.city), a value of the
wrong type ("30" for 30), a regular expression that matches only with the i
option, an $in whose only element is an array. Prints JSON
{"collection","filter","documents","examined","matches","predicates":[{"predicate","alone","with_previous","without_this"}],"emptied_by","verdict","hints":[{"kind","predicate","message","fix","would_match"}]};
see omgdb docs explain. Over a MongoDB store every count runs on the server,
among the first 100,000 documents in _id order (fewer with --limit), and the
JSON adds "bound".`,
		Example: `  omgdb diagnose app.omgdb users '{"age":"30","city":"Paris"}' --pretty`,
		Args:    cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.filter = args[0], args[1], args[2]
			if opts.limit < 0 {
				return usage("--limit must not be negative")
			}
			return e.runDiagnose(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().Int64Var(&opts.limit, "limit", 0, "read at most this many documents, the first in _id order (0: all)")
	cmd.Flags().BoolVar(&opts.pretty, "pretty", false, "indent the JSON")
	return cmd
}

func (e *env) runDiagnose(ctx context.Context, opts *diagnoseOptions) error {
	filter, err := e.compileFilter(opts.filter)
	if err != nil {
		return err
	}
	var d *store.Diagnosis
	if isMongo(opts.path) {
		d, err = e.mongoDiagnose(ctx, opts, filter)
	} else {
		err = e.viewCollection(opts.path, opts.coll, opts.storeFlags, func(c *store.Collection) error {
			var err error
			d, err = c.Diagnose(ctx, filter, &store.DiagnoseOptions{Limit: opts.limit})
			return err
		})
	}
	if err != nil {
		return err
	}
	out := e.output(opts.pretty)
	defer out.flush()
	return out.json(marshalJSON(d))
}

// marshalJSON encodes v as compact JSON without escaping <, > and &.
func marshalJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/docs"
	"github.com/omgdb/omgdb/query/errs"
)

func init() { commands = append(commands, command{"docs", newDocsCmd}) }

func newDocsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "docs [topic]",
		Short: "Print the manual, or one topic of it",
		Long: `Print omgdb's manual, which is embedded in the binary. Without a topic,
list the topics.`,
		Example: `  omgdb docs
  omgdb docs errors`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			topic := ""
			if len(args) == 1 {
				topic = args[0]
			}
			return e.runDocs(cmd.Context(), topic)
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return docs.Topics(), cobra.ShellCompDirectiveNoFileComp
		},
	}
}

func (e *env) runDocs(_ context.Context, topic string) error {
	if topic == "" {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "Topics (omgdb docs <topic>):")
		for _, t := range docs.Topics() {
			fmt.Fprintf(tw, "  %s\t%s\n", t, docs.Title(t))
		}
		return tw.Flush()
	}
	text, ok := docs.Read(topic)
	if !ok {
		return errs.Errorf(errs.NotFound, "no manual topic `%s`%s", topic, errs.DidYouMean(topic, docs.Topics())).
			WithHint("list the topics with `omgdb docs`")
	}
	_, err := fmt.Fprint(e.stdout, text)
	return err
}

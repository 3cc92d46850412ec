package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/changes"
)

func init() { commands = append(commands, command{"plans", newPlansCmd}) }

type plansOptions struct {
	storeFlags
	path, token string
	all, diff   bool
	pretty      bool
}

func newPlansCmd(e *env) *cobra.Command {
	opts := &plansOptions{}
	cmd := &cobra.Command{
		Use:   "plans <store>",
		Short: "List pending plans; show or discard one",
		Long: `List the pending plans of a store, oldest first, one JSON object per line:
{"token","kind","collection","filter","update","matched","modified","created",
"expires","status",…}. With --all, applied, discarded and expired plans too.
Pending plans expire (24 h by default, plan-* --expiry).

Over a MongoDB deployment (mongodb://…/DB) the plans are those of its
omgdb.plans collection; with --all also the plans of rollbacks, inserts
and imports, and those being applied (status applying). See omgdb docs
mongodb.`,
		Example: `  omgdb plans app.omgdb
  omgdb plans show app.omgdb 665f1c2e9b1d4a0c8e7f6a5b --diff
  omgdb plans discard app.omgdb 665f1c2e9b1d4a0c8e7f6a5b`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return e.runPlans(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.all, "all", false, "list every plan, not only pending ones")
	cmd.AddCommand(newPlansShowCmd(e), newPlansDiscardCmd(e))
	return cmd
}

func (e *env) runPlans(ctx context.Context, opts *plansOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlans(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	plans, err := changes.Plans(ctx, db, opts.all)
	if err != nil {
		return err
	}
	for _, p := range plans {
		if err := e.printJSON(p, false); err != nil {
			return err
		}
	}
	return nil
}

func newPlansShowCmd(e *env) *cobra.Command {
	opts := &plansOptions{}
	cmd := &cobra.Command{
		Use:   "show <store> <token>",
		Short: "Print every document a plan changes",
		Long: `Print every document a plan changes, one JSON object per line:
{"collection","_id","op","before","after","fields":[{"path","op","before","after"}]}
(op is insert, update or delete; matched documents that would not change are
left out). With --diff, a readable diff instead, headed by the plan. An
applied, discarded or expired plan no longer holds its documents.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.token = args[0], args[1]
			return e.runPlansShow(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().BoolVar(&opts.diff, "diff", false, "print a readable diff")
	return cmd
}

func (e *env) runPlansShow(ctx context.Context, opts *plansOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlansShow(ctx, opts)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	p, docs, err := changes.ShowPlan(ctx, db, opts.token)
	if err != nil {
		return err
	}
	if p.Status != changes.StatusPending {
		fmt.Fprintf(e.stderr, "plan %s is %s; it no longer holds its documents", p.Token, p.Status)
		if p.Status == changes.StatusApplied && p.AppliedLSN > 0 {
			fmt.Fprintf(e.stderr, "; what it changed: `omgdb diff %s %d %d`", opts.path, p.AppliedLSN-1, p.AppliedLSN)
		}
		fmt.Fprintln(e.stderr)
	}
	return e.printPlanDocs(p, docs, opts.diff)
}

// printPlanDocs prints a plan's documents, one JSON object per line, or
// with diff a readable diff headed by the plan.
func (e *env) printPlanDocs(p *changes.Plan, docs []changes.PlanDoc, diff bool) error {
	if !diff {
		for _, d := range docs {
			if err := e.printJSON(d, false); err != nil {
				return err
			}
		}
		return nil
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	fmt.Fprintln(w, planTitle(p))
	for _, d := range docs {
		writeDocDiff(w, d.Collection, d.ID.Value, d.Before.Value, d.After.Value, d.Fields)
	}
	return nil
}

func newPlansDiscardCmd(e *env) *cobra.Command {
	opts := &plansOptions{}
	cmd := &cobra.Command{
		Use:   "discard <store> <token>",
		Short: "Drop a pending plan",
		Long:  `Drop a pending plan: its token can no longer be applied. Prints the plan.`,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.token = args[0], args[1]
			return e.runPlansDiscard(cmd.Context(), opts)
		},
	}
	opts.register(cmd)
	return cmd
}

func (e *env) runPlansDiscard(ctx context.Context, opts *plansOptions) error {
	if isMongo(opts.path) {
		return e.mongoPlansDiscard(ctx, opts)
	}
	db, err := e.open(opts.path, readWrite, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := changes.Discard(ctx, db, opts.token)
	if err != nil {
		return err
	}
	return e.printJSON(p, false)
}

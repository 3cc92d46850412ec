package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
)

// nameArgErrors makes c's argument-count errors name what is missing or
// extra, from the arguments its Use line lists, with the usage line as the
// hint: "find: missing <collection>" rather than cobra's "accepts between
// 2 and 3 arg(s), received 1".
func nameArgErrors(c *cobra.Command) {
	check := c.Args
	if check == nil {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return argCountError(cmd, check, args, err)
		}
		return nil
	}
}

// argCountError explains err, check's verdict on args, with the argument
// names of cmd's Use line: the ones missing up to the fewest check takes,
// or the first one too many.
func argCountError(cmd *cobra.Command, check cobra.PositionalArgs, args []string, err error) error {
	names := useArgs(cmd.Use)
	need := len(args)
	for need <= len(names) && check(cmd, make([]string, need)) != nil {
		need++
	}
	variadic := len(names) > 0 && strings.HasSuffix(names[len(names)-1], "…")
	var e *errs.Error
	switch {
	case need > len(args) && need <= len(names):
		e = usage("%s: missing %s", cmd.Name(), strings.Join(names[len(args):need], " "))
	case !variadic && len(names) > 0 && len(args) > len(names):
		e = usage("%s: too many arguments: %q is more than %s takes", cmd.Name(), args[len(names)], strings.Join(names, " "))
	default:
		e = usage("%s: %v", cmd.Name(), err)
	}
	return e.WithHint("usage: %s", cmd.UseLine())
}

// useArgs returns the positional arguments a Use line lists, up to a "|"
// that starts another form.
func useArgs(use string) []string {
	var names []string
	for _, f := range strings.Fields(use)[1:] {
		if f == "|" {
			break
		}
		if !strings.HasPrefix(f, "--") && !strings.HasPrefix(f, "[--") {
			names = append(names, f)
		}
	}
	return names
}

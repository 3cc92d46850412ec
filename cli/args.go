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
			return argCountError(cmd, args, err)
		}
		return nil
	}
}

// argCountError explains err, cobra's verdict on args, with the argument
// names of cmd's Use line.
func argCountError(cmd *cobra.Command, args []string, err error) error {
	names, required := useArgs(cmd.Use)
	var e *errs.Error
	switch {
	case len(args) < required:
		e = usage("%s: missing %s", cmd.Name(), strings.Join(names[len(args):required], " "))
	case len(names) > 0 && !strings.HasSuffix(names[len(names)-1], "…") && len(args) > len(names):
		e = usage("%s: too many arguments: %q is more than %s takes", cmd.Name(), args[len(names)], strings.Join(names, " "))
	default:
		e = usage("%s: %v", cmd.Name(), err)
	}
	return e.WithHint("usage: %s", cmd.UseLine())
}

// useArgs returns the positional arguments a Use line lists (up to a "|"
// that starts another form), and how many of them are required: the
// <angle-bracketed> ones before the first [optional] one.
func useArgs(use string) (names []string, required int) {
	fields := strings.Fields(use)
	for _, f := range fields[1:] {
		if f == "|" {
			break
		}
		if strings.HasPrefix(f, "--") || strings.HasPrefix(f, "[--") {
			continue
		}
		names = append(names, f)
		if strings.HasPrefix(f, "<") && required == len(names)-1 {
			required++
		}
	}
	return names, required
}

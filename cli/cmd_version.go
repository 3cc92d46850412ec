package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// Version is omgdb's version, set at build time with
// -ldflags "-X github.com/omgdb/omgdb/cli.Version=…".
var Version = "0.1.0-dev"

func init() { commands = append(commands, command{"version", newVersionCmd}) }

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print omgdb's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(e.stdout, "omgdb %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

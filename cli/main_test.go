package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCLI_PanicBecomesError: a panic inside a command (a bug) is caught
// at the CLI boundary and reported as an internal error with exit 74,
// with a stack trace only when OMGDB_DEBUG is set.
func TestCLI_PanicBecomesError(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = append(commands[:len(commands):len(commands)],
		func(*env) *cobra.Command {
			return &cobra.Command{Use: "boom", Hidden: true, RunE: func(*cobra.Command, []string) error { panic("boom") }}
		},
		func(*env) *cobra.Command {
			return &cobra.Command{Use: "nilmap", Hidden: true, RunE: func(*cobra.Command, []string) error {
				var m map[string]int
				m["x"] = 1
				return nil
			}}
		})
	for _, tc := range []struct{ cmd, msg string }{
		{"boom", "error: internal error: boom (please report this; set OMGDB_DEBUG=1 for a stack trace)\n"},
		{"nilmap", "error: internal error: assignment to entry in nil map (please report this; set OMGDB_DEBUG=1 for a stack trace)\n"},
	} {
		var out, errb bytes.Buffer
		if code := Main([]string{tc.cmd}, strings.NewReader(""), &out, &errb); code != ExitIO {
			t.Errorf("%s: exit %d, want %d", tc.cmd, code, ExitIO)
		}
		if errb.String() != tc.msg {
			t.Errorf("%s: stderr %q, want %q", tc.cmd, errb.String(), tc.msg)
		}
	}
	t.Setenv("OMGDB_DEBUG", "1")
	var errb bytes.Buffer
	Main([]string{"boom"}, strings.NewReader(""), &bytes.Buffer{}, &errb)
	if !strings.Contains(errb.String(), "goroutine ") || !strings.Contains(errb.String(), "error: internal error: boom") {
		t.Errorf("with OMGDB_DEBUG, stderr = %q, want a stack trace and the error", errb.String())
	}
}

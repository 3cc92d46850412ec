package cli

import (
	"bytes"
	"fmt"
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
		command{"boom", func(*env) *cobra.Command {
			return &cobra.Command{Use: "boom", Hidden: true, RunE: func(*cobra.Command, []string) error { panic("boom") }}
		}},
		command{"nilmap", func(*env) *cobra.Command {
			return &cobra.Command{Use: "nilmap", Hidden: true, RunE: func(*cobra.Command, []string) error {
				var m map[string]int
				m["x"] = 1
				return nil
			}}
		}})
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

// TestCommandNames: each subcommand is registered under its own name, which
// the one-subcommand tree of newRootCmdFor relies on.
func TestCommandNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		if got := c.make(&env{}).Name(); got != c.name {
			t.Errorf("command registered as %q is named %q", c.name, got)
		}
		if seen[c.name] {
			t.Errorf("command %q registered twice", c.name)
		}
		seen[c.name] = true
	}
}

// TestCommandTree_OneLikeAll: a subcommand built alone (how Main runs it)
// prints the same help and the same usage errors as in the whole tree.
func TestCommandTree_OneLikeAll(t *testing.T) {
	run := func(whole bool, args ...string) string {
		wholeTree = whole
		defer func() { wholeTree = false }()
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "--no-such-flag"}, {c.name, "-h", "extra"}} {
			if one, all := run(false, args...), run(true, args...); one != all {
				t.Errorf("omgdb %s: alone\n%s\nin the whole tree\n%s", strings.Join(args, " "), one, all)
			}
		}
	}
	if one, all := run(false, "version"), run(true, "version"); one != all || !strings.Contains(one, "omgdb ") {
		t.Errorf("omgdb version: alone\n%s\nin the whole tree\n%s", one, all)
	}
}

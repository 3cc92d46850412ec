package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allCommands returns every command of the whole tree but help and
// completion, subcommands included.
func allCommands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			out = append(out, sub)
			walk(sub)
		}
	}
	walk(newRootCmd(&env{}))
	return out
}

// markdown matches what Markdown would render and a terminal prints raw:
// back-quoted code, bold, links, headings and fenced blocks.
var markdown = regexp.MustCompile("`|\\*\\*|\\]\\(|(?m)^#+ |(?m)^~~~")

// quoted matches a double-quoted sample of what a command prints, which
// may hold back quotes of its own ("created index on `users.age`").
var quoted = regexp.MustCompile(`"[^"\n]*"`)

// TestHelp_PlainText: help texts are plain text, and no flag's usage holds
// a back-quoted word, which pflag would print as the flag's value name
// (find --help once showed "--hint omgdb indexes").
func TestHelp_PlainText(t *testing.T) {
	for _, c := range allCommands() {
		for what, text := range map[string]string{"Short": c.Short, "Long": c.Long, "Example": c.Example} {
			if m := markdown.FindString(quoted.ReplaceAllString(text, `""`)); m != "" {
				t.Errorf("omgdb %s: %s holds Markdown %q:\n%s", c.CommandPath()[len("omgdb "):], what, m, text)
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				name, _ := pflag.UnquoteUsage(f)
				t.Errorf("omgdb %s --%s: usage %q has a back-quoted word, shown as the value name %q", c.CommandPath()[len("omgdb "):], f.Name, f.Usage, name)
			}
		})
	}
}

// TestHelp_ImportNoGCTalk: import --help explains importing, not the
// garbage collector (that is in docs/cli.md).
func TestHelp_ImportNoGCTalk(t *testing.T) {
	var out, errb bytes.Buffer
	Main([]string{"import", "--help"}, strings.NewReader(""), &out, &errb)
	for _, w := range []string{"GOGC", "garbage"} {
		if strings.Contains(out.String(), w) {
			t.Errorf("import --help mentions %q:\n%s", w, out.String())
		}
	}
}

// TestHelp_MissingArgument: every command given too few arguments names
// the first missing one, shows its usage line, and exits 64.
func TestHelp_MissingArgument(t *testing.T) {
	for _, c := range allCommands() {
		want := requiredArgs(c.Use)
		if len(want) == 0 || !c.Runnable() {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(c.CommandPath(), "omgdb "))
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		msg := errb.String()
		if code != ExitUsage || !strings.Contains(msg, "missing "+want[0]) || !strings.Contains(msg, c.UseLine()) {
			t.Errorf("omgdb %s with no arguments: exit %d, stderr\n%s\nwant exit 64, %q and the usage line %q", strings.Join(args, " "), code, msg, "missing "+want[0], c.UseLine())
		}
	}
}

// requiredArgs returns the <required> arguments of a Use line.
func requiredArgs(use string) []string {
	var out []string
	for _, f := range strings.Fields(use)[1:] {
		if strings.HasPrefix(f, "<") && strings.HasSuffix(f, ">") {
			out = append(out, f)
		}
	}
	return out
}

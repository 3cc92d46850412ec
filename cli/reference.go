package cli

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// referenceIntro is the hand-written part of docs/cli.md: output formats,
// progress, Ctrl-C and exit codes, what the commands share.
//
//go:embed reference_intro.md
var referenceIntro string

// writeReference writes the Markdown CLI reference (docs/cli.md) from the
// command tree, so the manual can never describe flags that do not exist.
func writeReference(w io.Writer) {
	root := newRootCmd(&env{})
	fmt.Fprintf(w, "# Command reference\n\n")
	fmt.Fprintf(w, "Generated from the program by `make docs`; a test fails when it is stale.\n\n")
	fmt.Fprintf(w, "Shape: `omgdb <command> <store> [args] [flags]`. JSON arguments may be given\n")
	fmt.Fprintf(w, "inline, as `@file.json`, or as `-` for standard input.\n\n")
	cmds := visible(root)
	for _, c := range cmds {
		fmt.Fprintf(w, "- [`%s`](#omgdb-%s): %s\n", c.Name(), c.Name(), c.Short)
	}
	fmt.Fprintf(w, "\n%s", referenceIntro)
	for _, c := range cmds {
		writeCommand(w, c)
	}
}

func visible(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out = append(out, c)
	}
	return out
}

func writeCommand(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "\n## omgdb %s\n\n%s.\n\n```\n%s\n```\n", c.Name(), c.Short, c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(w, "\n%s\n", c.Long)
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n\n```sh\n%s\n```\n", strings.TrimRight(unindent(c.Example), "\n"))
	}
	if flags := c.NonInheritedFlags().FlagUsages(); strings.TrimSpace(flags) != "" {
		fmt.Fprintf(w, "\nFlags:\n\n```\n%s```\n", flags)
	}
	for _, sub := range c.Commands() {
		writeCommand(w, sub)
	}
}

func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

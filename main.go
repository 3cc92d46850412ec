// Command omgdb is an embedded document database in one file, a tool for
// scripts, and an MCP server for coding agents. See `omgdb docs`.
package main

import (
	"os"

	"github.com/omgdb/omgdb/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

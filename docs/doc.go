// Package docs is omgdb's manual: Markdown pages embedded in the binary,
// printed by `omgdb docs` and served to agents as MCP resources.
package docs

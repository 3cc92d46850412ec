// Package cli is the omgdb command line: one cobra command per file
// (cmd_<name>.go), each parsing its arguments into an options struct and
// calling the engine (store, changes, vector, mcpserver). Main runs a
// command with the given arguments and streams and returns the process
// exit code; it is the one place where errors become exit codes (SPEC.md
// section 1: 64 usage, 65 bad data, 66 not found, 69 conflict, 74 I/O,
// 75 busy, 77 refused, 130 interrupted), and it prints an error's message
// and hint as "error: …" and "hint: …" on standard error. Argument-count
// errors name the missing argument from the command's Use line (args.go);
// Ctrl-C cancels the command's context, and the command's error becomes
// "interrupted: <what was committed>" (interrupt.go).
//
// Data goes to standard output as canonical NDJSON into a pipe (a found
// document is written as it is stored when nothing changes it, see
// store.RawSource), in mongosh's style on a terminal (internal/pretty),
// or as --format says: json, table or csv (format.go, table.go).
// Progress bars, warnings and errors go to standard error; progress only
// when it is a terminal (progress.go). Only this package
// and main.go import cobra, touch the process's standard streams or exit.
// The command reference in docs/cli.md is generated from the command tree
// and kept current by TestCLIReference.
package cli

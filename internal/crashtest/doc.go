// Package crashtest kills writers at random moments, or at named points
// of the engine (package failpoint), for the crash tests.
//
// A test binary re-executes itself as a child (Main, called from
// TestMain, switches on an environment variable) that runs a workload: it
// opens a store, prints "ready", and then writes in a loop, printing a line
// after each commit returns. The parent (Kill) starts the child, waits for
// "ready" and a random delay, kills it with SIGKILL, and returns every
// complete line the child printed. The lines are the child's
// acknowledgements: what they name was committed, and the parent checks it
// is in the store after reopening it.
//
// Writes to a pipe of less than PIPE_BUF bytes are atomic, so a line the
// child wrote is either wholly read by the parent or not at all, even when
// the kill comes in the middle of the write.
package crashtest

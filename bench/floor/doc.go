// Package floor holds two programs that measure the start-up floor under
// omgdb's whole-process figures: hello is a Go program that does nothing
// but print, and deps is the same program linking every third-party
// package omgdb's own packages import, so that their package
// initialisation runs. The benchmark program builds both as it builds
// omgdb (static, -trimpath) and times them as whole processes beside the
// sqlite3 CLI's point find. A test in the repository root keeps deps's
// import list equal to what the binary imports.
package floor

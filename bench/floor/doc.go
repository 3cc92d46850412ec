// Package floor holds three programs that measure the start-up floor
// under omgdb's whole-process figures: hello is a Go program that does
// nothing but print; deps is the same program linking every third-party
// package omgdb's own packages import, so that their package
// initialisation runs; all links the standard library's packages they
// import too (net/http, crypto, …). The benchmark program builds them
// as it builds omgdb (static, -trimpath) and times them as whole
// processes beside the sqlite3 CLI's point find. A test in the repository root keeps the import
// lists of deps and all equal to what the binary's packages import.
package floor

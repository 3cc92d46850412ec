// Package failpoint lets the crash tests kill a process at a named point
// of the engine, such as between a transaction's journal record and its
// commit, rather than only at random moments.
//
// The engine calls Hit("name") at each such point. Off (always, unless a
// test asks), Hit is one atomic load and a branch. A test child turns one
// point on with the environment variable OMGDB_FAILPOINT=name[:n], read at
// the first Hit (never at process start), or with Enable: the process then
// kills itself with SIGKILL at the nth hit of that point (the first by
// default), as a crash would, with nothing flushed or cleaned up.
//
// The points are listed in Points; docs/reliability.md says where each
// one is.
package failpoint

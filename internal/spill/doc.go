// Package spill sorts more records than memory should hold: an external
// merge sort of (key, value) byte records, ordered by bytes.Compare of
// their keys and, for equal keys, by the order they were added (the sort
// is stable).
//
// A Sorter holds records in memory up to a budget. Past it, it sorts what
// it holds and writes it as a run to a temporary file, then starts again;
// Sort merges the runs and what is still in memory into one stream. With
// no run written, nothing touches the disk. A Tape is the same without the
// sort: values kept in order, read back any number of times ($facet).
//
// No exit path leaves a run file behind: not an error, not a panic, not a
// crash or a kill. On Linux a run is a file without a name (O_TMPFILE),
// which the kernel frees with its last descriptor. Elsewhere, or on a file
// system that cannot, it is named omgdb-sort-<pid>-* and its name removed
// at once; a process killed in between leaves the name, which the next
// sort that names files in that directory removes once it sees that the
// process is gone.
//
// The package is a leaf of omgdb's packages: callers encode their own
// keys (the store uses query.Sort.AppendKey) and values (canonical JSON).
package spill

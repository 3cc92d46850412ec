// Command bench runs omgdb's workloads side by side with the peers a user
// would pick instead (the sqlite3 CLI, SQLite with JSONB through
// better-sqlite3, DuckDB, jq, mingo), on one seeded dataset, and prints a
// table of medians, ranges and ratios that it also writes as Markdown.
//
//	bash bench/setup.sh                   # install the peers (skipped when unavailable)
//	go run ./bench -n 1000000 -runs 5     # writes docs/benchmarks.md
//
// It is run by hand: timings depend on the machine and its load, which the
// report records. Nothing here is asserted in tests.
package main

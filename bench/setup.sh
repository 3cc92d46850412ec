#!/usr/bin/env bash
# setup.sh installs the peers `go run ./bench` compares omgdb with. Each
# peer that cannot be installed is skipped with a message; the benchmark
# then reports it as unavailable. Safe to run again.
#
#   bash bench/setup.sh            # install into $OMGDB_BENCH_PEERS
#
# Debian: sqlite3 (3.40, text JSON), jq. npm, into $OMGDB_BENCH_PEERS
# (default ~/.cache/omgdb-bench): better-sqlite3 (a recent SQLite with
# JSONB), @duckdb/node-api (DuckDB reading NDJSON), mingo (MongoDB queries
# in JavaScript).
set -u
dir="${OMGDB_BENCH_PEERS:-$HOME/.cache/omgdb-bench}"

need_apt=()
command -v sqlite3 >/dev/null || need_apt+=(sqlite3)
command -v jq >/dev/null || need_apt+=(jq)
command -v node >/dev/null || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" ||
			echo "setup: apt-get install ${need_apt[*]} failed; those peers will be skipped" >&2
	else
		echo "setup: missing ${need_apt[*]} (install them with apt); those peers will be skipped" >&2
	fi
fi

if ! command -v npm >/dev/null; then
	echo "setup: no npm; better-sqlite3, DuckDB and mingo will be skipped" >&2
	exit 0
fi
mkdir -p "$dir"
cd "$dir" || exit 0
[ -f package.json ] || echo '{"name":"omgdb-bench-peers","private":true}' >package.json
# Exact versions, so that a run is reproducible.
for pkg in better-sqlite3@12.11.1 @duckdb/node-api@1.5.6-r.1 mingo@7.2.7; do
	name="${pkg%@*}"
	if [ -d "node_modules/$name" ] && node -e "require('$name')" 2>/dev/null; then
		continue
	fi
	echo "setup: npm install $pkg" >&2
	npm install --save-exact --no-audit --no-fund "$pkg" >npm-"${name//\//_}".log 2>&1 ||
		echo "setup: npm install $pkg failed (see $dir/npm-${name//\//_}.log); it will be skipped" >&2
done
echo "$dir"

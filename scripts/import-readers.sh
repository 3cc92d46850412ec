#!/bin/sh
# scripts/import-readers.sh [docs] [batch]: the many-process test of an MCP
# server, CLI reads and a backup during an import (import_readers.txtar),
# at a larger size, with the built omgdb binary: imports docs documents
# (default 1000000, about 145 MB of NDJSON) in batches of batch (default
# 10000, the import's default) into a new store in a temporary directory
# and prints what the readers saw and their slowest answers.
set -eu
docs=${1:-1000000}
batch=${2:-10000}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$repo"
CGO_ENABLED=0 go build -trimpath -o "$dir/bin/omgdb" .
go test -c -o "$dir/bin/omgdb-import-readers" ./cli
cd "$dir"
PATH=$dir/bin:$PATH
awk -v n="$docs" 'BEGIN { p = sprintf("%100s", ""); gsub(/ /, "x", p); for (i = 0; i < n; i++) printf "{\"_id\":%d,\"name\":\"user %d\",\"pad\":\"%s\"}\n", i, i, p }' >in.ndjson
omgdb insert app.omgdb big '{"_id":"seed-1"}' >/dev/null 2>&1
omgdb insert app.omgdb big '{"_id":"seed-2"}' >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
start=$(date +%s)
omgdb-import-readers app.omgdb big in.ndjson "$batch" 2 backup.omgdb
echo "import with readers: $(($(date +%s) - start)) s"
omgdb verify app.omgdb
omgdb verify backup.omgdb

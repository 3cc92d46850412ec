#!/bin/sh
# make vulncheck: run govulncheck on omgdb's packages.
#
# govulncheck needs the Go vulnerability database. By default it reads it
# from its public address (vuln.go.dev). Where that is not reachable, set
# OMGDB_VULNDB to a copy in the database's v1 layout (index/db.json,
# index/modules.json, ID/GO-*.json), as a file:// URL or a directory.
# GOVULNCHECK names a govulncheck binary to use instead of building one.
#
# The tool is built in a scratch module of its own, so that omgdb's go.mod
# does not gain it, with golang.org/x/telemetry pinned to a version the
# module proxy serves (some proxies lack the one govulncheck asks for).
set -eu
cd "$(dirname "$0")/.."
version=v1.9.0
telemetry=v0.0.0-20261009151841-97e8ea77aa2a
bin=${GOVULNCHECK:-}
if [ -z "$bin" ]; then
	cache=$(go env GOCACHE)/omgdb-govulncheck-$version
	bin=$cache/govulncheck
	if [ ! -x "$bin" ]; then
		mkdir -p "$cache/src"
		(
			cd "$cache/src"
			[ -f go.mod ] || go mod init omgdb-govulncheck >/dev/null 2>&1
			go mod edit -replace "golang.org/x/telemetry=golang.org/x/telemetry@$telemetry"
			GOFLAGS=-mod=mod go get "golang.org/x/vuln/cmd/govulncheck@$version" >/dev/null
			GOFLAGS=-mod=mod go build -o "$bin" golang.org/x/vuln/cmd/govulncheck
		)
	fi
fi
db=${OMGDB_VULNDB:-}
case "$db" in
"" | *://*) ;;
*) db=file://$(cd "$db" && pwd) ;;
esac
if [ -n "$db" ]; then
	exec "$bin" -db "$db" ./...
fi
exec "$bin" ./...

#!/bin/sh
# make conformance: run the MCP conformance suite
# (@modelcontextprotocol/conformance, from the npm registry) against
# `omgdb mcp --http` on a loopback port, with a small store in a scratch
# directory. Scenarios that do not apply to omgdb are listed, with the
# reason for each, in scripts/conformance/expected-failures.yaml; the run
# fails on any other failure. Not part of `go test ./...`: it needs npx
# and the npm registry.
#
# The suite is pinned: 0.1.13 is the newest release that runs on Node 20
# (0.1.14 and later need fs.globSync, from Node 22). CONFORMANCE_VERSION overrides it;
# CONFORMANCE_OUT keeps the per-scenario results in that directory.
set -eu
cd "$(dirname "$0")/.."
version=${CONFORMANCE_VERSION:-0.1.13}
port=${CONFORMANCE_PORT:-18765}
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
CGO_ENABLED=0 go build -trimpath -o "$work/omgdb" .
(cd "$work" && ./omgdb insert app.omgdb users '{"name":"ada","age":36}' >/dev/null)
(cd "$work" && exec ./omgdb mcp --http "127.0.0.1:$port" --insecure-loopback) 2>"$work/server.log" &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q 'url=' "$work/server.log" 2>/dev/null && break
	sleep 0.5
done
if ! kill -0 "$pid" 2>/dev/null || ! grep -q 'url=' "$work/server.log"; then
	echo "conformance: omgdb mcp did not start on 127.0.0.1:$port (CONFORMANCE_PORT picks another):" >&2
	cat "$work/server.log" >&2
	exit 1
fi
out=${CONFORMANCE_OUT:-$work/results}
npx --yes "@modelcontextprotocol/conformance@$version" server \
	--url "http://127.0.0.1:$port/mcp" \
	--expected-failures scripts/conformance/expected-failures.yaml \
	-o "$out"

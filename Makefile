.PHONY: all build fmt vet test fuzz crash bench docs vulncheck conformance
all: fmt vet test

# A static binary: the cgo build links dynamically (pflag imports net) and
# starts about 1 ms slower.
build:
	CGO_ENABLED=0 go build -trimpath -o omgdb .

fmt:
	gofmt -l -w $$(git ls-files '*.go')

vet:
	go vet ./...

test:
	go test -race ./...

fuzz:
	for p in $$(go list ./...); do for t in $$(go test -list 'Fuzz.*' $$p | grep ^Fuzz); do go test -run '^$$' -fuzz "^$$t$$" -fuzztime 30s $$p || exit 1; done; done

# The long crash run: 2000 kill cycles (the default suite runs 200).
crash:
	OMGDB_CRASH_CYCLES=2000 go test -count=1 -run TestCrash_KillWriter -v ./store

bench:
	go test -run '^$$' -bench . -benchmem ./...

docs:
	go test ./cli -run TestCLIReference -update

# govulncheck on every package; OMGDB_VULNDB=<dir or file:// URL> uses a
# local copy of the Go vulnerability database (see the script).
vulncheck:
	sh scripts/vulncheck.sh

# The MCP conformance suite over HTTP (needs npx and the npm registry);
# scripts/conformance/expected-failures.yaml says which scenarios do not
# apply, and why.
conformance:
	sh scripts/conformance.sh

.PHONY: all build fmt vet test fuzz bench docs
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
	for t in $$(go test -list 'Fuzz.*' ./query | grep ^Fuzz); do go test -run '^$$' -fuzz "^$$t$$" -fuzztime 30s ./query || exit 1; done

bench:
	go test -run '^$$' -bench . -benchmem ./...

docs:
	go test ./cli -run TestCLIReference -update

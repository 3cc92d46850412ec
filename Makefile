.PHONY: all fmt vet test fuzz bench docs
all: fmt vet test

fmt:
	gofmt -l -w $$(git ls-files '*.go')

vet:
	go vet ./...

test:
	go test -race ./...

fuzz:
	for p in ./query ./mcpserver; do for t in $$(go test -list 'Fuzz.*' $$p | grep ^Fuzz); do go test -run '^$$' -fuzz "^$$t$$" -fuzztime 30s $$p || exit 1; done; done

bench:
	go test -run '^$$' -bench . -benchmem ./...

docs:
	go test ./cli -run TestCLIReference -update

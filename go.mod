module github.com/omgdb/omgdb

go 1.26.8

require (
	github.com/klauspost/compress v1.18.0
	github.com/rogpeppe/go-internal v1.14.1
	github.com/spf13/cobra v1.10.2
	go.etcd.io/bbolt v1.4.3
	golang.org/x/sys v0.29.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

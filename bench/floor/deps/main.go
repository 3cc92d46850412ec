// Command deps prints one line after the package initialisation of every
// third-party package omgdb's own packages import (TestStartupFloorDeps
// keeps the list current): the start-up the dependencies cost, with none
// of omgdb's code. The standard library's packages (net/http, crypto) are
// not here: their cost is the difference between this and omgdb version.
package main

import (
	"os"

	_ "github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/search/query"
	_ "github.com/blevesearch/go-porterstemmer"
	_ "github.com/blevesearch/segment"
	_ "github.com/chzyer/readline"
	_ "github.com/cockroachdb/apd/v3"
	_ "github.com/dop251/goja"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/mattn/go-runewidth"
	_ "github.com/spf13/cobra"
	_ "github.com/viterin/vek/vek32"
	_ "go.etcd.io/bbolt"
	_ "go.etcd.io/bbolt/errors"
	_ "go.mongodb.org/mongo-driver/v2/bson"
	_ "go.mongodb.org/mongo-driver/v2/mongo"
	_ "go.mongodb.org/mongo-driver/v2/mongo/options"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/sys/unix"
)

func main() { os.Stdout.WriteString("hello\n") }

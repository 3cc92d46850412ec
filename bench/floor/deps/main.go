// Command deps prints one line after the package initialisation of every
// third-party package omgdb's own packages import (TestStartupFloorDeps
// keeps the list current): the start-up the dependencies cost, with none
// of omgdb's code. The standard library's packages (net/http, crypto) are
// not here: their cost is the difference between this and omgdb version.
package main

import (
	"os"

	_ "github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/da"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/de"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/es"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/it"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/nl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/no"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pt"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ru"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/sv"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/tr"
	_ "github.com/blevesearch/bleve/v2/search/query"
	_ "github.com/blevesearch/go-porterstemmer"
	_ "github.com/blevesearch/segment"
	_ "github.com/blevesearch/snowballstem"
	_ "github.com/blevesearch/snowballstem/danish"
	_ "github.com/blevesearch/snowballstem/dutch"
	_ "github.com/blevesearch/snowballstem/english"
	_ "github.com/blevesearch/snowballstem/finnish"
	_ "github.com/blevesearch/snowballstem/french"
	_ "github.com/blevesearch/snowballstem/german"
	_ "github.com/blevesearch/snowballstem/hungarian"
	_ "github.com/blevesearch/snowballstem/italian"
	_ "github.com/blevesearch/snowballstem/norwegian"
	_ "github.com/blevesearch/snowballstem/portuguese"
	_ "github.com/blevesearch/snowballstem/romanian"
	_ "github.com/blevesearch/snowballstem/russian"
	_ "github.com/blevesearch/snowballstem/spanish"
	_ "github.com/blevesearch/snowballstem/swedish"
	_ "github.com/blevesearch/snowballstem/turkish"
	_ "github.com/chzyer/readline"
	_ "github.com/cockroachdb/apd/v3"
	_ "github.com/dop251/goja"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/mattn/go-runewidth"
	_ "github.com/spf13/cobra"
	_ "github.com/viterin/vek/vek32"
	_ "go.etcd.io/bbolt"
	_ "go.etcd.io/bbolt/errors"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/unicode/norm"
)

func main() { os.Stdout.WriteString("hello\n") }

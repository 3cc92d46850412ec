package main

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// language lists the packages of the query language (query/...), from the
// top layer down.
var language = []string{"query/agg", "query/rules", "query", "query/geo", "query/text", "query/expr", "query/collation", "query/value", "query/value/jsonscan", "query/errs"}

// allowed lists, for each package of DESIGN.md section 2, the omgdb
// packages it may import. Imports point down only:
// cli -> mcpserver -> {changes, vector} -> store -> query/..., and inside
// the language agg -> query -> expr -> value -> errs. The language's
// packages are keyed by their full path, the others by their top
// directory; the layers above the language may import all of it.
var allowed = map[string][]string{
	"query/errs":           {},
	"query/value/jsonscan": {},
	"query/value":          {"query/value/jsonscan", "query/errs"},
	"query/collation":      {"query/value", "query/errs"},
	"query/expr":           {"query/collation", "query/value", "query/errs"},
	"query/geo":            {"query/value", "query/errs"},
	"query/text":           {"query/value", "query/errs"},
	"query":                {"query/text", "query/geo", "query/expr", "query/collation", "query/value", "query/errs"},
	"query/rules":          {"query", "query/text", "query/geo", "query/expr", "query/collation", "query/value", "query/errs"},
	"query/agg":            {"query", "query/geo", "query/expr", "query/collation", "query/value", "query/errs"},
	// valuetest is a test helper of the language (testOnly): it rewrites
	// values for differential tests and is never part of the binary.
	"query/value/valuetest": {"query/value"},
	"store":                 language,
	"changes":               append([]string{"store"}, language...),
	"vector":                append([]string{"store"}, language...),
	"mcpserver":             append([]string{"changes", "vector", "engine", "retrieval", "store", "docs"}, language...),
	"shell":                 append([]string{"changes", "engine", "store"}, language...),
	"cli":                   append([]string{"shell", "mcpserver", "changes", "vector", "engine", "retrieval", "mongoengine", "store", "docs"}, language...),
	"engine":                append([]string{"store"}, language...),
	"retrieval":             append([]string{"engine", "vector", "store"}, language...),
	"mongoengine":           append([]string{"engine"}, language...),
	"docs":                  {},
	"bench":                 append([]string{"cli", "mcpserver", "changes", "vector", "store"}, language...),
}

// packageOf returns the key of allowed for a directory (slash-separated,
// relative to the module root): the full path inside query/, the top
// directory elsewhere, and "main" for the root.
func packageOf(dir string) string {
	if dir == "." {
		return "main"
	}
	if dir == "query" || strings.HasPrefix(dir, "query/") {
		return dir
	}
	return strings.Split(dir, "/")[0]
}

// testOnly are packages of ours that only _test.go files may import.
var testOnly = []string{"query/value/valuetest"}

// onlyCLI are imports reserved to cli/ and main.go.
var onlyCLI = []string{"github.com/spf13/cobra"}

// onlyStore are imports reserved to store/, its tests included: the store
// is the only package that knows the file's layout, and changes/ and
// vector/ keep their data through its typed API (DESIGN.md section 2).
// There is no exception: internal/ helpers and every package's tests
// reach the file through the store too.
var onlyStore = []string{"go.etcd.io/bbolt"}

// notInBinary are packages only tests may import: bleve's top package
// brings its whole index (scorch, its segment formats, their
// initialisation) into every process. The binary uses bleve's query-string
// parser (search/query) and its analysis parts, and keeps its own index.
// FerretDB (and its SQLite) is the test server of the MongoDB engine
// (internal/mongotest), never part of the binary.
// A name ending in "/..." stands for the packages below it too.
var notInBinary = []string{"github.com/blevesearch/bleve/v2", "github.com/blevesearch/bleve/v2/index/...", "github.com/FerretDB/FerretDB/..."}

// onlyMongoEngine are imports reserved to mongoengine/ among the binary's
// packages: the MongoDB driver is the MongoDB engine's client; its bson
// package is also the test oracle of the Extended JSON codec (DESIGN.md
// section 5), never part of the codec. Tests and test helpers may import
// it.
var onlyMongoEngine = []string{"go.mongodb.org/mongo-driver/v2"}

// inBinary lists the internal packages that the binary's packages may
// import, each with the omgdb packages it may import itself (at most the
// value model or another of these: it must stay a leaf that any layer can
// call). The other internal packages are test helpers, for tests only.
var inBinary = map[string][]string{
	"internal/crc32c":    {},
	"internal/failpoint": {},
	"internal/pretty":    {"query/value"},
	"internal/spill":     {"internal/failpoint"},
}

const module = "github.com/omgdb/omgdb/"

func TestImportRules(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.ToSlash(path) == floorDeps || filepath.ToSlash(path) == floorAll {
			return nil // the floors only link packages: TestStartupFloorDeps
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := packageOf(filepath.ToSlash(filepath.Dir(path)))
		for _, imp := range f.Imports {
			imp := strings.Trim(imp.Path.Value, `"`)
			checkEngine(t, path, pkg, imp)
			if !strings.HasSuffix(path, "_test.go") {
				checkImport(t, path, pkg, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkEngine checks an import of any file, tests included, against
// onlyStore.
func checkEngine(t *testing.T, file, pkg, imp string) {
	for _, m := range onlyStore {
		if (imp == m || strings.HasPrefix(imp, m+"/")) && pkg != "store" {
			t.Errorf("%s imports %s, which only store/ may import (tests included): keep data in the file through the store's typed API", file, imp)
		}
	}
}

func checkImport(t *testing.T, file, pkg, imp string) {
	for _, c := range onlyCLI {
		if imp == c && pkg != "cli" && pkg != "main" {
			t.Errorf("%s imports %s, which only cli/ may import", file, imp)
		}
	}
	if _, inBin := inBinary[path.Dir(filepath.ToSlash(file))]; pkg == "internal" && !inBin {
		return // a test helper, which only tests may import: FerretDB and the driver are allowed
	}
	for _, m := range onlyMongoEngine {
		if (imp == m || strings.HasPrefix(imp, m+"/")) && pkg != "mongoengine" {
			t.Errorf("%s imports %s, which only mongoengine/ and tests may import", file, imp)
		}
	}
	for _, m := range notInBinary {
		tree, ok := strings.CutSuffix(m, "/...")
		if imp == m || (ok && (imp == tree || strings.HasPrefix(imp, tree+"/"))) {
			t.Errorf("%s imports %s, which only tests may import (notInBinary says why)", file, imp)
		}
	}
	if !strings.HasPrefix(imp, module) || pkg == "main" {
		return
	}
	rel := strings.TrimPrefix(imp, module)
	target := packageOf(rel)
	if slices.Contains(testOnly, rel) {
		t.Errorf("%s imports %s, a test helper: only tests may import it", file, imp)
		return
	}
	if pkg == "internal" {
		if rules := inBinary[path.Dir(filepath.ToSlash(file))]; !slices.Contains(rules, rel) {
			t.Errorf("%s imports %s: the binary's packages import it, so it may import only %v", file, imp, rules)
		}
		return
	}
	if target == "internal" {
		if _, ok := inBinary[rel]; !ok {
			t.Errorf("%s imports %s, a test helper: only tests may import it (the binary may import only %v)", file, imp, slices.Sorted(maps.Keys(inBinary)))
		}
		return
	}
	if target == pkg {
		return
	}
	rules, known := allowed[pkg]
	if !known {
		t.Errorf("%s: package %s has no import rule; add it to TestImportRules and DESIGN.md", file, pkg)
		return
	}
	for _, ok := range rules {
		if ok == target {
			return
		}
	}
	t.Errorf("%s: %s may not import %s (imports point down: cli -> mcpserver -> {changes, vector} -> store -> query/agg -> query -> query/expr -> query/value -> query/errs)", file, pkg, imp)
}

// slowInit lists packages whose initialisation is too costly for a binary
// that every agent call starts, with what it costs on the benchmark machine.
var slowInit = map[string]string{
	"github.com/blevesearch/bleve/v2":              "links bleve's index and its segment formats into every process",
	"github.com/blevesearch/bleve/v2/index/scorch": "links bleve's index and its segment formats into every process",
}

// TestBinaryDeps checks the packages linked into the binary, which imports
// of our own files cannot show: a dependency may bring in a slow package.
func TestBinaryDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, want := range []string{"github.com/klauspost/compress/zstd", "github.com/blevesearch/bleve/v2/search/query"} {
		if !slices.Contains(deps, want) {
			t.Fatalf("go list -deps . does not list %s: %d packages %v...", want, len(deps), deps[:min(5, len(deps))])
		}
	}
	for _, d := range deps {
		if why, ok := slowInit[d]; ok {
			t.Errorf("the binary links %s, which slows every process start: %s", d, why)
		}
		for _, m := range testOnlyModules {
			if strings.HasPrefix(d+"/", m+"/") {
				t.Errorf("the binary links %s, of %s, which only tests may use (the embedded FerretDB test server of internal/mongotest)", d, m)
			}
		}
	}
}

// testOnlyModules are modules whose packages the binary must not link:
// the embedded FerretDB test server and what it alone brings (its SQLite
// and PostgreSQL backends).
var testOnlyModules = []string{"github.com/FerretDB/FerretDB", "github.com/FerretDB/wire", "modernc.org/sqlite", "github.com/jackc/pgx/v5"}

// The programs that time the dependencies' start-up: floorDeps links the
// third-party packages omgdb's packages import, floorAll those and the
// standard library's.
const (
	floorDeps = "bench/floor/deps/main.go"
	floorAll  = "bench/floor/all/main.go"
)

// TestStartupFloorDeps keeps the start-up floor programs importing
// exactly the packages omgdb's own packages import: bench/floor/deps the
// third-party ones, bench/floor/all every one.
func TestStartupFloorDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}|{{join .Imports \" \"}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	third, all := map[string]bool{}, map[string]bool{"os": true} // the programs print with os
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), "|")
		if !strings.HasPrefix(pkg+"/", module) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp+"/", module) {
				continue
			}
			all[imp] = true
			if strings.Contains(strings.Split(imp, "/")[0], ".") {
				third[imp] = true
			}
		}
	}
	third["os"] = true
	checkFloor(t, floorDeps, third)
	checkFloor(t, floorAll, all)
}

// checkFloor checks that the program file imports exactly want, each but
// os only to link it (import _).
func checkFloor(t *testing.T, file string, want map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range f.Imports {
		imp := strings.Trim(s.Path.Value, `"`)
		got[imp] = true
		if imp != "os" && (s.Name == nil || s.Name.Name != "_") {
			t.Errorf("%s imports %s by name: it may only link packages (import _), so that it times their initialisation and nothing else", file, imp)
		}
	}
	for imp := range want {
		if !got[imp] {
			t.Errorf("%s does not import %s, which the binary's packages import: add it", file, imp)
		}
	}
	for imp := range got {
		if !want[imp] {
			t.Errorf("%s imports %s, which no package of the binary imports: remove it", file, imp)
		}
	}
}

package query_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/golden"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files under testdata/")

// TestQuery_Golden runs the data-driven scripts in testdata/query. Each
// script is a series of blocks: a command line, optional argument lines, a
// "----" line, and the expected output up to a blank line. Lines starting
// with '#' between blocks are comments. Commands:
//
//	docs                 the argument lines (NDJSON) become the collection
//	ids <filter>         the _id of each matching document, in order
//	find <filter>        the matching documents, one per line
//
// ids and find take optional argument lines "project <json>",
// "sort <json>" and "collation <json>"; without a sort, documents keep collection order. A failure
// prints "error: <message>" and, if there is one, "hint: <hint>".
// Run with -update to rewrite the expected output; review the diff.
func TestQuery_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/query/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			runScript(t, path)
		})
	}
}

func runScript(t *testing.T, path string) {
	var docs []value.Value
	golden.Run(t, path, *update, func(b golden.Block) []string {
		switch {
		case b.Command == "docs":
			docs = parseDocs(t, path, b)
			return nil
		case strings.HasPrefix(b.Command, "ids "), strings.HasPrefix(b.Command, "find "):
			return runQuery(docs, b)
		}
		t.Fatalf("%s:%d: unknown command %q", path, b.Line, b.Command)
		return nil
	})
}

func parseDocs(t *testing.T, path string, b golden.Block) []value.Value {
	var docs []value.Value
	for i, a := range b.Args {
		v, err := value.ParseString(a)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, b.Line+1+i, err)
		}
		docs = append(docs, v)
	}
	return docs
}

// runQuery runs an ids or find block and returns its output lines.
func runQuery(docs []value.Value, b golden.Block) []string {
	cmd, filterJSON, _ := strings.Cut(b.Command, " ")
	fv, err := value.ParseString(filterJSON)
	if err != nil {
		return errLines(err)
	}
	proj, srt, coll, err := queryOptions(b.Args)
	if err != nil {
		return errLines(err)
	}
	f, err := query.CompileFilterCollation(fv, coll)
	if err != nil {
		return errLines(err)
	}
	var matched []value.Value
	for _, d := range docs {
		ok := f.Match(d)
		// The fast path over canonical JSON must agree on every case.
		if raw, err := f.MatchJSON(value.JSON(d)); err != nil || raw != ok {
			return []string{fmt.Sprintf("MatchJSON on %s = %v, %v; Match = %v", d, raw, err, ok)}
		}
		if ok {
			matched = append(matched, d)
		}
	}
	if srt != nil {
		sort.SliceStable(matched, func(i, j int) bool { return srt.Compare(matched[i], matched[j]) < 0 })
	}
	if cmd == "ids" {
		return idLine(matched)
	}
	var lines []string
	for _, d := range matched {
		if proj != nil {
			if d, err = proj.ApplyWithFilter(d, f); err != nil {
				return errLines(err)
			}
		}
		lines = append(lines, d.String())
	}
	return lines
}

func idLine(docs []value.Value) []string {
	if len(docs) == 0 {
		return []string{"(none)"}
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.Get("_id").String()
	}
	return []string{strings.Join(ids, " ")}
}

// queryOptions reads the argument lines: "project <json>", "sort <json>"
// and "collation <json>" (which applies to the filter and the sort).
func queryOptions(args []string) (*query.Projection, *query.Sort, *collation.Collation, error) {
	var proj *query.Projection
	var srt *query.Sort
	var coll *collation.Collation
	for _, a := range args {
		name, js, _ := strings.Cut(a, " ")
		v, err := value.ParseString(js)
		if err != nil {
			return nil, nil, nil, err
		}
		switch name {
		case "project":
			proj, err = query.CompileProjection(v)
		case "sort":
			srt, err = query.CompileSort(v)
		case "collation":
			coll, err = collation.Parse(v)
		default:
			err = fmt.Errorf("unknown option %q", name)
		}
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if srt != nil {
		srt = srt.WithCollation(coll)
	}
	return proj, srt, coll, nil
}

func errLines(err error) []string {
	lines := []string{"error: " + err.Error()}
	if h := errs.HintOf(err); h != "" {
		lines = append(lines, "hint: "+h)
	}
	return lines
}

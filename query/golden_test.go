package query_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

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

type block struct {
	comments []string // lines before the command
	command  string
	args     []string
	want     []string
	line     int
}

func runScript(t *testing.T, path string) {
	blocks := readBlocks(t, path)
	var docs []value.Value
	var out strings.Builder
	for _, b := range blocks {
		var got []string
		switch {
		case b.command == "docs":
			docs = parseDocs(t, path, b)
		case strings.HasPrefix(b.command, "ids "), strings.HasPrefix(b.command, "find "):
			got = runQuery(docs, b)
		default:
			t.Fatalf("%s:%d: unknown command %q", path, b.line, b.command)
		}
		if !*update && strings.Join(got, "\n") != strings.Join(b.want, "\n") {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, b.line, b.command,
				strings.Join(b.args, "\n"), strings.Join(got, "\n"), strings.Join(b.want, "\n"))
		}
		writeBlock(&out, b, got)
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeBlock(out *strings.Builder, b block, got []string) {
	for _, c := range b.comments {
		out.WriteString(c + "\n")
	}
	out.WriteString(b.command + "\n")
	for _, a := range b.args {
		out.WriteString(a + "\n")
	}
	out.WriteString("----\n")
	for _, g := range got {
		out.WriteString(g + "\n")
	}
	out.WriteString("\n")
}

func readBlocks(t *testing.T, path string) []block {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var blocks []block
	var cur *block
	var comments []string
	state, n := 0, 0 // 0 between blocks, 1 in arguments, 2 in expected output
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case state == 0 && (line == "" || strings.HasPrefix(line, "#")):
			comments = append(comments, line)
		case state == 0:
			blocks = append(blocks, block{comments: comments, command: line, line: n})
			cur, comments, state = &blocks[len(blocks)-1], nil, 1
		case state == 1 && line == "----":
			state = 2
		case state == 1:
			cur.args = append(cur.args, line)
		case line == "":
			state = 0
		default:
			cur.want = append(cur.want, line)
		}
	}
	if state == 1 {
		t.Fatalf("%s: block at line %d has no ---- line", path, cur.line)
	}
	return blocks
}

func parseDocs(t *testing.T, path string, b block) []value.Value {
	var docs []value.Value
	for i, a := range b.args {
		v, err := value.ParseString(a)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, b.line+1+i, err)
		}
		docs = append(docs, v)
	}
	return docs
}

// runQuery runs an ids or find block and returns its output lines.
func runQuery(docs []value.Value, b block) []string {
	cmd, filterJSON, _ := strings.Cut(b.command, " ")
	fv, err := value.ParseString(filterJSON)
	if err != nil {
		return errLines(err)
	}
	proj, srt, coll, err := queryOptions(b.args)
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

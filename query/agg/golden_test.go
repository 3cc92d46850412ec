package agg_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files under testdata/")

// The pipeline golden files (testdata/*.txt) hold cases like:
//
//	### $group: average price per item
//	--- docs
//	{"_id":1,"item":"abc","price":10}
//	--- coll inventory            (a collection for $lookup/$unionWith)
//	{"_id":1,"sku":"abc"}
//	--- pipeline
//	[{"$group":{"_id":"$item","avg":{"$avg":"$price"}}}]
//	--- want                      (or "want unordered", or "error")
//	{"_id":"abc","avg":10.0}
//
// Documents and results are one canonical JSON document per line.

type aggCase struct {
	name     string
	line     int
	docs     []string
	colls    map[string][]string
	pipeline string
	want     []string
	wantErr  string
	hasErr   bool
	order    string   // "want" or "want unordered"
	options  string   // "now <RFC3339>", "seed <n>", "maxMemory <n>", "collation <json>"
	raw      []string // the case's lines without its want/error section
}

func parseAggFile(t *testing.T, path string) (preamble []string, cases []*aggCase) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c *aggCase
	section := ""
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "### "):
			c = &aggCase{name: strings.TrimPrefix(line, "### "), line: i + 1, colls: map[string][]string{}}
			cases = append(cases, c)
			section = ""
		case strings.HasPrefix(line, "--- "):
			section = strings.TrimPrefix(line, "--- ")
			if strings.HasPrefix(section, "want") {
				c.order = section
			}
			c.hasErr = c.hasErr || section == "error"
		case strings.TrimSpace(line) == "" || c == nil:
		default:
			addToSection(c, section, line)
		}
		switch {
		case c == nil:
			preamble = append(preamble, line)
		case !strings.HasPrefix(section, "want") && section != "error" && strings.TrimSpace(line) != "":
			c.raw = append(c.raw, line)
		}
	}
	return preamble, cases
}

func addToSection(c *aggCase, section, line string) {
	switch {
	case section == "docs":
		c.docs = append(c.docs, line)
	case strings.HasPrefix(section, "coll "):
		name := strings.TrimPrefix(section, "coll ")
		c.colls[name] = append(c.colls[name], line)
	case section == "pipeline":
		c.pipeline += line + "\n"
	case strings.HasPrefix(section, "want"):
		c.want = append(c.want, line)
	case section == "error":
		c.wantErr = strings.TrimSpace(c.wantErr + "\n" + line)
	case section == "options":
		c.options += line + "\n"
	}
}

// mapEnv is an Env over in-memory collections.
type mapEnv map[string][]value.Value

func (e mapEnv) Collection(_ context.Context, name string) (agg.Source, error) {
	docs, ok := e[name]
	if !ok {
		return nil, &errs.Error{Kind: errs.NotFound, Message: fmt.Sprintf("collection %q does not exist", name)}
	}
	return agg.SliceSource(docs), nil
}

func parseLines(t *testing.T, where string, lines []string) []value.Value {
	out := make([]value.Value, len(lines))
	for i, l := range lines {
		v, err := value.ParseString(l)
		if err != nil {
			t.Fatalf("%s: bad JSON %q: %v", where, l, err)
		}
		out[i] = v
	}
	return out
}

func (c *aggCase) opts(t *testing.T) *agg.PipelineOptions {
	o := &agg.PipelineOptions{Now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
	for _, l := range strings.Split(strings.TrimSpace(c.options), "\n") {
		var err error
		switch f := strings.Fields(l); {
		case len(f) == 2 && f[0] == "seed":
			_, err = fmt.Sscan(f[1], &o.Seed)
		case len(f) == 2 && f[0] == "maxMemory":
			_, err = fmt.Sscan(f[1], &o.MaxMemory)
		case len(f) == 2 && f[0] == "now":
			o.Now, err = time.Parse(time.RFC3339Nano, f[1])
		case len(f) == 2 && f[0] == "collation":
			o.Collation, err = collation.Parse(value.MustParse(f[1]))
		case len(f) > 0:
			t.Fatalf("unknown option %q", l)
		}
		if err != nil {
			t.Fatalf("option %q: %v", l, err)
		}
	}
	return o
}

// runAgg runs a case and returns the output lines or the error text.
func runAgg(t *testing.T, c *aggCase) ([]string, error) {
	env := mapEnv{}
	for name, lines := range c.colls {
		env[name] = parseLines(t, c.name, lines)
	}
	spec, err := value.ParseString(c.pipeline)
	if err != nil {
		t.Fatalf("bad pipeline JSON: %v", err)
	}
	p, err := agg.CompilePipeline(spec, c.opts(t))
	if err != nil {
		return nil, err
	}
	src := p.Run(context.Background(), agg.SliceSource(parseLines(t, c.name, c.docs)), env)
	defer src.Close()
	var got []string
	for src.Next() {
		got = append(got, string(value.JSON(src.Doc())))
	}
	return got, src.Err()
}

func TestAgg_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		preamble, cases := parseAggFile(t, file)
		for _, c := range cases {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".txt")+"/"+c.name, func(t *testing.T) {
				got, err := runAgg(t, c)
				if *update {
					c.record(got, err)
					return
				}
				checkAgg(t, file, c, got, err)
			})
		}
		if *update {
			writeAggFile(t, file, preamble, cases)
		}
	}
}

func checkAgg(t *testing.T, file string, c *aggCase, got []string, err error) {
	t.Helper()
	where := fmt.Sprintf("%s:%d", file, c.line)
	if c.hasErr {
		if err == nil {
			t.Fatalf("%s: want error %q, got results %v", where, c.wantErr, got)
		}
		if err.Error() != c.wantErr {
			t.Fatalf("%s: error\n got: %s\nwant: %s", where, err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: unexpected error: %v", where, err)
	}
	want := slices.Clone(c.want)
	if c.order == "want unordered" {
		slices.Sort(want)
		got = slices.Clone(got)
		slices.Sort(got)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: results differ\n got:\n%s\nwant:\n%s", where, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func (c *aggCase) record(got []string, err error) {
	if err != nil {
		c.hasErr, c.wantErr, c.want = true, err.Error(), nil
		return
	}
	c.hasErr, c.wantErr, c.want = false, "", got
	if c.order == "" {
		c.order = "want"
	}
}

func writeAggFile(t *testing.T, file string, preamble []string, cases []*aggCase) {
	var b bytes.Buffer
	for _, l := range preamble {
		b.WriteString(l + "\n")
	}
	for i, c := range cases {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, l := range c.raw {
			b.WriteString(l + "\n")
		}
		if c.hasErr {
			fmt.Fprintf(&b, "--- error\n%s\n", c.wantErr)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n", c.order)
		for _, w := range c.want {
			b.WriteString(w + "\n")
		}
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

package store_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestText_Golden runs testdata/text.txt: cases of $text and textScore
// ported from MongoDB's jstests (each group names its file). The expected
// results are MongoDB's, written by hand from the jstests' assertions, so
// the file has no -update. Commands:
//
//	=== title (jstests/…)  a new group, on a fresh collection
//	doc JSON               insert (> and ! lines after it check the _id or the error)
//	replace JSON           replace the document with its _id
//	delete ID              delete the document with that _id
//	index PATTERN [OPTS]   create the text index (OPTS: weights, default_language, language_override)
//	drop INDEX             drop an index
//	q FILTER               find FILTER sorted by textScore, as jstests' queryIDS: "= ids…" follows
//	find FILTER            find; optional "project P", "sort S", "skip N", "limit N" lines follow
//	count FILTER           count: "= n" follows
//	agg PIPELINE           aggregate
//
// A query is followed by "= id id …" (the _ids in order), "~ id id …" (the
// _ids in any order, as jstests' resultsEq), "> JSON" lines
// (the documents), or "! text" (an error whose message contains text).
func TestText_Golden(t *testing.T) {
	f, err := os.Open("testdata/text.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	g := &textGolden{t: t}
	for i := 0; i < len(lines); i++ {
		i = g.run(lines, i)
	}
	g.verify()
	if g.checks < 263 {
		t.Errorf("only %d checks ran", g.checks)
	}
	t.Logf("%d checks in %d groups", g.checks, g.n)
}

type textGolden struct {
	t      *testing.T
	db     *store.DB
	group  string
	n      int
	checks int
}

// verify checks the group's store, its text index entries included (a
// replaced or deleted document must leave no entry behind).
func (g *textGolden) verify() {
	if g.db != nil {
		g.t.Run(g.group, func(t *testing.T) { storetest.MustVerify(t, g.db) })
	}
}

func (g *textGolden) fail(line int, format string, args ...any) {
	g.t.Helper()
	g.t.Errorf("testdata/text.txt:%d (%s): "+format, append([]any{line + 1, g.group}, args...)...)
}

// run executes the command at lines[i] and returns the index of its last
// line.
func (g *textGolden) run(lines []string, i int) int {
	line := strings.TrimSpace(lines[i])
	cmd, arg, _ := strings.Cut(line, " ")
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
		return i
	case cmd == "===":
		g.verify()
		g.group, g.db = arg, storetest.MustOpen(g.t)
		g.n++
		return i
	}
	var got []string
	var err error
	end := i
	switch cmd {
	case "doc":
		err = g.update(func(c *store.Collection) error {
			_, err := c.Insert(txtMustValue(g.t, arg))
			return err
		})
	case "replace":
		err = g.update(func(c *store.Collection) error {
			d := txtMustValue(g.t, arg)
			return c.Replace(d.Get("_id"), d)
		})
	case "delete":
		err = g.update(func(c *store.Collection) error { return c.Delete(txtMustValue(g.t, arg)) })
	case "index":
		err = g.update(func(c *store.Collection) error { return createTextIndex(c, arg) })
	case "drop":
		err = g.update(func(c *store.Collection) error { return c.DropIndex(arg) })
	case "q":
		var f *query.Filter
		if f, err = query.CompileFilter(txtMustValue(g.t, arg)); err == nil {
			got, err = g.find(store.Query{Filter: f,
				Projection: txtMustProjection(g.t, `{"score":{"$meta":"textScore"}}`), Sort: txtMustSort(g.t, `{"score":{"$meta":"textScore"}}`)}, true)
		}
	case "find":
		q := store.Query{}
		q.Filter, err = query.CompileFilter(txtMustValue(g.t, arg))
		for end+1 < len(lines) && err == nil {
			mod, marg, _ := strings.Cut(strings.TrimSpace(lines[end+1]), " ")
			switch mod {
			case "project":
				q.Projection, err = query.CompileProjection(txtMustValue(g.t, marg))
			case "sort":
				q.Sort, err = query.CompileSort(txtMustValue(g.t, marg))
			case "skip":
				q.Skip, _ = strconv.ParseInt(marg, 10, 64)
			case "limit":
				q.Limit, _ = strconv.ParseInt(marg, 10, 64)
			default:
				goto done
			}
			end++
		}
	done:
		if err == nil {
			got, err = g.find(q, false)
		}
	case "count":
		var n int64
		n, err = g.count(arg)
		got = []string{strconv.FormatInt(n, 10)}
	case "agg":
		got, err = g.aggregate(arg)
	default:
		g.fail(i, "unknown command %q", cmd)
		return i
	}
	return g.check(lines, i, end, got, err)
}

// check compares a command's outcome with the expectation lines after
// end, and returns the index of the last of them.
func (g *textGolden) check(lines []string, i, end int, got []string, err error) int {
	g.checks++
	var want []string
	var wantErr string
	ids, unordered := false, false
	for end+1 < len(lines) {
		l := strings.TrimSpace(lines[end+1])
		switch {
		case strings.HasPrefix(l, "="):
			ids, want = true, strings.Fields(strings.TrimPrefix(l, "="))
		case strings.HasPrefix(l, "~"):
			ids, unordered, want = true, true, strings.Fields(strings.TrimPrefix(l, "~"))
		case strings.HasPrefix(l, ">"):
			want = append(want, strings.TrimSpace(strings.TrimPrefix(l, ">")))
		case strings.HasPrefix(l, "!"):
			wantErr = strings.TrimSpace(strings.TrimPrefix(l, "!"))
		default:
			goto compare
		}
		end++
	}
compare:
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			g.fail(i, "%s: want error containing %q, got %v (results %v)", lines[i], wantErr, err, got)
		}
	case err != nil:
		g.fail(i, "%s: %v", lines[i], err)
	case ids:
		gotIDs := idsOf(got)
		if unordered {
			slices.Sort(gotIDs)
			slices.Sort(want)
		}
		if strings.Join(gotIDs, " ") != strings.Join(want, " ") {
			g.fail(i, "%s:\n got ids  %v\n want ids %v", lines[i], gotIDs, want)
		}
	case slices.ContainsFunc([]string{"doc ", "replace ", "delete ", "index ", "drop "}, func(p string) bool { return strings.HasPrefix(lines[i], p) }):
		g.checks-- // a setup step that worked, with nothing more to check
	default:
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			g.fail(i, "%s:\n got\n  %s\n want\n  %s", lines[i], strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	return end
}

func idsOf(docs []string) []string {
	out := []string{}
	for _, d := range docs {
		v, err := value.ParseString(d)
		if err != nil {
			out = append(out, d)
			continue
		}
		out = append(out, v.Get("_id").String())
	}
	return out
}

func (g *textGolden) update(fn func(c *store.Collection) error) error {
	return g.db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			if c, err = tx.CreateCollection("c"); err != nil {
				return err
			}
		}
		return fn(c)
	})
}

func (g *textGolden) view(fn func(c *store.Collection) error) error {
	return g.db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		return fn(c)
	})
}

func (g *textGolden) find(q store.Query, _ bool) (out []string, err error) {
	err = g.view(func(c *store.Collection) error {
		out, err = drainText(c.Find(context.Background(), q))
		return err
	})
	return out, err
}

func (g *textGolden) count(filter string) (n int64, err error) {
	f, err := query.CompileFilter(txtMustValue(g.t, filter))
	if err != nil {
		return 0, err
	}
	err = g.view(func(c *store.Collection) error {
		n, err = c.CountMatching(context.Background(), f)
		return err
	})
	return n, err
}

func (g *textGolden) aggregate(pipeline string) (out []string, err error) {
	p, err := agg.CompilePipeline(txtMustValue(g.t, pipeline), nil)
	if err != nil {
		return nil, err
	}
	err = g.view(func(c *store.Collection) error {
		out, err = drainText(c.Aggregate(context.Background(), p, nil))
		return err
	})
	return out, err
}

func drainText(src agg.Source) ([]string, error) {
	defer src.Close()
	var out []string
	for src.Next() {
		out = append(out, src.Doc().String())
	}
	return out, src.Err()
}

// createTextIndex creates the text index a key pattern and options ask for.
func createTextIndex(c *store.Collection, arg string) error {
	pattern, opts := arg, ""
	if i := strings.Index(arg, "} {"); i >= 0 {
		pattern, opts = arg[:i+1], arg[i+2:]
	}
	fields, ok, err := store.TextPattern(pattern)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not a text key pattern: " + pattern)
	}
	var o value.Value
	if opts != "" {
		if o, err = value.ParseString(opts); err != nil {
			return err
		}
	}
	def, err := store.TextIndexDef("", fields, o.Get("weights"), str(o.Get("default_language")), str(o.Get("language_override")))
	if err != nil {
		return err
	}
	_, err = c.CreateIndex(def)
	return err
}

func str(v value.Value) string {
	if v.Kind() == value.String {
		return v.Str()
	}
	return ""
}

func txtMustValue(t *testing.T, s string) value.Value {
	t.Helper()
	v, err := value.ParseString(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func txtMustProjection(t *testing.T, s string) *query.Projection {
	p, err := query.CompileProjection(txtMustValue(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func txtMustSort(t *testing.T, s string) *query.Sort {
	p, err := query.CompileSort(txtMustValue(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestText_LongTerm: words longer than an index key can hold are found
// (jstests/core/index/fts/fts_index.js, "Text indexes properly handle
// large keys"): two one-MiB words that differ from their first byte, and
// two that share their first kilobyte.
func TestText_LongTerm(t *testing.T) {
	g := &textGolden{t: t, db: storetest.MustOpen(t)}
	long := func(prefix string, c byte) string { return prefix + strings.Repeat(string(c), 1<<20) }
	words := []string{long("", 'a'), long("", 'b'), long(strings.Repeat("x", 1024), 'c'), long(strings.Repeat("x", 1024), 'd')}
	err := g.update(func(c *store.Collection) error {
		if err := createTextIndex(c, `{"a":"text"}`); err != nil {
			return err
		}
		for i, w := range words {
			doc := value.ObjectValue([]value.Field{{Key: "_id", Value: value.LongValue(int64(i))}, {Key: "a", Value: value.StringValue(w)}})
			if _, err := c.Insert(doc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		search := value.ObjectValue([]value.Field{{Key: "$search", Value: value.StringValue(w)}})
		f, err := query.CompileFilter(value.ObjectValue([]value.Field{{Key: "$text", Value: search}}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.find(store.Query{Filter: f}, false)
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(got); len(ids) != 1 || ids[0] != strconv.Itoa(i) {
			t.Errorf("search for word %d found %v, want [%d]", i, ids, i)
		}
	}
}

package vector

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// mdStore imports testdata/md into collection "notes" with a vector index
// on body and a search index on title and body.
func mdStore(t *testing.T) *store.DB {
	db := storetest.MustOpen(t)
	files, err := MarkdownFiles([]string{"testdata/md"}, false)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ImportMarkdown(context.Background(), db, "notes", files)
	if err != nil || sum.Inserted != 4 {
		t.Fatalf("import: %+v %v", sum, err)
	}
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("notes")
		if _, err := c.CreateIndex(NewVectorIndexDef("", "body", 0)); err != nil {
			return err
		}
		_, err := c.CreateIndex(NewSearchIndexDef("", []string{"title", "body"}, "en"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestPack_Golden checks context packs against golden files (regenerate
// with -update) and their invariants: never over budget, every chunk
// cited, everything left out listed.
func TestPack_Golden(t *testing.T) {
	db := mdStore(t)
	cases := []struct {
		name, query string
		budget      int
		hybrid      bool
		filter      string
	}{
		{"restore-small", "how do I restore a backup", 60, false, ""},
		{"restore-hybrid", "how do I restore a backup", 150, true, ""},
		{"restore-filter", "how do I restore a backup", 400, false, `{"owner":"dev"}`},
		{"design-cut", "what do context packs do with chunks and citations", 120, false, ""},
		{"roomy", "journal snapshots", 4000, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := &PackOptions{Budget: tc.budget, Hybrid: tc.hybrid}
			if tc.filter != "" {
				opts.Filter, _ = query.CompileFilter(value.MustParse(tc.filter))
			}
			var pack value.Value
			err := db.View(func(tx *store.Tx) error {
				c, _ := tx.Collection("notes")
				var err error
				pack, err = Pack(context.Background(), c, "body", tc.query, opts)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			checkPack(t, pack, tc.budget)
			got := indentJSON(value.AppendJSON(nil, pack))
			path := filepath.Join("testdata", "context", tc.name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, got, 0o644)
				return
			}
			want, _ := os.ReadFile(path)
			if string(got) != string(want) {
				t.Errorf("%s differs from the pack (regenerate with -update):\n%s", path, got)
			}
		})
	}
}

func checkPack(t *testing.T, pack value.Value, budget int) {
	t.Helper()
	used, chunks, cites := pack.Get("used_tokens").Long(), pack.Get("chunks").Array(), pack.Get("citations").Array()
	printed := int64(EstimateTokens(string(value.AppendJSON(nil, pack))))
	if used > int64(budget) || printed != used || pack.Get("budget").Long() != int64(budget) {
		t.Errorf("used %d tokens (the pack as printed: %d) of a %d budget", used, printed, budget)
	}
	var sum int64
	for i, ch := range chunks {
		sum += ch.Get("tokens").Long()
		if got := int64(EstimateTokens(ch.Get("text").Str())); got != ch.Get("tokens").Long() {
			t.Errorf("chunk %d says %d tokens, its text has %d", i, ch.Get("tokens").Long(), got)
		}
		if i >= len(cites) || !strings.HasPrefix(cites[i].Str(), "["+ch.Get("ref").String()+"] ") {
			t.Errorf("chunk %d is not cited: %v", i, cites)
		}
		text := ch.Get("text").Str()
		marked := strings.HasSuffix(text, cutMarker) || strings.HasPrefix(text, strings.TrimSpace(cutMarker)+" ")
		if marked != ch.Get("cut").Bool() {
			t.Errorf("chunk %d: cut marker and cut flag disagree", i)
		}
	}
	if sum > used || len(cites) != len(chunks) {
		t.Errorf("used_tokens %d, chunks sum to %d; %d citations for %d chunks", used, sum, len(cites), len(chunks))
	}
	omits := pack.Get("omitted").Array()
	for i, o := range omits {
		if o.Get("reason").Str() == "" && (o.Get("more").Long() < 1 || i != len(omits)-1) {
			t.Errorf("omitted chunk without a reason, or more not last: %v", o)
		}
	}
}

// indentJSON pretty-prints canonical JSON for readable golden files.
func indentJSON(js []byte) []byte {
	var b strings.Builder
	depth, inString := 0, false
	nl := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", depth))
	}
	for i := 0; i < len(js); i++ {
		c := js[i]
		if inString {
			b.WriteByte(c)
			if c == '\\' {
				i++
				b.WriteByte(js[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			depth++
			nl()
		case '}', ']':
			depth--
			nl()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			nl()
		default:
			b.WriteByte(c)
		}
	}
	return []byte(b.String() + "\n")
}

func TestPack_BudgetAlwaysHolds(t *testing.T) {
	db := mdStore(t)
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("notes")
		for budget := 1; budget <= 700; budget += 13 {
			for _, hybrid := range []bool{false, true} {
				pack, err := Pack(context.Background(), c, "body", "backups restore journal", &PackOptions{Budget: budget, Hybrid: hybrid})
				if err != nil {
					if budget > 60 || errs.KindOf(err) != errs.Usage || !strings.Contains(err.Error(), "cannot hold a pack") {
						t.Errorf("budget %d: %v", budget, err)
					}
					continue
				}
				checkPack(t, pack, budget)
			}
		}
		return nil
	})
}

func TestParseMarkdown(t *testing.T) {
	doc, err := ParseMarkdown("x.md", []byte("---\ntitle: Hello: world\nn: 3\nok: true\nlist: [1, \"a\"]\nbad key.x: 1\n---\nintro\n# One #\ntext one\n```\n# fenced\n```\n## Two\n~~~~\n## still fenced\n~~~~\nend\n#not a heading\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_id":"x.md","title":"Hello: world","n":3,"ok":true,"list":[1,"a"],"path":"x.md","body":"intro\n# One #\ntext one\n` + "```" + `\n# fenced\n` + "```" + `\n## Two\n~~~~\n## still fenced\n~~~~\nend\n#not a heading\n","_sections":[{"level":1,"heading":"One","text":"text one\n` + "```" + `\n# fenced\n` + "```" + `"},{"level":2,"heading":"Two","text":"~~~~\n## still fenced\n~~~~\nend\n#not a heading"}]}`
	if got := doc.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if doc, _ := ParseMarkdown("y.md", []byte("---\nno end\n# H\n")); doc.Get("body").Str() != "---\nno end\n# H\n" {
		t.Errorf("unterminated frontmatter must stay in the body: %v", doc)
	}
}

func TestImportMarkdown_ReplacesChangedFiles(t *testing.T) {
	db := storetest.MustOpen(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	os.WriteFile(p, []byte("# A\nfirst\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.md"), []byte("# B\n"), 0o644)
	ctx := context.Background()
	files, _ := MarkdownFiles([]string{dir}, false)
	if len(files) != 1 {
		t.Fatalf("non-recursive walk found %v", files)
	}
	files, _ = MarkdownFiles([]string{dir}, true)
	if s, err := ImportMarkdown(ctx, db, "md", files); err != nil || s.Inserted != 2 {
		t.Fatalf("first import %+v %v", s, err)
	}
	os.WriteFile(p, []byte("# A\nsecond\n"), 0o644)
	if s, err := ImportMarkdown(ctx, db, "md", files); err != nil || s.Replaced != 1 || s.Unchanged != 1 || s.Inserted != 0 {
		t.Fatalf("re-import %+v %v", s, err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("md")
		doc, err := c.Get(value.StringValue(filepath.ToSlash(p)))
		if c.Count() != 2 || err != nil || !strings.Contains(doc.Get("body").Str(), "second") {
			t.Errorf("after re-import: count %d, %v %v", c.Count(), doc, err)
		}
		return nil
	})
}

func FuzzParseMarkdown(f *testing.F) {
	f.Add([]byte("---\na: 1\n---\n# H\ntext\n```\n# x\n```\n"))
	f.Add([]byte("# A\n## B\n### C\nbody"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseMarkdown("f.md", data)
		if err != nil {
			return
		}
		if _, err := value.PrepareDocument(doc); err != nil {
			t.Fatalf("parsed document cannot be stored: %v", err)
		}
		for _, ch := range splitChunks(doc.Get("body").Str()) {
			if ch.start < 0 || ch.end > len(doc.Get("body").Str()) || ch.start > ch.end {
				t.Fatalf("chunk offsets %d-%d out of range", ch.start, ch.end)
			}
			if !ch.cut && EstimateTokens(ch.text) > ChunkTokens {
				t.Fatalf("chunk of %d tokens over %d", EstimateTokens(ch.text), ChunkTokens)
			}
		}
	})
}

// TestPack_OmittedCountsAgainstTheBudget: with many chunks left out, the
// pack as printed still fits its budget: the omitted list holds what
// fits and a last {"more": N} counts the rest.
func TestPack_OmittedCountsAgainstTheBudget(t *testing.T) {
	db := mdStore(t)
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("notes")
		for _, budget := range []int{60, 120, 300} {
			pack, err := Pack(context.Background(), c, "body", "backups restore journal snapshots chunks", &PackOptions{Budget: budget, Hybrid: true})
			if err != nil {
				t.Fatal(err)
			}
			checkPack(t, pack, budget)
			js := value.AppendJSON(nil, pack)
			omits := pack.Get("omitted").Array()
			if len(js) > 4*budget+8 || len(omits) == 0 || omits[len(omits)-1].Get("more").Long() < 1 {
				t.Errorf("budget %d: %d bytes printed, omitted %v", budget, len(js), omits)
			}
		}
		return nil
	})
}

package vector

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// checkSameAnalysis fails unless our analyzers return bleve's tokens for
// text: terms, offsets and positions.
func checkSameAnalysis(t *testing.T, cache *registry.Cache, text string) {
	t.Helper()
	for _, name := range analyzerNames {
		ref, err := cache.AnalyzerNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := analyzer(name)
		if err != nil {
			t.Fatal(err)
		}
		want := ref.Analyze([]byte(text))
		got := ours.Analyze([]byte(text))
		if len(got) != len(want) {
			t.Fatalf("%s analyzer, %q: %d tokens, bleve's %d", name, text, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position {
				t.Fatalf("%s analyzer, %q: token %d is %q %d-%d @%d, bleve's %q %d-%d @%d", name, text, i,
					g.Term, g.Start, g.End, g.Position, w.Term, w.Start, w.End, w.Position)
			}
		}
	}
}

func bleveAnalyzers() *registry.Cache {
	_ = standard.Name // registers the analyzers
	_ = en.AnalyzerName
	return registry.NewCache()
}

var _ analysis.Analyzer = (*analysis.DefaultAnalyzer)(nil)

func TestAnalyzer_EqualsBleve(t *testing.T) {
	cache := bleveAnalyzers()
	texts := []string{
		"", "The quick brown fox's jumps", "running runs ran", "John’s book and Mary＇S pen, it's",
		"ΣΊΣΥΦΟΣ ΟΔΟΣ", "ȺȾ capitals widen", "日本語のテキスト and カタカナ", "version 2.6.1, 3,000 items; 42nd",
		"e-mail user@example.com http://x.y/z", "don't can't WON'T", "\xff\xfe invalid utf-8 \xc3", "ǅ ǈ titlecase",
	}
	files, _ := filepath.Glob("testdata/md/*.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	f, err := os.Open("testdata/known-items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan() && n < 2000; n++ {
		var item struct{ Query, Text string }
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, item.Query, item.Text)
	}
	for _, text := range texts {
		checkSameAnalysis(t, cache, text)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "B", "s", "S", "'", "’", "＇", " ", "-", ".", "1", "Σ", "σ", "Ⱥ", "日", "カ", "é", "\xff", "ǅ", "the", "ing", "\n", "@"}
	for range 5000 {
		var sb strings.Builder
		for range rng.Intn(20) {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		checkSameAnalysis(t, cache, sb.String())
	}
}

func FuzzAnalyzer(f *testing.F) {
	cache := bleveAnalyzers()
	for _, s := range []string{"The fox's runs", "ΣΊΣΥΦΟΣ Ⱥ", "日本語 2.6.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSameAnalysis(t, cache, s)
	})
}

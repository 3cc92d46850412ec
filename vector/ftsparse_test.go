package vector

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	bq "github.com/blevesearch/bleve/v2/search/query"
)

func dumpNode(n searchNode) string {
	switch n := n.(type) {
	case *boolNode:
		var sb strings.Builder
		for _, l := range []struct {
			p  string
			ns []searchNode
		}{{"+", n.must}, {"", n.should}, {"-", n.mustNot}} {
			for _, c := range l.ns {
				sb.WriteString(l.p + dumpNode(c) + " ")
			}
		}
		return sb.String()
	case *disjunctionNode:
		var parts []string
		for _, c := range n.clauses {
			parts = append(parts, dumpNode(c))
		}
		return "(" + strings.Join(parts, " | ") + ")"
	}
	return strings.TrimPrefix(strings.ReplaceAll(strings.ReplaceAll(fmtAny(n), "\n", ""), "\t", ""), "&")
}

func fmtAny(v any) string {
	return strings.TrimSpace(strings.ReplaceAll(fmt.Sprintf("%+v", v), "vector.", ""))
}

// TestParseSearch_Trees checks the nodes that bleve's parse of each query
// string becomes.
func TestParseSearch_Trees(t *testing.T) {
	match := func(field, text string, fuzz int, boost float64) *matchNode {
		return &matchNode{text: text, field: field, fuzziness: fuzz, boost: boost}
	}
	number := func(field, text string) *disjunctionNode {
		return &disjunctionNode{clauses: []searchNode{match(field, text, 0, 1), &rangeNode{field: field, boost: 1}}, boost: 1}
	}
	for _, c := range []struct {
		text string
		want searchNode
	}{
		{"", &noneNode{}},
		{"backup restore", &boolNode{should: []searchNode{match("", "backup", 0, 1), match("", "restore", 0, 1)}}},
		{"+backup -test", &boolNode{must: []searchNode{match("", "backup", 0, 1)}, mustNot: []searchNode{match("", "test", 0, 1)}}},
		{`title:"release notes"^2`, &boolNode{should: []searchNode{&phraseNode{text: "release notes", field: "title", boost: 2}}}},
		{"rotat* /back(up)?s?/", &boolNode{should: []searchNode{
			&wildcardNode{pattern: "rotat*", boost: 1}, &regexpNode{pattern: "back(up)?s?", boost: 1}}}},
		{"compresed~1 title:word~2", &boolNode{should: []searchNode{match("", "compresed", 1, 1), match("title", "word", 2, 1)}}},
		{"2020 title:-5", &boolNode{should: []searchNode{number("", "2020"), number("title", "-5")}}},
		{`title:>=5.5 title:<"2020-01-01"`, &boolNode{should: []searchNode{
			&rangeNode{field: "title", boost: 1}, &rangeNode{field: "title", date: true, boost: 1}}}},
		{`back\ up`, &boolNode{should: []searchNode{match("", "back up", 0, 1)}}},
	} {
		got, err := parseQueryString(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: parsed as\n%s\nwant\n%s", c.text, dumpNode(got), dumpNode(c.want))
		}
	}
}

// TestParseSearch_Errors checks that bleve's refusals reach the user with
// bleve's words.
func TestParseSearch_Errors(t *testing.T) {
	for text, want := range map[string]string{
		"a:b:c":              "syntax error",
		`"unterminated`:      "parse error: unterminated quote",
		"word^x":             "invalid boost value",
		"/":                  "slice bounds out of range",
		`title:>"nonsense"`:  "invalid time",
		"title:>-x":          "syntax error",
		"(grouped) {braces}": "",
	} {
		_, err := parseQueryString(text)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", text, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want one containing %q", text, err, want)
		}
	}
}

// checkConverts fails unless every query string bleve parses converts
// into our nodes, and every one it refuses we refuse with its message.
func checkConverts(t *testing.T, text string) {
	t.Helper()
	_, werr := bq.NewQueryStringQuery(text).Parse()
	_, gerr := parseQueryString(text)
	switch {
	case werr != nil && (gerr == nil || gerr.Error() != werr.Error()):
		t.Errorf("%q: error %v, bleve's %v", text, gerr, werr)
	case werr == nil && gerr != nil:
		t.Errorf("%q: %v; bleve parses it", text, gerr)
	}
}

func TestParseSearch_ConvertsAll(t *testing.T) {
	for _, q := range []string{
		"", " ", "backup", "word^", "word~x", "1.2.3", "3abc", "-", "+", "+-word", ":", "title:",
		`a\"b`, `"a \" quote"`, "//", "/a", "a/", "word^2^3", "2020~1", "5:foo", "title:>",
		"tab\tinside", "-title:\"a b\"^0.5", "a+b", "=x", "<", "a>b", "é ünïcödé", "日本語", "٣", "~", "^",
	} {
		checkConverts(t, q)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "x", "1", "2", ".", " ", " ", "\t", "+", "-", ":", ">", "<", "=", "^", "~", `"`, `\`, "*", "?", "/", "é", "٣", "(", "title"}
	for range 5000 {
		var sb strings.Builder
		for range rng.Intn(10) + 1 {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		checkConverts(t, sb.String())
	}
}

func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"backup +restore -test", `title:"a b"^2`, "x~1 /re/ w?ld*", "title:>=5 2020"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkConverts(t, s)
	})
}

package vector

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	bq "github.com/blevesearch/bleve/v2/search/query"
)

// fromBleve converts what bleve's query-string parser returns into our
// nodes, to compare the parsers; ok is false for a date range.
func fromBleve(t testing.TB, q bq.Query) searchNode {
	boost := func(b *bq.Boost) float64 {
		if b == nil {
			return 1
		}
		return b.Value()
	}
	list := func(qs []bq.Query) []searchNode {
		var out []searchNode
		for _, q := range qs {
			out = append(out, fromBleve(t, q))
		}
		return out
	}
	switch q := q.(type) {
	case *bq.BooleanQuery:
		n := &boolNode{}
		if q.Must != nil {
			n.must = list(q.Must.(*bq.ConjunctionQuery).Conjuncts)
		}
		if q.Should != nil {
			n.should = list(q.Should.(*bq.DisjunctionQuery).Disjuncts)
		}
		if q.MustNot != nil {
			n.mustNot = list(q.MustNot.(*bq.DisjunctionQuery).Disjuncts)
		}
		return n
	case *bq.DisjunctionQuery:
		return &disjunctionNode{clauses: list(q.Disjuncts), boost: boost(q.BoostVal)}
	case *bq.MatchQuery:
		if q.Prefix != 0 || q.Operator != bq.MatchQueryOperatorOr {
			t.Fatalf("unexpected match query %+v", q)
		}
		return &matchNode{text: q.Match, field: q.FieldVal, fuzziness: q.Fuzziness, boost: boost(q.BoostVal)}
	case *bq.MatchPhraseQuery:
		return &phraseNode{text: q.MatchPhrase, field: q.FieldVal, boost: boost(q.BoostVal)}
	case *bq.WildcardQuery:
		return &wildcardNode{pattern: q.Wildcard, field: q.FieldVal, boost: boost(q.BoostVal)}
	case *bq.RegexpQuery:
		return &regexpNode{pattern: q.Regexp, field: q.FieldVal, boost: boost(q.BoostVal)}
	case *bq.NumericRangeQuery:
		return &rangeNode{field: q.FieldVal, boost: boost(q.BoostVal)}
	case *bq.DateRangeQuery:
		return &rangeNode{field: q.FieldVal, date: true, boost: boost(q.BoostVal)}
	case *bq.MatchNoneQuery:
		return &noneNode{}
	}
	t.Fatalf("unexpected bleve query %T", q)
	return nil
}

// hasDateRange reports whether n holds a date range, whose date we do not
// parse (the range is refused anyway).
func hasDateRange(n searchNode) bool {
	switch n := n.(type) {
	case *boolNode:
		for _, l := range [][]searchNode{n.must, n.should, n.mustNot} {
			for _, c := range l {
				if hasDateRange(c) {
					return true
				}
			}
		}
	case *rangeNode:
		return n.date
	}
	return false
}

// checkSameParse fails unless both parsers accept text with the same
// tree, or both refuse it with the same message, except that bleve lexes
// as it parses: a syntax error, or an error of an earlier clause, may come
// before the unterminated quote we find first.
func checkSameParse(t *testing.T, text string) {
	t.Helper()
	want, werr := bq.NewQueryStringQuery(text).Parse()
	got, gerr := parseQueryString(text)
	switch {
	case werr != nil && gerr != nil:
		if werr.Error() != gerr.Error() && werr.Error() != "syntax error" && gerr.Error() != "parse error: unterminated quote" {
			t.Errorf("%q: error %q, bleve's %q", text, gerr, werr)
		}
	case werr != nil:
		if !hasDateRange(got) {
			t.Errorf("%q: parsed as %#v, bleve refuses it: %v", text, got, werr)
		}
	case gerr != nil:
		t.Errorf("%q: %v; bleve parses it", text, gerr)
	default:
		if w := fromBleve(t, want); !reflect.DeepEqual(got, w) {
			t.Errorf("%q: parsed as\n%s\nbleve:\n%s", text, dumpNode(got), dumpNode(w))
		}
	}
}

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

func TestParseSearch_EqualsBleve(t *testing.T) {
	for _, q := range []string{
		"", " ", "backup", "backup restore", "+backup -test", `"copy the snapshot"`,
		`title:logging`, `title:"release notes"`, `"a field":word`, "rotat*", "b?ckup",
		"/back(up)?s?/", "title:/x.*/", "compresed~1", "compresed~", "title:word~2", "backup^3 restore",
		"word^", "word^x", "word~x", "2020", "title:2020", "title:-5", "title:>5", "title:>=5.5",
		"title:<-1", "title:<=7", `title:>"2020-01-01"`, `title:<="2020-01-01"`, `title:>"nonsense"`,
		"1.2.3", "1.5", "3abc", "-", "+", "+-word", "a:b:c", ":", "title:", `"unterminated`,
		`back\ up`, `back\up`, `\+plus`, `a\"b`, `"a \" quote"`, "/", "//", "/a", "a/",
		"word^2^3", "2020~1", "5:foo", "title:>", "title:>=", "title:>-", "title:>-x", "tab\tinside",
		"\tlead", "title:word^2", "-title:\"a b\"^0.5", "+2020", "a+b", "a-b", "=x", "x=y", "<", "a>b",
		"é ünïcödé", "日本語", "٣", "title:٣", "a:-", "title:-x", "~", "^", "word ~1", "word ^2",
	} {
		checkSameParse(t, q)
	}
	// Random strings over the syntax's characters.
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "x", "1", "2", ".", " ", " ", "\t", "+", "-", ":", ">", "<", "=", "^", "~", `"`, `\`, "*", "?", "/", "é", "٣", "(", "title"}
	for range 20000 {
		var sb strings.Builder
		for range rng.Intn(10) + 1 {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		checkSameParse(t, sb.String())
	}
}

func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"backup +restore -test", `title:"a b"^2`, "x~1 /re/ w?ld*", "title:>=5 2020"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSameParse(t, s)
	})
}

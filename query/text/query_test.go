package text_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/text"
)

// TestParseQuery_Negation: a '-' negates up to the next space, only right
// after a space or at the start; phrases are AND'ed and their words are
// positive terms too (MongoDB's fts_query_impl.cpp rules, and the
// manual's "pre-market" example).
func TestParseQuery_Negation(t *testing.T) {
	en, err := text.LookupLanguage("english")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ search, want string }{
		{"-foo", "terms=[] neg=[foo] phrases=[] negPhrases=[]"},
		{"- foo", "terms=[foo] neg=[] phrases=[] negPhrases=[]"},
		{"-foo-bar", "terms=[] neg=[bar foo] phrases=[] negPhrases=[]"},
		{"pre-market", "terms=[market pre] neg=[] phrases=[] negPhrases=[]"},
		{"coffee -shop", "terms=[coffe] neg=[shop] phrases=[] negPhrases=[]"},
		{`-"foo bar"-"baz quux"`, "terms=[] neg=[] phrases=[] negPhrases=[foo bar|baz quux]"},
		{`"Fox Jumps" -"over the"`, "terms=[fox jump] neg=[] phrases=[Fox Jumps] negPhrases=[over the]"},
		{`the a an`, "terms=[] neg=[] phrases=[] negPhrases=[]"},
		{`Linn-Kristin`, "terms=[kristin linn] neg=[] phrases=[] negPhrases=[]"},
		{`magazine's`, "terms=[magazin] neg=[] phrases=[] negPhrases=[]"},
	} {
		q := text.ParseQuery(c.search, en, false, false)
		got := fmt.Sprintf("terms=%v neg=%v phrases=%v negPhrases=[%s]", q.Terms, keys(q.Negated), q.Phrases, strings.Join(q.NegatedPhrases, "|"))
		if got != c.want {
			t.Errorf("ParseQuery(%q):\n got  %s\n want %s", c.search, got, c.want)
		}
	}
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

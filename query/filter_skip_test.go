package query_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// Long keys: a pruned node's length mask has one bit for 63 and over.
var (
	long62 = strings.Repeat("k", 62)
	long70 = strings.Repeat("k", 70)
)

// TestMatchJSON_Walk: MatchJSON agrees with Match on documents that
// take each way of the walk: the canonical loop, the careful one (spaces,
// escaped keys, a key that decodes to a wanted name) and the switches
// between them, with values the skipper must pass over exactly.
func TestMatchJSON_Walk(t *testing.T) {
	filters := []string{
		`{"b":1}`, `{"b":{"$gte":1}}`, `{"a.c":"x"}`, `{"a.c":"x","b":1}`, `{"b":"s\"t"}`, `{"":1}`,
		`{"ab":1}`, `{"abcdefghij":1}`, `{"abcdefghé":1}`, `{"abcdefghijklmnop\"q":1}`, `{"a":{"$exists":true},"b":1}`, `{"z.c":1}`, `{"b":1.5}`, `{"b":-0.0}`, `{"a.$date":5}`,
		`{"` + long62 + `":1}`, `{"` + long70 + `":1}`, `{"` + long70 + `":1,"b":1}`,
	}
	docs := []string{`{"b":1}`, `{"a":{"c":"x"},"b":1}`, `{"a":"\"","b":1}`, `{"a":"\\","b":1}`,
		`{"a":"\\\"b\":2","b":1}`, `{"a":["]","}",{"b":2}],"b":1}`, `{"a":{"b":2,"c":"x","d":[{}]},"b":1}`,
		`{"\u0062":1}`, `{"a":1,"\u0062":1}`, `{"a" : 1, "b" : 1}`, `{"a":1, "b":1}`, `{"a":1,"b": 1}`,
		`{"a":{"c" :"x"},"b":1}`, `{"b":"s\"t"}`, `{"":1,"b":1}`, `{"ab":1,"b":2}`, `{"ba":1,"b":1}`,
		`{"a":1e5,"b":1.50}`, `{"a":-0,"b":-0.0}`, `{"a":1E+2,"b":1.5e0}`, `{"é":"😀","b":1}`,
		`{"a":"é","b":1}`, `{"a":{"$date":5},"b":1}`, `{"a":{"c":"x"}}`,
		`{"x":[[["b"]]],"b":[1,2]}`, `{"b":{"b":1}}`, `{"a":true,"b":null}`, `{"a":false,"b":1}`,
		`{"a":"x\"}","b":1}`, `{"a":"\"}\\","b":1}`, `{"a":["\"]",1],"b":1}`, `{"a":{"c":"\"}"},"b":1}`,
		`{"a":{"$date":5}}`, `{"a":{"$date":5},"a.$date":5}`,
		`{"` + long62 + `":1,"` + long70 + `":1}`, `{"` + long70[:63] + `":1,"b":1}`,
		`{"abcdefgh\u0069j":1,"b":1}`, `{"abcdefghé":1,"b":1}`,
		`{"abcdefghijklmnop\"q":1,"b":1}`, `{"abcdefghijklmnop\\":1,"b":1}`, `{"a":"abcdefghij\"},\"b\":2,","b":1}`,
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		// Canonical documents, and the same indented.
		d := value.JSON(testgen.Document(r))
		var ind bytes.Buffer
		if err := json.Indent(&ind, d, "", " "); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(d), ind.String())
	}
	for _, fs := range filters {
		f, err := query.CompileFilter(value.MustParse(fs))
		if err != nil {
			t.Fatal(err)
		}
		for _, ds := range docs {
			doc, err := value.Parse([]byte(ds))
			if err != nil {
				t.Fatalf("%s: %v", ds, err)
			}
			want := f.Match(doc)
			got, err := f.MatchJSON([]byte(ds))
			if err != nil || got != want {
				t.Errorf("filter %s on %s: MatchJSON = %v, %v; Match = %v", fs, ds, got, err, want)
			}
			got, err = f.JSONMatcher().Match([]byte(ds))
			if err != nil || got != want {
				t.Errorf("filter %s on %s: JSONMatcher = %v, %v; Match = %v", fs, ds, got, err, want)
			}
		}
	}
}

// TestMatchJSON_StopsInTheLastObject: once the walk has every field a
// filter reads, it reads nothing more, not even the rest of a nested
// object that held the last of them. The documents below are cut short
// after that point (what follows is never read, so a stored document's
// tail costs nothing); each one the walk must read to its end is also
// given whole, where the answer must equal Match's.
func TestMatchJSON_StopsInTheLastObject(t *testing.T) {
	for _, c := range []struct {
		filter, cut string
		want        bool
	}{
		{`{"a.c":"x"}`, `{"a":{"c":"x","z":[`, true},
		{`{"a.c":"y"}`, `{"a":{"c":"x","z":[`, false},
		{`{"b":1,"a.c":"x"}`, `{"b":1,"a":{"c":"x","z":{"q":`, true},
		{`{"a.b.c":1}`, `{"a":{"b":{"c":1,"junk`, true},
		{`{"a.b.c":1,"a.d":2}`, `{"a":{"d":2,"b":{"c":1,"x":[`, true},
		{`{"a.b.c":1,"a.d":{"$exists":false}}`, `{"a":{"d":2,"b":{"c":1,"x":[`, false},
		// The same through the decoder ($or is not read field by field).
		{`{"$or":[{"a.c":"x"},{"a.c":"y"}]}`, `{"a":{"c":"x","z":[`, true},
		{`{"$or":[{"a.b.c":1},{"a.d":3}]}`, `{"a":{"d":2,"b":{"c":1,"x":[`, true},
	} {
		f, err := query.CompileFilter(value.MustParse(c.filter))
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.MatchJSON([]byte(c.cut))
		if err != nil || got != c.want {
			t.Errorf("filter %s on %s: MatchJSON = %v, %v; want %v", c.filter, c.cut, got, err, c.want)
		}
	}
	// Where a wanted field follows the object, or the object is an element
	// of an array, the walk reads on, and a cut document is an error.
	for _, c := range []struct{ filter, whole, cut string }{
		{`{"a.c":"x","b":1}`, `{"a":{"c":"x","z":1},"b":1}`, `{"a":{"c":"x","z":[`},
		{`{"a.b.c":1,"a.d":2}`, `{"a":{"b":{"c":1,"x":2},"d":2}}`, `{"a":{"b":{"c":1,"x":[`},
		{`{"a.c":"x"}`, `{"a":[{"c":"y","z":1},{"c":"x"}]}`, `{"a":[{"c":"y","z":[`},
		{`{"a.c":"x"}`, `{"a":[{"c":"x","z":1},{"c":"y"}]}`, `{"a":[{"c":"x","z":[`},
		{`{"$or":[{"a.c":"x"},{"b":1}]}`, `{"a":{"c":"x","z":1},"b":1}`, `{"a":{"c":"x","z":[`},
	} {
		f, err := query.CompileFilter(value.MustParse(c.filter))
		if err != nil {
			t.Fatal(err)
		}
		want := f.Match(value.MustParse(c.whole))
		if got, err := f.MatchJSON([]byte(c.whole)); err != nil || got != want || !want {
			t.Errorf("filter %s on %s: MatchJSON = %v, %v; Match = %v", c.filter, c.whole, got, err, want)
		}
		if got, err := f.MatchJSON([]byte(c.cut)); err == nil {
			t.Errorf("filter %s on %s: MatchJSON = %v without an error", c.filter, c.cut, got)
		}
	}
}

// TestFilter_Direct: a conjunction of conditions on fields, none inside
// another, is matched on the fields' values read from the JSON; other
// filters on the pruned document. TestFilter_MatchJSON_EqualsMatch and
// TestMatchJSON_Walk compare both ways with Match.
func TestFilter_Direct(t *testing.T) {
	for spec, want := range map[string]bool{
		`{"address.city":"Lima","score":{"$gte":50}}`:       true,
		`{"a":{"$gte":1,"$lt":5},"b":{"$in":[1,2]}}`:        true,
		`{"a":{"$elemMatch":{"b":1}},"c.0":null}`:           true,
		`{"$and":[{"a":1},{"b.c":{"$exists":false}}]}`:      true,
		`{"a":{"$ne":1,"$nin":[2]},"b":{"$not":{"$gt":1}}}`: true,
		`{"a":{"$not":{"$elemMatch":{"b":1}}}}`:             true,
		`{"a":1,"a.b":2}`:                                   false, // one field inside another
		`{"a.b":2,"a":{"$type":"object"}}`:                  false,
		`{"$or":[{"a":1},{"b":2}]}`:                         false,
		`{"$nor":[{"a":1}]}`:                                false,
		`{"$expr":{"$eq":["$a",1]}}`:                        false,
		`{}`:                                                false,
	} {
		f, err := query.CompileFilter(value.MustParse(spec))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := query.FilterDirect(f); got != want {
			t.Errorf("%s: direct %v, want %v", spec, got, want)
		}
	}
}

// TestMatchJSON_Errors: a document the walk reads in part still reports
// the errors of the parts it reads, and agrees with Parse on the others.
func TestMatchJSON_Errors(t *testing.T) {
	f, err := query.CompileFilter(value.MustParse(`{"b":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range []string{`{"a":1,"b":01}`, `{"a":1,"b":"x`, `{"a":"x,"b":1}`, `{"a":[1,"b":1}`,
		"{\"abcdefghijk\xff\":1,\"b\":1}", "{\"a\xff\":1,\"b\":1}", "{\"abcdefghijk\x01\":1,\"b\":1}", "{\"a\x1f\":1,\"b\":1}",
		`{"a":1,"b":1.}`, `{"a":1,"b":-}`, `{"a":1 "b":1}`, `{"a":1,"b"1}`, `{"a":1,"b":tru}`,
		`{"a":` + strings.Repeat("[", value.MaxDepth+1) + strings.Repeat("]", value.MaxDepth+1) + `,"b":1}`} {
		if _, err := f.MatchJSON([]byte(ds)); err == nil {
			t.Errorf("%s: no error", ds)
		}
	}
}

// TestParseFields_OwnsMemory: what ParseFields returns outlives the text
// it read (strings and keys are copied, whichever way they were read).
func TestParseFields_OwnsMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	fs := value.NewFieldSet([]string{"address.city", "score", "name", "tags"})
	texts := userTexts(8)
	for range 200 {
		texts = append(texts, value.JSON(testgen.Document(r)))
	}
	for _, text := range texts {
		buf := bytes.Clone(text)
		got, err := value.ParseFields(buf, fs)
		if err != nil {
			t.Fatal(err)
		}
		want := string(value.JSON(got))
		for i := range buf {
			buf[i] = 'X'
		}
		if after := string(value.JSON(got)); after != want {
			t.Fatalf("ParseFields of %s: %s, then %s once the text is overwritten", text, want, after)
		}
	}
}

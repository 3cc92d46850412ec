package query_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
)

// skipCases are values whose canonical JSON the skipper must pass over
// exactly: escapes (a quote after an even or odd run of backslashes),
// brackets inside strings, unicode, nesting, numbers of every form.
var skipCases = []string{
	`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"\\\\"`, `"a\\\\\"b"`, `"]}{["`, `"\u0000\n\t"`,
	`"é😀\u2028"`, `"` + strings.Repeat("x", 40) + `\\"`, `"` + strings.Repeat(`\"`, 20) + `"`,
	`0`, `-0`, `7`, `-12`, `1.5`, `-0.25`, `55.161`, `1e5`, `1E+5`, `-1.5e-7`, `123456789012345678`,
	`1234567890123456789012345`, `0.1000000000000000055511151231257827`, `true`, `false`, `null`,
	`[]`, `{}`, `[[[]]]`, `{"a":{"b":{"c":[1,{"d":"}"}]}}}`, `["]","[",{"k]":"{"}]`,
	`{"$date":1753309134000}`, `{"$oid":"65f0a1b2c3d4e5f6a7b80001"}`, `[1,"a\\",{"b":"c\"d"}]`,
}

// TestSkipCanonical: skipCanonical ends every value where it ends, in
// any context, and reports (-1) a string or container that does not end.
func TestSkipCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := append([]string(nil), skipCases...)
	for range 3000 {
		texts = append(texts, string(query.JSON(testgen.Value(r, 4))))
	}
	for _, text := range texts {
		for _, after := range []string{",", "}", "]", `,"k":1}`} {
			data := []byte(`{"k":` + text + after)
			if got := query.SkipCanonical(data, 5, 2); got != 5+len(text) {
				t.Fatalf("skip %s in %s: end %d, want %d", text, data, got, 5+len(text))
			}
		}
		if text[0] != '"' && text[0] != '{' && text[0] != '[' {
			continue
		}
		// Cut short, a string or container does not end.
		for n := 1; n < len(text); n++ {
			if got := query.SkipCanonical([]byte(text[:n]), 0, 1); got != -1 {
				t.Fatalf("skip %q (cut from %s): end %d, want -1", text[:n], text, got)
			}
		}
	}
	// Nesting deeper than MaxDepth is left to the careful skip, which
	// reports it.
	deep := strings.Repeat("[", query.MaxDepth+1) + strings.Repeat("]", query.MaxDepth+1)
	if got := query.SkipCanonical([]byte(deep), 0, 1); got != -1 {
		t.Fatalf("skip %d levels: end %d, want -1", query.MaxDepth+1, got)
	}
	ok := deep[1 : len(deep)-1]
	if got := query.SkipCanonical([]byte(ok), 0, 1); got != len(ok) {
		t.Fatalf("skip %d levels: end %d, want %d", query.MaxDepth, got, len(ok))
	}
}

// TestShortNumber: the one-pass number reader returns what the parser
// does, bit for bit, for the numbers it takes, and takes the short ones.
func TestShortNumber(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	texts := []string{"0", "-0", "0.0", "-0.0", "1", "-1", "10", "999999999999999", "-999999999999999",
		"1000000000000000", "99999999999999.9", "9.99999999999999", "0.000000000000001", "55.161", "-83.42",
		"1.5", "00", "01", "-01", "1.", "-", "1e5", "1.5E3", "2.5e-1", "0.1", "1234567890.12345", "1234567890.123456",
		"9007199254740993", "1x", "1.5x", "12,", "3}"}
	for range 20000 {
		var s string
		switch r.IntN(4) {
		case 0:
			s = strconv.FormatInt(r.Int64N(1e16)-5e15, 10)
		case 1:
			s = strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(20)-10)), 'f', r.IntN(12), 64)
		case 2:
			s = strconv.FormatFloat(r.Float64()*1000, 'f', -1, 64)
		default:
			s = strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64)
		}
		texts = append(texts, s)
	}
	for _, text := range texts {
		v, next := query.ShortNumber([]byte(text))
		end := strings.IndexAny(text, "x,}")
		if end < 0 {
			end = len(text)
		}
		want, err := query.Parse([]byte(text[:end]))
		if next == 0 {
			digits := strings.Count(text[:end], "") - 1 - strings.Count(text[:end], "-") - strings.Count(text[:end], ".")
			if err == nil && !strings.ContainsAny(text, "eE") && digits <= 15 {
				t.Errorf("%s: not taken, a short number", text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s, the parser: %v", text, v, err)
			continue
		}
		if next != end || v.Kind() != want.Kind() || query.Compare(v, want) != 0 || math.Signbit(v.Float()) != math.Signbit(want.Float()) || math.Float64bits(v.Float()) != math.Float64bits(want.Float()) {
			t.Errorf("%s: %s (%s) ending at %d; the parser: %s (%s) ending at %d", text, v, v.Kind(), next, want, want.Kind(), end)
		}
	}
}

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
		d := query.JSON(testgen.Document(r))
		var ind bytes.Buffer
		if err := json.Indent(&ind, d, "", " "); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(d), ind.String())
	}
	for _, fs := range filters {
		f, err := query.CompileFilter(query.MustParse(fs))
		if err != nil {
			t.Fatal(err)
		}
		for _, ds := range docs {
			doc, err := query.Parse([]byte(ds))
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
		f, err := query.CompileFilter(query.MustParse(c.filter))
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
		f, err := query.CompileFilter(query.MustParse(c.filter))
		if err != nil {
			t.Fatal(err)
		}
		want := f.Match(query.MustParse(c.whole))
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
		f, err := query.CompileFilter(query.MustParse(spec))
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
	f, err := query.CompileFilter(query.MustParse(`{"b":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range []string{`{"a":1,"b":01}`, `{"a":1,"b":"x`, `{"a":"x,"b":1}`, `{"a":[1,"b":1}`,
		"{\"abcdefghijk\xff\":1,\"b\":1}", "{\"a\xff\":1,\"b\":1}", "{\"abcdefghijk\x01\":1,\"b\":1}", "{\"a\x1f\":1,\"b\":1}",
		`{"a":1,"b":1.}`, `{"a":1,"b":-}`, `{"a":1 "b":1}`, `{"a":1,"b"1}`, `{"a":1,"b":tru}`,
		`{"a":` + strings.Repeat("[", query.MaxDepth+1) + strings.Repeat("]", query.MaxDepth+1) + `,"b":1}`} {
		if _, err := f.MatchJSON([]byte(ds)); err == nil {
			t.Errorf("%s: no error", ds)
		}
	}
}

// TestParseFields_OwnsMemory: what ParseFields returns outlives the text
// it read (strings and keys are copied, whichever way they were read).
func TestParseFields_OwnsMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	fs := query.NewFieldSet([]string{"address.city", "score", "name", "tags"})
	texts := userTexts(8)
	for range 200 {
		texts = append(texts, query.JSON(testgen.Document(r)))
	}
	for _, text := range texts {
		buf := bytes.Clone(text)
		got, err := query.ParseFields(buf, fs)
		if err != nil {
			t.Fatal(err)
		}
		want := string(query.JSON(got))
		for i := range buf {
			buf[i] = 'X'
		}
		if after := string(query.JSON(got)); after != want {
			t.Fatalf("ParseFields of %s: %s, then %s once the text is overwritten", text, want, after)
		}
	}
}

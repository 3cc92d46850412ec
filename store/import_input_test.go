package store_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/store"
)

// split is a compact form of ReadImportInput's result: one line per
// document, "line-last: json" or "line-last: error: …" (",col" for CSV).
// An int32's stored form {"$numberInt":"7"} is written 7, as a long is,
// so that the cases read the same whether or not the store has int32
// (the testscripts check the types with --ejson canonical).
func split(in string, opts *store.ImportOptions) string {
	var b strings.Builder
	for _, d := range store.ReadImportInput(strings.NewReader(in), opts) {
		fmt.Fprintf(&b, "%d-%d", d.Line, d.Last)
		if d.Col > 0 {
			fmt.Fprintf(&b, ",%d", d.Col)
		}
		if d.Err != "" {
			fmt.Fprintf(&b, ": error: %s\n", d.Err)
		} else {
			fmt.Fprintf(&b, ": %s\n", storedInt.ReplaceAllString(d.JSON, "$1"))
		}
	}
	return b.String()
}

var storedInt = regexp.MustCompile(`\{"\$numberInt":"(-?[0-9]+)"\}`)

func TestImportInput_JSONStreams(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one per line, blank lines", "{\"_id\":1}\n\n{\"_id\":2}\n", "1-1: {\"_id\":1}\n3-3: {\"_id\":2}\n"},
		{"several per line and concatenated", `{"_id":1} {"_id":2}{"_id":3}` + "\n" + `{"_id":4}`, "1-1: {\"_id\":1}\n1-1: {\"_id\":2}\n1-1: {\"_id\":3}\n2-2: {\"_id\":4}\n"},
		{"pretty-printed", "{\n  \"_id\": 1,\n  \"a\": {\n    \"b\": [1, 2]\n  }\n}\n{\"_id\":2}\n", "1-6: {\"_id\":1,\"a\":{\"b\":[1,2]}}\n7-7: {\"_id\":2}\n"},
		{"a line that ends inside a nested document", "{\"_id\":1,\"a\":{\"b\":1}\n}\n", "1-2: {\"_id\":1,\"a\":{\"b\":1}}\n"},
		{"braces, brackets and quotes in strings", `{"_id":1,"s":"}{\"[]\\"}` + "\n", "1-1: {\"_id\":1,\"s\":\"}{\\\"[]\\\\\"}\n"},
		{"byte-order mark", "\ufeff{\"_id\":1}\n", "1-1: {\"_id\":1}\n"},
		{"byte-order mark before a pretty document", "\ufeff{\n\"_id\":1}\n", "1-2: {\"_id\":1}\n"},
		{"CRLF", "{\"_id\":1}\r\n{\r\n\"_id\":2\r\n}\r\n", "1-1: {\"_id\":1}\n2-4: {\"_id\":2}\n"},
		{"empty", "", ""},
		{"white space only", " \n\t\n", ""},
		{"a line ends inside a string", "{\"_id\":1,\"s\":\"abc\n{\"_id\":2}\n", "1-1: error: invalid JSON: a line ends inside a string\n2-2: {\"_id\":2}\n"},
		{"a document left open before a line that starts one", "{\"_id\":1,\n{\"_id\":2}\n", "1-1: error: invalid JSON: the document is not closed before the next line starts a document\n2-2: {\"_id\":2}\n"},
		{"a document left open at the end", "{\"_id\":1}\n{\"_id\":2,\n \"a\":[1\n", "1-1: {\"_id\":1}\n2-3: error: invalid JSON: the input ends inside the document that starts on this line\n"},
		{"junk between documents", "{\"_id\":1}\nhello {\"_id\":9}\n{\"_id\":2}\n", "1-1: {\"_id\":1}\n2-2: error: expected a document, found `h`\n3-3: {\"_id\":2}\n"},
		{"a bad document in the middle of a line", `{"_id":1} {"_id":2,x} {"_id":3}`, "1-1: {\"_id\":1}\n1-1: error: invalid JSON at byte 9: unexpected character 'x' in an object, expected a quoted key\n1-1: {\"_id\":3}\n"},
		{"an error inside a pretty document names its line and column", "{\"_id\":0}\n{\n  \"_id\": 1,\n  \"a\": [1, 2,]\n}\n", "1-1: {\"_id\":0}\n2-5: error: invalid JSON at line 4, column 14: unexpected character ']', expected a value\n"},
		{"an array without --jsonArray", "[{\"_id\":1}]\n", "1-1: error: the input is a JSON array, not a stream of documents\n"},
		{"CSV read as JSON", "name,age\nann,3\n", "1-1: error: the input is not JSON: it starts with `n`\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := split(tt.in, &store.ImportOptions{}); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

func TestImportInput_JSONArrays(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one line", `[{"_id":1},{"_id":2}]`, "1-1: {\"_id\":1}\n1-1: {\"_id\":2}\n"},
		{"one per line, as export --jsonArray writes", "[{\"_id\":1},\n{\"_id\":2}]\n", "1-1: {\"_id\":1}\n2-2: {\"_id\":2}\n"},
		{"pretty", "[\n  {\n    \"_id\": 1\n  },\n  {\"_id\": 2}\n]\n", "2-4: {\"_id\":1}\n5-5: {\"_id\":2}\n"},
		{"empty", "[]", ""},
		{"byte-order mark", "\ufeff[{\"_id\":1}]", "1-1: {\"_id\":1}\n"},
		{"a missing comma", "[{\"_id\":1}\n{\"_id\":2}]", "1-1: {\"_id\":1}\n2-2: error: a ',' is missing between the documents of the array, found `{`\n2-2: {\"_id\":2}\n"},
		{"an extra comma", "[{\"_id\":1},,\n{\"_id\":2}]", "1-1: {\"_id\":1}\n1-1: error: an element of the array is missing, found `,`\n2-2: {\"_id\":2}\n"},
		{"an element that is not a document", "[{\"_id\":1},\n2,\n{\"_id\":3}]", "1-1: {\"_id\":1}\n2-2: error: an element of the array is not a document, found `2`\n3-3: {\"_id\":3}\n"},
		{"data after the array", "[{\"_id\":1}]\n{\"_id\":2}", "1-1: {\"_id\":1}\n2-2: error: data after the end of the JSON array, found `{`\n"},
		{"not closed", "[{\"_id\":1},\n", "1-1: {\"_id\":1}\n2-2: error: the input ends inside the JSON array\n"},
		{"documents, not an array", "{\"_id\":1}\n", "1-1: error: the input is not a JSON array: it starts with a document\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := split(tt.in, &store.ImportOptions{JSONArray: true}); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

func TestImportInput_ResumeFromLine(t *testing.T) {
	in := "{\"_id\":1}\n{\n\"_id\":2\n}\n{\"_id\":3} {\"_id\":4}\n{\"_id\":5}\n"
	want := "5-5: {\"_id\":3}\n5-5: {\"_id\":4}\n6-6: {\"_id\":5}\n"
	if got := split(in, &store.ImportOptions{ResumeFromLine: 3}); got != want {
		t.Errorf("resume at a line inside a document: got\n%swant\n%s", got, want)
	}
	csv := "a,b\n1,2\n3,4\n"
	if got := split(csv, &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ResumeFromLine: 3}); !strings.HasPrefix(got, "3-3: ") || strings.Count(got, "\n") != 1 {
		t.Errorf("CSV resume keeps the header: got\n%s", got)
	}
}

// TestImportInput_RandomStreams: random documents (strings full of
// braces, brackets, quotes and escapes, nested objects and arrays) laid out
// every way a stream allows come back in order, each with its first line.
func TestImportInput_RandomStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		n := 1 + r.IntN(8)
		var in strings.Builder
		var want []string
		if r.IntN(4) == 0 {
			in.WriteString("\ufeff")
		}
		array := r.IntN(3) == 0
		if array {
			in.WriteString("[")
		}
		for i := 0; i < n; i++ {
			doc := randomDoc(r, i, 3)
			compact, _ := json.Marshal(doc)
			text := compact
			if r.IntN(3) == 0 {
				text, _ = json.MarshalIndent(doc, "", "  ")
			}
			if array && i > 0 {
				in.WriteString(",")
			}
			in.WriteString([]string{"", " ", "\n", "\n\n", "\t", "\r\n"}[r.IntN(6)])
			in.Write(text)
			want = append(want, string(compact))
		}
		if array {
			in.WriteString("]")
		}
		if r.IntN(2) == 0 {
			in.WriteString("\n")
		}
		got := store.ReadImportInput(strings.NewReader(in.String()), &store.ImportOptions{JSONArray: array})
		if len(got) != len(want) {
			t.Fatalf("round %d: %d documents, want %d, from\n%s\n%+v", round, len(got), len(want), in.String(), got)
		}
		for i, d := range got {
			if d.Err != "" || d.JSON != want[i] {
				t.Fatalf("round %d document %d = %q (%s), want %s\nfrom\n%s", round, i, d.JSON, d.Err, want[i], in.String())
			}
			if i > 0 && d.Line < got[i-1].Last {
				t.Fatalf("round %d: document %d starts on line %d, before %d", round, i, d.Line, got[i-1].Last)
			}
		}
	}
}

// randomDoc is a document whose keys are in the order json.Marshal
// writes a map's (sorted), with _id first ("_" sorts before letters).
func randomDoc(r *rand.Rand, id, depth int) map[string]any {
	doc := map[string]any{"_id": id}
	for i := r.IntN(4); i > 0; i-- {
		doc[string(rune('a'+r.IntN(26)))+fmt.Sprint(i)] = randomValue(r, depth)
	}
	return doc
}

func randomValue(r *rand.Rand, depth int) any {
	pieces := []string{"{", "}", "[", "]", `"`, `\`, "\\n", ",", ":", "é", "🙂", " ", "x"}
	switch k := r.IntN(6); {
	case k == 0 && depth > 0:
		return randomDoc(r, r.IntN(100), depth-1)
	case k == 1 && depth > 0:
		arr := make([]any, r.IntN(4))
		for i := range arr {
			arr[i] = randomValue(r, depth-1)
		}
		return arr
	case k == 2:
		return r.IntN(1000) - 500
	default:
		var s strings.Builder
		for i := r.IntN(8); i > 0; i-- {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		return s.String()
	}
}

// FuzzImportInput: whatever the input, reading it ends, in order, and a
// document that is read back is valid (its canonical form reads the same).
func FuzzImportInput(f *testing.F) {
	for _, s := range []string{"{\"_id\":1}\n", "{\n\"a\":\"}\"\n}", "[{\"_id\":1},{\"_id\":2}]", "\ufeff{}", "{\"s\":\"x\n{}", "a,b\n1,2\n", "[{}\n{}]", "{{{{", "]]}}\"", "{\"a\":[{\"b\":\"\\\"\"}]}{}"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, array bool) {
		var last int64
		for _, d := range store.ReadImportInput(strings.NewReader(in), &store.ImportOptions{JSONArray: array}) {
			if d.Line < last || d.Last < d.Line {
				t.Fatalf("lines out of order: %+v after line %d", d, last)
			}
			last = d.Line
			if d.Err != "" {
				continue
			}
			again := store.ReadImportInput(strings.NewReader(d.JSON), &store.ImportOptions{})
			if len(again) != 1 || again[0].JSON != d.JSON {
				t.Fatalf("%q read back as %+v", d.JSON, again)
			}
		}
	})
}

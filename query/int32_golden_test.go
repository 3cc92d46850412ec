package query_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/golden"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/query/value/valuetest"
)

// int32Differs lists the filter golden blocks (file:line) whose answers
// rightly depend on whether a whole number is an int32 or a long.
var int32Differs = map[string]string{
	"testdata/query/comparison.txt:85": "$type: long",
	"testdata/query/comparison.txt:89": "$type: 18 (long)",
	"testdata/query/types.txt:29":      "$type: int",
	"testdata/query/types.txt:33":      "$type: 16 (int)",
	"testdata/query/types.txt:37":      "$type: long",
}

// TestQuery_GoldenInt32 runs every filter golden block again with each
// whole number in its documents, filter, projection and sort an int32
// instead of a long, and checks it finds the same documents. The scripts
// were written when omgdb had no int32.
func TestQuery_GoldenInt32(t *testing.T) {
	files, err := filepath.Glob("testdata/query/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		var docs, idocs []value.Value
		for _, b := range golden.Read(t, path) {
			if b.Command == "docs" {
				docs = parseDocs(t, path, b)
				idocs = make([]value.Value, len(docs))
				for i, d := range docs {
					idocs[i] = valuetest.AsInt32(d)
				}
				continue
			}
			where := path + ":" + strconv.Itoa(b.Line)
			if _, ok := int32Differs[where]; ok {
				continue
			}
			got := runQuery(docs, b)
			ib := b
			ib.Command = int32JSONTail(b.Command)
			ib.Args = make([]string, len(b.Args))
			for i, a := range b.Args {
				ib.Args[i] = int32JSONTail(a)
			}
			igot := runQuery(idocs, ib)
			if !sameLines(got, igot) {
				t.Errorf("%s: %s %s\nwith longs:\n%s\nwith int32s:\n%s", where, b.Command, strings.Join(b.Args, " "),
					strings.Join(got, "\n"), strings.Join(igot, "\n"))
			}
		}
	}
}

// int32JSONTail rewrites the JSON after a line's first word ("find {…}",
// "sort {…}") through valuetest.AsInt32; a line whose tail is not JSON is
// left alone, so that its error is the same.
func int32JSONTail(line string) string {
	word, tail, ok := strings.Cut(line, " ")
	if !ok {
		return line
	}
	v, err := value.ParseString(tail)
	if err != nil {
		return line
	}
	return word + " " + string(value.JSON(valuetest.AsInt32(v)))
}

// sameLines compares output lines: documents and ids by numeric value,
// errors by being errors.
func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.HasPrefix(a[i], "error:") || strings.HasPrefix(a[i], "hint:") {
			if !strings.HasPrefix(b[i], a[i][:5]) {
				return false
			}
			continue
		}
		at, bt := strings.Fields(a[i]), strings.Fields(b[i])
		if strings.HasPrefix(a[i], "{") {
			at, bt = []string{a[i]}, []string{b[i]}
		}
		if len(at) != len(bt) {
			return false
		}
		for j := range at {
			av, aerr := value.ParseString(at[j])
			bv, berr := value.ParseString(bt[j])
			if aerr != nil || berr != nil {
				if at[j] != bt[j] {
					return false
				}
				continue
			}
			if !valuetest.SameNumbers(av, bv) {
				return false
			}
		}
	}
	return true
}

// int32UpdateDiffers lists the update golden cases (file:line) whose
// answers rightly depend on whether a whole number is an int32 or a long.
var int32UpdateDiffers = map[string]string{}

// TestUpdate_GoldenInt32 applies every update golden case again with each
// whole number in its document, update, array filters and query an int32
// instead of a long, and checks the result is the same numbers (or an
// error again).
func TestUpdate_GoldenInt32(t *testing.T) {
	files, err := filepath.Glob("testdata/update/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		cases, err := readGolden(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			where := file + ":" + strconv.Itoa(c.line)
			if _, ok := int32UpdateDiffers[where]; ok || c.get["update"] == "" {
				continue
			}
			ic := &goldenCase{file: c.file, line: c.line, get: map[string]string{}}
			for k, v := range c.get {
				ic.get[k] = v
				if k == "doc" || k == "update" || k == "filters" || k == "query" || k == "upsert" {
					ic.get[k] = strings.TrimPrefix(int32JSONTail("x "+v), "x ")
				}
			}
			got, igot := runGoldenCase(t, c), runGoldenCase(t, ic)
			if !sameUpdateOutput(got, igot) {
				t.Errorf("%s %s\nwith longs:\n%swith int32s:\n%s", where, c.title(), got, igot)
			}
		}
	}
}

// sameUpdateOutput compares two runGoldenCase outputs: results by numeric
// value, errors by being errors.
func sameUpdateOutput(a, b string) bool {
	if strings.HasPrefix(a, "error") || strings.HasPrefix(b, "error") {
		return strings.HasPrefix(a, "error") && strings.HasPrefix(b, "error")
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) || strings.Join(al[1:], "\n") != strings.Join(bl[1:], "\n") {
		return false // "unchanged" differs
	}
	av, aerr := value.ParseString(strings.TrimPrefix(al[0], "want    "))
	bv, berr := value.ParseString(strings.TrimPrefix(bl[0], "want    "))
	return aerr == nil && berr == nil && valuetest.SameNumbers(av, bv)
}

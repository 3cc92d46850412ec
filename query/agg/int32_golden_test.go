package agg_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/query/value/valuetest"
)

// int32Lines rewrites JSON lines through asInt32, in canonical form.
func int32Lines(t *testing.T, lines []string) []string {
	out := make([]string, len(lines))
	for i, v := range parseLines(t, "int32", lines) {
		out[i] = string(value.JSON(valuetest.AsInt32(v)))
	}
	return out
}

// int32Differs lists the golden cases whose answers rightly depend on
// whether a whole number is an int32 or a long: they report a type.
var int32Differs = map[string]string{}

// TestAgg_GoldenInt32 runs every pipeline golden case a second time with
// each whole number in its documents and pipeline an int32 instead of a
// long, and checks the answers are the same numbers (or the same error).
// The cases were written when omgdb had no int32; MongoDB users' data is
// mostly int32, so every stage and operator must take one where it takes
// a long.
func TestAgg_GoldenInt32(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		_, cases := parseAggFile(t, file)
		for _, c := range cases {
			name := strings.TrimSuffix(filepath.Base(file), ".txt") + "/" + c.name
			t.Run(name, func(t *testing.T) {
				if why, ok := int32Differs[name]; ok {
					t.Skip(why)
				}
				got, err := runAgg(t, c)
				ic := *c
				ic.docs = int32Lines(t, c.docs)
				ic.colls = map[string][]string{}
				for n, lines := range c.colls {
					ic.colls[n] = int32Lines(t, lines)
				}
				ic.pipeline = int32Lines(t, []string{strings.TrimSpace(c.pipeline)})[0]
				igot, ierr := runAgg(t, &ic)
				if (err == nil) != (ierr == nil) {
					t.Fatalf("with longs: %v, %v\nwith int32s: %v, %v", got, err, igot, ierr)
				}
				if err != nil {
					return
				}
				if len(got) != len(igot) {
					t.Fatalf("with longs %d results, with int32s %d:\n%s\n%s", len(got), len(igot), strings.Join(got, "\n"), strings.Join(igot, "\n"))
				}
				g, ig := parseLines(t, "got", got), parseLines(t, "int32 got", igot)
				for i := range g {
					if !valuetest.SameNumbers(g[i], ig[i]) {
						t.Fatalf("result %d differs\nwith longs:  %s\nwith int32s: %s", i, got[i], igot[i])
					}
				}
			})
		}
	}
}

package value_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
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
		texts = append(texts, string(value.JSON(testgen.Value(r, 4))))
	}
	for _, text := range texts {
		for _, after := range []string{",", "}", "]", `,"k":1}`} {
			data := []byte(`{"k":` + text + after)
			if got := value.SkipCanonical(data, 5, 2); got != 5+len(text) {
				t.Fatalf("skip %s in %s: end %d, want %d", text, data, got, 5+len(text))
			}
		}
		if text[0] != '"' && text[0] != '{' && text[0] != '[' {
			continue
		}
		// Cut short, a string or container does not end.
		for n := 1; n < len(text); n++ {
			if got := value.SkipCanonical([]byte(text[:n]), 0, 1); got != -1 {
				t.Fatalf("skip %q (cut from %s): end %d, want -1", text[:n], text, got)
			}
		}
	}
	// Nesting deeper than MaxDepth is left to the careful skip, which
	// reports it.
	deep := strings.Repeat("[", value.MaxDepth+1) + strings.Repeat("]", value.MaxDepth+1)
	if got := value.SkipCanonical([]byte(deep), 0, 1); got != -1 {
		t.Fatalf("skip %d levels: end %d, want -1", value.MaxDepth+1, got)
	}
	ok := deep[1 : len(deep)-1]
	if got := value.SkipCanonical([]byte(ok), 0, 1); got != len(ok) {
		t.Fatalf("skip %d levels: end %d, want %d", value.MaxDepth, got, len(ok))
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
		v, next := value.ShortNumber([]byte(text))
		end := strings.IndexAny(text, "x,}")
		if end < 0 {
			end = len(text)
		}
		want, err := value.Parse([]byte(text[:end]))
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
		if next != end || v.Kind() != want.Kind() || value.Compare(v, want) != 0 || math.Signbit(v.Float()) != math.Signbit(want.Float()) || math.Float64bits(v.Float()) != math.Float64bits(want.Float()) {
			t.Errorf("%s: %s (%s) ending at %d; the parser: %s (%s) ending at %d", text, v, v.Kind(), next, want, want.Kind(), end)
		}
	}
}

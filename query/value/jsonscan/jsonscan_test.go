package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// strings to read, as JSON text with their quotes (or without an end).
var stringCases = []string{
	`""`, `"a"`, `"plain ascii text"`, `"héllo wörld ✓ 𝄞"`,
	`"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"a\"b\\c\/d"`, `"\\\""`, `"\\\\"`,
	`"\u0000"`, `"\u001f"`, `"\u00e9"`, `"\u00E9"`, `"\u20AC"`, `"\uFFFD"`, `"\uffff"`,
	`"\uD834\uDD1E"`, `"\ud834\udd1e"`, `"x\uD83D\uDE00y"`,
	// lone and broken surrogates: refused here, U+FFFD for encoding/json
	`"\uD834"`, `"\uDD1E"`, `"\uD834x"`, `"\uD834\u0041"`, `"\uD834\uD834"`, `"\uDC00\uDC00"`,
	// bad escapes
	`"\x"`, `"\u12"`, `"\u12G4"`, `"\uD834\u12"`, `"\uD834\uZZZZ"`, `"\'"`, `"\U0041"`, `"\`, `"abc\`,
	// control characters
	"\"a\x00b\"", "\"\t\"", "\"\n\"", "\"\x1f\"",
	// invalid UTF-8: refused here, U+FFFD for encoding/json
	"\"\xff\"", "\"a\xc3\"", "\"\xc3\x28\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "\"\xc3\\n\"",
	// no end
	`"`, `"abc`, `"abc\"`,
	// a long one, past StringEnd's short loop
	`"` + strings.Repeat("0123456789", 10) + `\"` + strings.Repeat("x", 40) + `"`,
}

// replaced reports whether encoding/json decoded text to s by replacing
// invalid UTF-8 or lone surrogates with U+FFFD, which omgdb refuses.
func replaced(text []byte, s string) bool {
	return strings.Count(s, "\uFFFD") > strings.Count(string(text), "\uFFFD")+
		strings.Count(strings.ToLower(string(text)), `\ufffd`)
}

func TestString_EqualsEncodingJSON(t *testing.T) {
	for _, c := range stringCases {
		checkString(t, []byte(c))
	}
}

// checkString checks String, StringEnd and Unquote on text, a quote and
// what follows, against encoding/json.
func checkString(t *testing.T, text []byte) {
	t.Helper()
	end, f := jsonscan.String(text, 1)
	if e := jsonscan.StringEnd(text, 1); e != end {
		t.Errorf("StringEnd(%q) = %d, String says %d", text, e, end)
	}
	out, next, err := jsonscan.Unquote(nil, text, 1)
	if end < 0 {
		if err == nil {
			t.Errorf("Unquote(%q) = %q, but the string has no end", text, out)
		}
		return
	}
	body := text[1 : end-1]
	want := jsonscan.Flags(0)
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			want |= jsonscan.Escaped
			i++
		case c < 0x20:
			want |= jsonscan.Control
		case c >= 0x80:
			want |= jsonscan.NonASCII
		}
	}
	if f != want {
		t.Errorf("String(%q) flags = %b, want %b", text, f, want)
	}
	var s string
	jerr := json.Unmarshal(text[:end], &s)
	switch {
	case err == nil && jerr != nil:
		t.Errorf("Unquote(%q) = %q, encoding/json refuses it: %v", text, out, jerr)
	case err == nil && (string(out) != s || next != end):
		t.Errorf("Unquote(%q) = %q, %d; encoding/json reads %q, %d", text, out, next, s, end)
	case err != nil && jerr == nil && !replaced(text[:end], s):
		t.Errorf("Unquote(%q) refuses it (%v), encoding/json reads %q", text, err, s)
	case err != nil && (err.Offset < 0 || err.Offset > len(text)):
		t.Errorf("Unquote(%q): offset %d out of the text", text, err.Offset)
	}
	if err == nil && f&(jsonscan.Escaped|jsonscan.Control) == 0 && !bytes.Equal(out, body) {
		t.Errorf("Unquote(%q) = %q, a plain string reads as it is", text, out)
	}
}

func TestUnquote_Errors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{`"\uD834"`, `invalid JSON at byte 7: lone surrogate \uD834 in a string`},
		{`"\uD834\u0041"`, `invalid JSON at byte 13: lone surrogate \uD834 in a string`},
		{`"\uDD1E"`, `invalid JSON at byte 7: lone surrogate \uDD1E in a string`},
		{`"\u12"`, `invalid JSON at byte 3: short \u escape`},
		{`"\u12G4"`, `invalid JSON at byte 3: invalid \u escape "12G4"`},
		{`"ab\x"`, `invalid JSON at byte 3: invalid escape \x in a string`},
		{`"ab\`, `invalid JSON at byte 4: unterminated escape`},
		{"\"a\x01\"", `invalid JSON at byte 2: control character 0x01 in a string (escape it)`},
		{"\"ab\xff\\n\"", `invalid JSON at byte 3: invalid UTF-8 in a string`},
		{`"abc`, `invalid JSON at byte 4: unterminated string`},
	} {
		_, _, err := jsonscan.Unquote(nil, []byte(c.text), 1)
		if err == nil || err.Error() != c.msg {
			t.Errorf("Unquote(%q) error = %v, want %s", c.text, err, c.msg)
		}
	}
}

var numberCases = []string{
	"0", "-0", "1", "-1", "7", "10", "123", "-45",
	"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
	"99999999999999999999", "123456789012345678", "1234567890123456789", "999999999999999", "1000000000000000",
	"0.0", "-0.0", "1.5", "55.161", "0.1", "123456789012345.6", "12345678901234.5", "1.000000000000001",
	"1e5", "1E5", "1e+5", "1e-5", "-1.5e-300", "1.5e300", "1e308", "1e309", "-1e400", "1e-400", "4.9e-324", "0e0",
	"01", "-01", "00", "0.", "1.", ".5", "-", "--1", "+1", "1e", "1e+", "1e-", "1.e5", "1.5e", "-a",
	"1,", "2}", "3]", "4 ", "5.5,", "6e1 ",
}

func TestNumber_EqualsEncodingJSON(t *testing.T) {
	for _, c := range numberCases {
		checkNumber(t, []byte(c))
	}
}

// checkNumber checks Number, ParseInt, ParseFloat and Short on text,
// which starts with '-' or a digit, against encoding/json and strconv.
func checkNumber(t *testing.T, text []byte) {
	t.Helper()
	end, float, err := jsonscan.Number(text, 0)
	valid := json.Valid(bytes.TrimRight(text, " \t\r\n"))
	if got := err == nil && jsonscan.Space(text, end) == len(text); got != valid {
		t.Fatalf("Number(%q) = %d, %v (whole: %v); encoding/json.Valid says %v", text, end, err, got, valid)
	}
	bits, sfloat, next := jsonscan.Short(text, 0)
	if err != nil {
		if next != 0 {
			t.Errorf("Short(%q) reads to %d, Number refuses it: %v", text, next, err)
		}
		return
	}
	num := text[:end]
	if !json.Valid(num) {
		t.Fatalf("Number(%q) ends at %d, encoding/json refuses %q", text, end, num)
	}
	if want := bytes.ContainsAny(num, ".eE"); float != want {
		t.Errorf("Number(%q) float = %v, want %v", text, float, want)
	}
	var jn json.Number
	if jerr := json.Unmarshal(num, &jn); jerr != nil {
		t.Fatal(jerr)
	}
	var got uint64
	if !float {
		n, ok := jsonscan.ParseInt(num)
		want, werr := jn.Int64()
		if ok != (werr == nil) || ok && n != want {
			t.Errorf("ParseInt(%q) = %d, %v; encoding/json reads %d, %v", num, n, ok, want, werr)
		}
		got = uint64(n)
	} else {
		x, ok := jsonscan.ParseFloat(num)
		want, werr := strconv.ParseFloat(string(jn), 64)
		var jf float64
		jerr := json.Unmarshal(num, &jf)
		if ok != (werr == nil) || ok != (jerr == nil) || ok && (x != want || x != jf || math.Signbit(x) != math.Signbit(jf)) {
			t.Errorf("ParseFloat(%q) = %v, %v; encoding/json reads %v, %v", num, x, ok, jf, jerr)
		}
		got = math.Float64bits(x)
	}
	if next != 0 && (next != end || sfloat != float || bits != got) {
		t.Errorf("Short(%q) = %x, %v, %d; Number and Parse* read %x, %v, %d", text, bits, sfloat, next, got, float, end)
	}
}

func TestNumber_Errors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{"-", "invalid JSON at byte 1: invalid number: expected a digit"},
		{"-a", "invalid JSON at byte 1: invalid number: expected a digit"},
		{"012", "invalid JSON at byte 0: invalid number: leading zero"},
		{"-012", "invalid JSON at byte 0: invalid number: leading zero"},
		{"1.x", "invalid JSON at byte 2: invalid number: expected a digit after '.'"},
		{"1.5e+", "invalid JSON at byte 5: invalid number: expected a digit in the exponent"},
	} {
		_, _, err := jsonscan.Number([]byte(c.text), 0)
		if err == nil || err.Error() != c.msg {
			t.Errorf("Number(%q) error = %v, want %s", c.text, err, c.msg)
		}
	}
}

var valueCases = []string{
	`0`, `-1.5e3`, `true`, `false`, `null`, `"a,b}"`, `"\"}]"`, `"\\"`,
	`{}`, `[]`, `{"a":1}`, `[1,"]",{"b":[null,"\\\""]}]`, `{"a":{"b":{"c":[[["x"]]]}}}`,
	`{ "a" : [ 1 , 2 ] , "b" : "}" }`, "[\n\t1,\r\n\t{}\n]",
}

func TestSkipValue_EqualsEncodingJSON(t *testing.T) {
	for _, c := range valueCases {
		if !json.Valid([]byte(c)) {
			t.Fatalf("case %s is no JSON", c)
		}
		for _, after := range []string{"", ",", "}", "]", " ,"} {
			data := []byte(c + after)
			if got := jsonscan.SkipValue(data, 0, 64); got != len(c) {
				t.Errorf("SkipValue(%q) = %d, want %d", data, got, len(c))
			}
		}
		// Depth: the value's own brackets count.
		depth := 0
		for level, i := 0, 0; i < len(c); i++ {
			switch c[i] {
			case '"':
				i = jsonscan.StringEnd([]byte(c), i+1) - 1
			case '{', '[':
				level++
				depth = max(depth, level)
			case '}', ']':
				level--
			}
		}
		if depth > 0 {
			if got := jsonscan.SkipValue([]byte(c), 0, depth-1); got != -1 {
				t.Errorf("SkipValue(%q) with room %d = %d, want -1", c, depth-1, got)
			}
			if got := jsonscan.SkipValue([]byte(c), 0, depth); got != len(c) {
				t.Errorf("SkipValue(%q) with room %d = %d, want %d", c, depth, got, len(c))
			}
		}
	}
	for _, c := range []string{``, `,`, `}`, ` 1`, `"abc`, `{"a":"}`, `[1,2`, `{"a":[}`} {
		if got := jsonscan.SkipValue([]byte(c), 0, 64); got != -1 {
			t.Errorf("SkipValue(%q) = %d, want -1", c, got)
		}
	}
}

func TestSpace(t *testing.T) {
	data := []byte(" \t\r\n x \v")
	if got := jsonscan.Space(data, 0); got != 5 {
		t.Errorf("Space = %d, want 5", got)
	}
	if got := jsonscan.Space(data, 6); got != 7 {
		t.Errorf("Space at 6 = %d, want 7 (\\v is no JSON space)", got)
	}
	if got := jsonscan.Space(data[:4], 0); got != 4 {
		t.Errorf("Space over all = %d, want 4", got)
	}
}

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{{`abc"`, 3}, {`ab\c`, 2}, {"a\x1fb", 1}, {"aé", 1}, {"abc", 3}, {"a\x7fb", 3}} {
		if got := jsonscan.Plain([]byte(c.text), 0); got != c.want {
			t.Errorf("Plain(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, c := range stringCases {
		f.Add([]byte(c[1:]))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkString(t, append([]byte{'"'}, body...))
		if !utf8.Valid(body) {
			return
		}
		// The same text as encoding/json quotes it reads back as it was.
		q, _ := json.Marshal(string(body))
		out, next, err := jsonscan.Unquote(nil, q, 1)
		if err != nil || next != len(q) || string(out) != string(body) {
			t.Errorf("Unquote(%q) = %q, %d, %v; want %q", q, out, next, err, body)
		}
	})
}

func FuzzNumber(f *testing.F) {
	for _, c := range numberCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) == 0 || text[0] != '-' && text[0]-'0' > 9 {
			return
		}
		checkNumber(t, text)
	})
}

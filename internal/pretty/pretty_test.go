package pretty_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/value"
)

func TestFormat_Scalars(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`null`, `null`},
		{`true`, `true`},
		{`30`, `30`},
		{`-2147483648`, `-2147483648`},
		{`2147483648`, `Long('2147483648')`},
		{`9007199254740993`, `Long('9007199254740993')`},
		{`5.0`, `5.0`},
		{`2.5`, `2.5`},
		{`1e300`, `1e+300`},
		{`{"$numberDouble":"NaN"}`, `NaN`},
		{`{"$numberDouble":"-Infinity"}`, `-Infinity`},
		{`"it's"`, `'it\'s'`},
		{`"a\nb\\c"`, `'a\nb\\c'`},
		{`"\u0001"`, `'\u0001'`},
		{`"\u001b[2J\u009b31m"`, `'\u001b[2J\u009b31m'`},
		{`"héllo"`, `'héllo'`},
		{`{"$oid":"5f1d7a4b9c8e7d6f5a4b3c2d"}`, `ObjectId('5f1d7a4b9c8e7d6f5a4b3c2d')`},
		{`{"$date":1747785600000}`, `ISODate('2025-05-21T00:00:00.000Z')`},
		{`{"$date":{"$numberLong":"-1"}}`, `ISODate('1969-12-31T23:59:59.999Z')`},
		{`{"$date":{"$numberLong":"999999999999999"}}`, `new Date(999999999999999)`},
		{`{"$binary":{"base64":"AQI=","subType":"04"}}`, `Binary.createFromBase64('AQI=', 4)`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	} {
		if got := pretty.Format(value.MustParse(tc.in), nil); got != tc.want {
			t.Errorf("Format(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestFormat_Keys(t *testing.T) {
	in := `{"_id":1,"first name":"a","$set":2,"a.b":3,"x1":4,"1x":5,"":6}`
	want := `{ _id: 1, 'first name': 'a', $set: 2, 'a.b': 3, x1: 4, '1x': 5, '': 6 }`
	if got := pretty.Format(value.MustParse(in), nil); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestFormat_BreaksWhenTooWide(t *testing.T) {
	in := `{"_id":{"$oid":"5f1d7a4b9c8e7d6f5a4b3c2d"},"name":"ada lovelace","tags":["math","poetry"],"address":{"city":"London","street":"St James's Square"}}`
	want := strings.Join([]string{
		`{`,
		`  _id: ObjectId('5f1d7a4b9c8e7d6f5a4b3c2d'),`,
		`  name: 'ada lovelace',`,
		`  tags: [ 'math', 'poetry' ],`,
		`  address: { city: 'London', street: 'St James\'s Square' }`,
		`}`,
	}, "\n")
	if got := pretty.Format(value.MustParse(in), nil); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	narrow := strings.Join([]string{
		`{`,
		`    a: [`,
		`        'xxxxxxxx',`,
		`        'yyyyyyyy'`,
		`    ]`,
		`}`,
	}, "\n")
	got := pretty.Format(value.MustParse(`{"a":["xxxxxxxx","yyyyyyyy"]}`), &pretty.Options{Indent: 4, Width: 20})
	if got != narrow {
		t.Errorf("narrow: got\n%s\nwant\n%s", got, narrow)
	}
}

func TestFormat_Color(t *testing.T) {
	v := value.MustParse(`{"s":"x","n":1,"z":null}`)
	got := pretty.Format(v, &pretty.Options{Color: true})
	want := "{ s: \x1b[32m'x'\x1b[0m, n: \x1b[33m1\x1b[0m, z: \x1b[1mnull\x1b[0m }"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if plain := pretty.Format(v, nil); strings.Contains(plain, "\x1b") {
		t.Errorf("colour without Options.Color: %q", plain)
	}
	// Colour escapes do not count toward the width.
	wide := value.MustParse(`{"a":"` + strings.Repeat("x", 60) + `","b":1}`)
	if got := pretty.Format(wide, &pretty.Options{Color: true}); strings.Contains(got, "\n") {
		t.Errorf("a 72-column line broke because of colour escapes:\n%s", got)
	}
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := pretty.Write(&b, value.MustParse(`{"a":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if b.String() != "{ a: 1 }\n" {
		t.Errorf("Write = %q", b.String())
	}
}

func TestValue_NewKinds(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":{"$numberInt":"7"},"d":{"$numberDecimal":"1.50"}}`, `{ a: 7, d: Decimal128('1.50') }`},
		{`{"t":{"$timestamp":{"t":1,"i":2}},"r":{"$regularExpression":{"pattern":"^a","options":"i"}}}`, `{ t: Timestamp({ t: 1, i: 2 }), r: /^a/i }`},
		{`[{"$minKey":1},{"$maxKey":1}]`, `[ MinKey(), MaxKey() ]`},
	}
	for _, c := range cases {
		if got := string(pretty.Append(nil, value.MustParse(c.in), nil)); got != c.want {
			t.Errorf("%s = %s, want %s", c.in, got, c.want)
		}
	}
}

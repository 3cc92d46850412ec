package collation_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestCollation_Key_Order checks the order the collation keys give, case
// by case, for each field of the document.
func TestCollation_Key_Order(t *testing.T) {
	cases := []struct {
		coll string
		a, b string
		want int
	}{
		// jstests/core/collation.js: strength 2 ignores case.
		{`{"locale":"en_US","strength":2}`, "foo", "FOO", 0},
		{`{"locale":"en_US"}`, "foo", "FOO", -1},
		{`{"locale":"en_US","strength":3}`, "foo", "FOO", -1},
		// strength 1 ignores accents too; 2 does not.
		{`{"locale":"en","strength":1}`, "cafe", "Café", 0},
		{`{"locale":"en","strength":2}`, "cafe", "café", -1},
		{`{"locale":"en","strength":2}`, "café", "CAFÉ", 0},
		// caseLevel at strength 1: case counts, accents do not.
		{`{"locale":"en","strength":1,"caseLevel":true}`, "cafe", "café", 0},
		{`{"locale":"en","strength":1,"caseLevel":true}`, "cafe", "Cafe", -1},
		// numericOrdering compares digit runs as numbers.
		{`{"locale":"en","numericOrdering":true}`, "2", "10", -1},
		{`{"locale":"en"}`, "2", "10", 1},
		{`{"locale":"en","numericOrdering":true}`, "A-21", "A-123", -1},
		// alternate shifted ignores spaces and punctuation below strength 4.
		{`{"locale":"en","alternate":"shifted"}`, "a b", "ab", 0},
		{`{"locale":"en","alternate":"shifted","strength":4}`, "a b", "ab", -1},
		{`{"locale":"en","alternate":"shifted","strength":3}`, "a-b", "ab", 0},
		{`{"locale":"en","strength":1,"caseLevel":true}`, "ab", "abc", -1},
		{`{"locale":"en","strength":2,"caseLevel":true}`, "Ab", "ab", 1},
		{`{"locale":"en"}`, "a b", "ab", -1},
		// strength 5 tells apart what 4 cannot (different code points,
		// same weights): the identical level.
		{`{"locale":"en","strength":5}`, "a", "a", 0},
		// Locale order: Swedish puts ä after z, German with a.
		{`{"locale":"sv"}`, "äb", "zb", 1},
		{`{"locale":"de"}`, "äb", "zb", -1},
		// Locale order is not code point order.
		{`{"locale":"en"}`, "a", "B", -1},
		{`{"locale":"en"}`, "B", "c", -1},
	}
	for _, c := range cases {
		coll := collation.MustParse(c.coll)
		got := sign(strings.Compare(coll.Key(c.a), coll.Key(c.b)))
		if got != c.want {
			t.Errorf("%s: %q vs %q = %d, want %d", c.coll, c.a, c.b, got, c.want)
		}
	}
}

// TestCollation_Map checks that Map collates strings at every depth and
// leaves field names and other values alone.
func TestCollation_Map(t *testing.T) {
	c := collation.MustParse(`{"locale":"en","strength":2}`)
	a := value.MustParse(`{"Name":["X",{"k":"Ab"}],"n":1}`)
	b := value.MustParse(`{"Name":["x",{"k":"aB"}],"n":1}`)
	if value.Compare(c.Map(a), c.Map(b)) != 0 {
		t.Errorf("Map: %s and %s differ under strength 2", a, b)
	}
	if value.Compare(a, b) == 0 {
		t.Fatal("the binary comparison should tell them apart")
	}
	fieldCase := value.MustParse(`{"name":["X",{"k":"Ab"}],"n":1}`)
	if value.Compare(c.Map(a), c.Map(fieldCase)) == 0 {
		t.Error("Map changed a field name: Name and name compare equal")
	}
	n := value.MustParse(`[1,2.5,{"$numberDecimal":"3"}]`)
	if !value.SameCanonical(c.Map(n), n) {
		t.Errorf("Map changed a value without strings: %s", c.Map(n))
	}
	var simple *collation.Collation
	if simple.Map(a).String() != a.String() || simple.Key("Ab") != "Ab" {
		t.Error("the nil (simple) collation changed a value")
	}
	if c.Compare(value.StringValue("a"), value.LongValue(1)) <= 0 {
		t.Error("a string must still sort after a number (type order)")
	}
}

// TestCollation_Parse_Errors ports the invalid collation documents of
// jstests/core/collation.js (createCollection and createIndex with a bad
// collation) and checks the fields a message names.
func TestCollation_Parse_Errors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`"not an object"`, "must be an object"},
		{`{}`, "missing required field `locale`"},
		{`{"blah":1}`, "unknown field `blah`"},
		{`{"locale":"en","blah":1}`, "unknown field `blah`"},
		{`{"locale":"xx"}`, `"xx" is not a supported locale`},
		{`{"locale":"en","strength":99}`, "from 1 to 5, got 99"},
		{`{"locale":"en","strength":9.9}`, "from 1 to 5, got 9.9"},
		{`{"locale":"en","strength":"2"}`, "must be a number"},
		{`{"locale":"en","version":"unknownVersion"}`, "`version` is not supported"},
		{`{"locale":"en","caseLevel":1}`, "`caseLevel` must be a boolean"},
		{`{"locale":"en","alternate":"blah"}`, "`alternate` must be one of"},
		{`{"locale":"en","caseFirst":"upper"}`, `caseFirst "upper" is not supported`},
		{`{"locale":"en","maxVariable":"space"}`, `maxVariable "space" is not supported`},
		{`{"locale":"simple","strength":2}`, "locale `simple` takes no other field"},
		{`{"locale":5}`, "`locale` must be a string"},
		{`{"locale":"de@collation=phonebook"}`, "collation variant"},
		{`{"locale":"en","stregth":2}`, "did you mean `strength`"},
		{`{"locale":"en","alternate":{"x":"` + strings.Repeat("y", 5000) + `"}}`, "must be one of \"non-ignorable\", \"shifted\", got object"},
		{`{"locale":"` + strings.Repeat("q", 5000) + `"}`, `"` + strings.Repeat("q", 64) + `…" is not a supported locale`},
	}
	for _, c := range cases {
		_, err := collation.Parse(value.MustParse(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", c.doc, err, c.want)
			continue
		}
		if len(err.Error()) > 300 {
			t.Errorf("Parse(%.40s…): a message of %d bytes echoes the input", c.doc, len(err.Error()))
		}
		if errs.KindOf(err) != errs.Invalid || errs.HintOf(err) == "" {
			t.Errorf("Parse(%s): kind %v, hint %q: want Invalid with a hint", c.doc, errs.KindOf(err), errs.HintOf(err))
		}
	}
}

// TestCollation_Parse_Defaults checks the defaults Parse fills in, as
// jstests/core/collation.js reads them back from an index's spec.
func TestCollation_Parse_Defaults(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"locale":"fr_CA"}`, `{"locale":"fr_CA","caseLevel":false,"caseFirst":"off","strength":3,"numericOrdering":false,"alternate":"non-ignorable","maxVariable":"punct","normalization":false,"backwards":true}`},
		{`{"locale":"en_US"}`, `{"locale":"en_US","caseLevel":false,"caseFirst":"off","strength":3,"numericOrdering":false,"alternate":"non-ignorable","maxVariable":"punct","normalization":false,"backwards":false}`},
		{`{"locale":"en","strength":2.0,"caseFirst":"off"}`, `{"locale":"en","caseLevel":false,"caseFirst":"off","strength":2,"numericOrdering":false,"alternate":"non-ignorable","maxVariable":"punct","normalization":false,"backwards":false}`},
	}
	for _, c := range cases {
		got := collation.MustParse(c.doc).String()
		if got != c.want {
			t.Errorf("Parse(%s) = %s\nwant %s", c.doc, got, c.want)
		}
	}
	for _, doc := range []string{`{"locale":"simple"}`, `null`} {
		if c, err := collation.Parse(value.MustParse(doc)); c != nil || err != nil {
			t.Errorf("Parse(%s) = %v, %v; want the simple collation (nil)", doc, c, err)
		}
	}
	for _, loc := range append(collation.Locales, "en_GB", "de_CH") {
		if _, err := collation.Parse(value.MustParse(`{"locale":"` + loc + `"}`)); err != nil {
			t.Errorf("locale %s: %v", loc, err)
		}
	}
	a, b := collation.MustParse(`{"locale":"en","strength":2}`), collation.MustParse(`{"strength":2,"locale":"en","caseLevel":false}`)
	if !collation.Equal(a, b) || collation.Equal(a, nil) || !collation.Equal(nil, nil) || collation.Equal(a, collation.MustParse(`{"locale":"en"}`)) {
		t.Error("Equal must compare the fields after defaults, nil being simple")
	}
}

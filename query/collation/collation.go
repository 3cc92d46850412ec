package collation

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/omgdb/omgdb/query/value"
)

// Collation is a validated collation other than "simple". The nil
// *Collation is the simple (binary) collation: its methods accept a nil
// receiver and leave strings as they are.
type Collation struct {
	spec Spec
	tag  language.Tag
	pool sync.Pool // of *worker
}

// Spec holds the fields of a collation document, with MongoDB's defaults
// filled in.
type Spec struct {
	Locale          string // as given: "en", "en_US", "fr_CA"
	CaseLevel       bool
	CaseFirst       string // "off" (only)
	Strength        int    // 1 to 5, default 3
	NumericOrdering bool
	Alternate       string // "non-ignorable" or "shifted"
	MaxVariable     string // "punct" (only)
	Normalization   bool
	Backwards       bool // default true for fr_CA, as in ICU
}

// worker is one goroutine's collator and key buffer.
type worker struct {
	c   *collate.Collator
	buf collate.Buffer
}

func newCollation(s Spec, tag language.Tag) *Collation {
	c := &Collation{spec: s, tag: tag}
	c.pool.New = func() any { return &worker{c: collate.New(c.tag)} }
	return c
}

// Spec returns the collation's fields. A nil c has none: use
// SimpleValue for its document.
func (c *Collation) Spec() Spec { return c.spec }

// Value returns the collation document with every field, as MongoDB
// reports it ({"locale":"simple"} for nil).
func (c *Collation) Value() value.Value {
	if c == nil {
		return SimpleValue()
	}
	s := c.spec
	return value.ObjectValue([]value.Field{
		{Key: "locale", Value: value.StringValue(s.Locale)},
		{Key: "caseLevel", Value: value.BoolValue(s.CaseLevel)},
		{Key: "caseFirst", Value: value.StringValue(s.CaseFirst)},
		{Key: "strength", Value: value.LongValue(int64(s.Strength))},
		{Key: "numericOrdering", Value: value.BoolValue(s.NumericOrdering)},
		{Key: "alternate", Value: value.StringValue(s.Alternate)},
		{Key: "maxVariable", Value: value.StringValue(s.MaxVariable)},
		{Key: "normalization", Value: value.BoolValue(s.Normalization)},
		{Key: "backwards", Value: value.BoolValue(s.Backwards)},
	})
}

// SimpleValue is the document of the simple collation.
func SimpleValue() value.Value {
	return value.ObjectValue([]value.Field{{Key: "locale", Value: value.StringValue("simple")}})
}

// String returns the collation document as canonical JSON.
func (c *Collation) String() string { return c.Value().String() }

// Equal reports whether a and b compare strings the same way: the same
// fields after defaults (nil is simple).
func Equal(a, b *Collation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.spec == b.spec
}

// Key returns the collation key of s: for any strings a and b, the byte
// order of Key(a) and Key(b) is the collation's order of a and b, and the
// keys are equal exactly when the collation finds the strings equal. A
// nil c returns s.
func (c *Collation) Key(s string) string {
	if c == nil {
		return s
	}
	w := c.pool.Get().(*worker)
	k := w.c.KeyFromString(&w.buf, s)
	out := make([]byte, 0, len(k)+2+len(s))
	out = append(out, k...)
	if c.spec.CaseLevel && c.spec.Strength < 3 {
		out = appendCaseLevel(out, s)
	}
	if c.spec.Strength == 5 {
		// Identical strength: ties broken by the code points of the NFD
		// form, as ICU's identical level does.
		out = append(out, 0, 0)
		out = norm.NFD.AppendString(out, s)
	}
	w.buf.Reset()
	c.pool.Put(w)
	return string(out)
}

// appendCaseLevel appends ICU's case level, which x/text does not have
// on its own (its caseLevel option keeps every tertiary difference, so
// accents would count at strength 1): after a level separator that sorts
// below every weight, one byte per letter, lowercase (and uncased) before
// uppercase. At strength 3 and above the tertiary level already orders
// case, and the case level changes nothing x/text can tell.
func appendCaseLevel(out []byte, s string) []byte {
	out = append(out, 0, 0)
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			out = append(out, 2)
		case unicode.IsLetter(r):
			out = append(out, 1)
		}
	}
	return out
}

// Map returns v with every string in it, at any depth of arrays and
// embedded documents, replaced by its collation key; other values,
// field names included, are unchanged. A nil c, or a v without strings,
// returns v itself.
func (c *Collation) Map(v value.Value) value.Value {
	if c == nil {
		return v
	}
	switch v.Kind() {
	case value.String:
		return value.StringValue(c.Key(v.Str()))
	case value.Array:
		if !HasString(v) {
			return v
		}
		out := make([]value.Value, len(v.Array()))
		for i, e := range v.Array() {
			out[i] = c.Map(e)
		}
		return value.ArrayValue(out)
	case value.Object:
		if !HasString(v) {
			return v
		}
		out := make([]value.Field, len(v.Fields()))
		for i, f := range v.Fields() {
			out[i] = value.Field{Key: f.Key, Value: c.Map(f.Value)}
		}
		return value.ObjectValue(out)
	}
	return v
}

// HasString reports whether v is a string or holds one at any depth:
// whether a collation can change how it compares.
func HasString(v value.Value) bool {
	switch v.Kind() {
	case value.String:
		return true
	case value.Array:
		for _, e := range v.Array() {
			if HasString(e) {
				return true
			}
		}
	case value.Object:
		for _, f := range v.Fields() {
			if HasString(f.Value) {
				return true
			}
		}
	}
	return false
}

// Compare compares a and b as value.Compare does, with strings compared
// by the collation.
func (c *Collation) Compare(a, b value.Value) int {
	if c == nil {
		return value.Compare(a, b)
	}
	return value.Compare(c.Map(a), c.Map(b))
}

// bcp47 turns a MongoDB (ICU) locale id into a BCP 47 tag: "en_US" is
// "en-US", "en_US_POSIX" "en-US-u-va-posix".
func bcp47(locale string) string {
	if strings.EqualFold(locale, "en_US_POSIX") {
		return "en-US-u-va-posix"
	}
	return strings.ReplaceAll(locale, "_", "-")
}

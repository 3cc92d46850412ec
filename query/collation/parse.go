package collation

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// fields are the fields of MongoDB's collation document, in its order.
var fields = []string{"locale", "caseLevel", "caseFirst", "strength", "numericOrdering",
	"alternate", "maxVariable", "normalization", "backwards", "version"}

// Locales lists the locale ids Parse accepts, as MongoDB spells them. A
// locale with another region of one of these languages ("en_GB",
// "de_CH") is accepted too and collates as its language does.
var Locales = []string{
	"af", "ar", "as", "az", "be", "bg", "bn", "bs", "bs_Cyrl", "ca", "cs", "cy", "da", "de", "de_AT",
	"dz", "ee", "el", "en", "en_US", "en_US_POSIX", "eo", "es", "et", "fa", "fa_AF", "fi", "fil",
	"fo", "fr", "fr_CA", "gu", "ha", "haw", "he", "hi", "hr", "hu", "hy", "id", "ig", "is", "it",
	"ja", "kk", "kl", "km", "kn", "ko", "kok", "ln", "lt", "lv", "mk", "ml", "mr", "ms", "mt",
	"my", "nb", "nl", "nn", "om", "or", "pa", "pl", "ps", "pt", "ro", "ru", "se", "si", "sk",
	"sl", "sq", "sr", "sr_Latn", "sv", "sw", "ta", "te", "th", "to", "tr", "uk", "ur", "vi",
	"wae", "yo", "zh", "zh_Hant", "zu",
}

// languages are the base languages of Locales.
var languages = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range Locales {
		base, _, _ := strings.Cut(l, "_")
		m[base] = true
	}
	return m
}()

func invalid(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "invalid collation: "+format, args...)
}

// Parse validates a collation document and returns its Collation: nil,
// with no error, for {"locale":"simple"}. A missing or null v is no
// collation (nil) too. Errors are *errs.Error of kind Invalid that name
// the field at fault and carry a hint.
func Parse(v value.Value) (*Collation, error) {
	switch v.Kind() {
	case value.Missing, value.Null:
		return nil, nil
	case value.Object:
	default:
		return nil, invalid("the collation must be an object such as {\"locale\":\"en\",\"strength\":2}, got %s", v.TypeName()).
			WithHint(`write --collation '{"locale":"en","strength":2}' (strength 2 ignores case, 1 also accents)`)
	}
	for _, f := range v.Fields() {
		if !slices.Contains(fields, f.Key) {
			return nil, invalid("unknown field `%s`%s", clip(f.Key), errs.DidYouMean(f.Key, fields)).
				WithHint("the fields are %s", strings.Join(fields[:9], ", "))
		}
	}
	loc := v.Get("locale")
	if loc.Kind() != value.String {
		if loc.IsMissing() {
			return nil, invalid("missing required field `locale`").WithHint(`give a locale, such as {"locale":"en"}, or {"locale":"simple"} for binary comparison`)
		}
		return nil, invalid("field `locale` must be a string, got %s", loc.TypeName()).WithHint(`write a locale id such as "en" or "fr_CA"`)
	}
	if v.Has("version") {
		return nil, invalid("field `version` is not supported: omgdb's collator is golang.org/x/text/collate, not a versioned ICU").
			WithHint("leave `version` out")
	}
	if loc.Str() == "simple" {
		if len(v.Fields()) > 1 {
			return nil, invalid("locale `simple` takes no other field, got `%s`", otherField(v)).
				WithHint(`write {"locale":"simple"} alone`)
		}
		return nil, nil
	}
	s, err := parseSpec(v)
	if err != nil {
		return nil, err
	}
	tag, err := localeTag(s)
	if err != nil {
		return nil, err
	}
	return newCollation(s, tag), nil
}

// MustParse is Parse of JSON text for tests and constants; it panics on
// an error.
func MustParse(js string) *Collation {
	c, err := Parse(value.MustParse(js))
	if err != nil {
		panic(err)
	}
	return c
}

func otherField(v value.Value) string {
	for _, f := range v.Fields() {
		if f.Key != "locale" {
			return f.Key
		}
	}
	return ""
}

// parseSpec reads the fields other than locale, with MongoDB's defaults.
func parseSpec(v value.Value) (Spec, error) {
	s := Spec{Locale: v.Get("locale").Str(), CaseFirst: "off", Strength: 3, Alternate: "non-ignorable",
		MaxVariable: "punct", Backwards: v.Get("locale").Str() == "fr_CA"}
	var err error
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"caseLevel", &s.CaseLevel}, {"numericOrdering", &s.NumericOrdering}, {"normalization", &s.Normalization}, {"backwards", &s.Backwards}} {
		if *b.dst, err = boolField(v, b.name, *b.dst); err != nil {
			return s, err
		}
	}
	if s.Strength, err = strength(v.Get("strength")); err != nil {
		return s, err
	}
	if s.Alternate, err = choice(v, "alternate", s.Alternate, []string{"non-ignorable", "shifted"}, nil); err != nil {
		return s, err
	}
	if s.CaseFirst, err = choice(v, "caseFirst", s.CaseFirst, []string{"upper", "lower", "off"}, []string{"upper", "lower"}); err != nil {
		return s, err
	}
	if s.MaxVariable, err = choice(v, "maxVariable", s.MaxVariable, []string{"punct", "space"}, []string{"space"}); err != nil {
		return s, err
	}
	return s, nil
}

func boolField(v value.Value, name string, def bool) (bool, error) {
	f := v.Get(name)
	switch f.Kind() {
	case value.Missing:
		return def, nil
	case value.Bool:
		return f.Bool(), nil
	}
	return false, invalid("field `%s` must be a boolean, got %s", name, f.TypeName()).WithHint(`write "%s":true or "%s":false`, name, name)
}

func strength(f value.Value) (int, error) {
	if f.IsMissing() {
		return 3, nil
	}
	if !f.IsNumber() {
		return 0, invalid("field `strength` must be a number from 1 to 5, got %s", f.TypeName()).
			WithHint("1 compares base letters only, 2 adds accents, 3 (the default) case, 4 punctuation with alternate shifted, 5 code points")
	}
	for n := int64(1); n <= 5; n++ {
		if value.IsInteger(f, n) {
			return int(n), nil
		}
	}
	return 0, invalid("field `strength` must be an integer from 1 to 5, got %s", show(f)).
		WithHint("1 compares base letters only, 2 adds accents, 3 (the default) case, 4 punctuation with alternate shifted, 5 code points")
}

// choice reads a string field that takes one of valid; the values in
// unsupported are MongoDB's but not omgdb's.
func choice(v value.Value, name, def string, valid, unsupported []string) (string, error) {
	f := v.Get(name)
	if f.IsMissing() {
		return def, nil
	}
	if f.Kind() != value.String || !slices.Contains(valid, f.Str()) {
		return "", invalid("field `%s` must be one of %s, got %s", name, quoteAll(valid), show(f)).
			WithHint(`write "%s":"%s" or leave it out`, name, def)
	}
	if slices.Contains(unsupported, f.Str()) {
		return "", invalid("%s %q is not supported: golang.org/x/text/collate, omgdb's collator, does not offer it", name, f.Str()).
			WithHint(`leave %s out (it defaults to "%s"); see omgdb docs differences`, name, def)
	}
	return f.Str(), nil
}

// maxShown bounds the bytes of a value an error message repeats: the
// document may come from an agent, and is not echoed whole.
const maxShown = 64

// clip shortens s to maxShown bytes (on a rune boundary), marking the cut.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// show is a value as an error message repeats it: a number or a (clipped)
// string as written, another value by its type.
func show(v value.Value) string {
	switch {
	case v.Kind() == value.String:
		return `"` + clip(v.Str()) + `"`
	case v.IsNumber():
		return clip(v.String())
	}
	return v.TypeName()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}

// localeTag checks the locale and returns the x/text tag that collates
// as the spec says.
func localeTag(s Spec) (language.Tag, error) {
	bad := func(why string) error {
		return invalid("field `locale` is invalid: %q %s", clip(s.Locale), why).
			WithHint("the supported locales are %s, or simple for binary comparison", strings.Join(Locales, ", "))
	}
	if strings.Contains(s.Locale, "@") {
		return language.Tag{}, bad("has a collation variant (@…), which omgdb does not support")
	}
	tag, err := language.Parse(bcp47(s.Locale))
	if err != nil {
		return language.Tag{}, bad("is not a supported locale")
	}
	base, _ := tag.Base()
	if !languages[base.String()] {
		return language.Tag{}, bad("is not a supported locale")
	}
	levels := [...]string{"", "level1", "level2", "level3", "level4", "identic"}
	set := func(key, val string) {
		if t, err := tag.SetTypeForKey(key, val); err == nil {
			tag = t
		}
	}
	set("ks", levels[s.Strength])
	set("kc", "false") // the case level is Key's own (caseLevelKey)
	set("kn", boolText(s.NumericOrdering))
	set("kb", boolText(s.Backwards))
	if s.Alternate == "shifted" {
		set("ka", "shifted")
	}
	return tag, nil
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

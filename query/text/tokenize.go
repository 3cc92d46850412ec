package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Options choose how tokens are made.
type Options struct {
	KeepStopWords      bool // keep stop words (the phrase and matcher paths never need it)
	CaseSensitive      bool // tokens keep their case (stop words are still found lower-cased)
	DiacriticSensitive bool // tokens keep their diacritics
}

// delimiters are the Unicode properties whose code points end a token.
var delimiters = []*unicode.RangeTable{
	unicode.White_Space, unicode.Dash, unicode.Hyphen, unicode.Quotation_Mark,
	unicode.Terminal_Punctuation, unicode.Pattern_Syntax, unicode.Sentence_Terminal,
}

// isDelimiter reports whether r ends a token in language l.
func (l *Language) isDelimiter(r rune) bool {
	if r == '\'' && l.Name == "english" {
		return false
	}
	return unicode.IsOneOf(delimiters, r)
}

// Tokens returns the tokens of s in language l, in order, under opts.
func (l *Language) Tokens(s string, opts Options) []string {
	var out []string
	for _, w := range l.split(s) {
		if t, ok := l.token(w, opts); ok {
			out = append(out, t)
		}
	}
	return out
}

// split cuts s at delimiters.
func (l *Language) split(s string) []string {
	return strings.FieldsFunc(s, l.isDelimiter)
}

// token turns one word into its token, or reports false for a stop word.
func (l *Language) token(w string, opts Options) (string, bool) {
	lower := l.fold(w)
	if !opts.KeepStopWords && l.IsStopWord(lower) {
		return "", false
	}
	if opts.CaseSensitive {
		lower = w
	}
	t := l.Stem(lower)
	if !opts.DiacriticSensitive {
		t = StripDiacritics(t)
	}
	return t, true
}

// fold lower-cases s, with Turkish rules in Turkish.
func (l *Language) fold(s string) string {
	if l.Name == "turkish" {
		return strings.ToLowerSpecial(unicode.TurkishCase, s)
	}
	return strings.ToLower(s)
}

// StripDiacritics removes the diacritics of s: it decomposes s, drops the
// code points with Unicode's Diacritic property and recomposes the rest.
func StripDiacritics(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.Diacritic, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// normalize prepares text for a phrase comparison: lower-cased unless
// case-sensitive, without diacritics unless diacritic-sensitive.
func (l *Language) normalize(s string, caseSensitive, diacriticSensitive bool) string {
	if !caseSensitive {
		s = l.fold(s)
	}
	if !diacriticSensitive {
		s = StripDiacritics(s)
	}
	return s
}

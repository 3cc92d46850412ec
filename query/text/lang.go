package text

import (
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"

	"github.com/omgdb/omgdb/query/errs"
)

// Language is a language of the text index: its name, stemmer and stop
// words.
type Language struct {
	Name  string // MongoDB's name, such as "english"; "none" for no language
	stem  func(*snowball.Env) bool
	stops []byte // Snowball's list, parsed on first use
	words analysis.TokenMap
}

var languages = []*Language{
	{Name: "danish", stem: danish.Stem, stops: da.DanishStopWords},
	{Name: "dutch", stem: dutch.Stem, stops: nl.DutchStopWords},
	{Name: "english", stem: english.Stem, stops: en.EnglishStopWords},
	{Name: "finnish", stem: finnish.Stem, stops: fi.FinnishStopWords},
	{Name: "french", stem: french.Stem, stops: fr.FrenchStopWords},
	{Name: "german", stem: german.Stem, stops: de.GermanStopWords},
	{Name: "hungarian", stem: hungarian.Stem, stops: hu.HungarianStopWords},
	{Name: "italian", stem: italian.Stem, stops: it.ItalianStopWords},
	{Name: "norwegian", stem: norwegian.Stem, stops: no.NorwegianStopWords},
	{Name: "portuguese", stem: portuguese.Stem, stops: pt.PortugueseStopWords},
	{Name: "romanian", stem: romanian.Stem},
	{Name: "russian", stem: russian.Stem, stops: ru.RussianStopWords},
	{Name: "spanish", stem: spanish.Stem, stops: es.SpanishStopWords},
	{Name: "swedish", stem: swedish.Stem, stops: sv.SwedishStopWords},
	{Name: "turkish", stem: turkish.Stem, stops: tr.TurkishStopWords},
	{Name: "none"},
}

// codes are the ISO 639-1 codes MongoDB accepts besides the names.
var codes = map[string]string{
	"da": "danish", "nl": "dutch", "en": "english", "fi": "finnish", "fr": "french",
	"de": "german", "hu": "hungarian", "it": "italian", "nb": "norwegian", "pt": "portuguese",
	"ro": "romanian", "ru": "russian", "es": "spanish", "sv": "swedish", "tr": "turkish",
}

// loadStops parses the stop word lists, on first use rather than at
// package initialisation, which runs on every command.
var loadStops = sync.OnceFunc(func() {
	for _, l := range languages {
		l.words = analysis.NewTokenMap()
		if l.stops != nil {
			if err := l.words.LoadBytes(l.stops); err != nil {
				panic("text: stop words of " + l.Name + ": " + err.Error())
			}
		}
	}
})

// LookupLanguage returns the language with the given name or two-letter
// code, case-insensitively, or an error that lists the languages.
func LookupLanguage(name string) (*Language, error) {
	n := strings.ToLower(name)
	if full, ok := codes[n]; ok {
		n = full
	}
	for _, l := range languages {
		if l.Name == n {
			return l, nil
		}
	}
	return nil, errs.Errorf(errs.Invalid, "unsupported language: %q for text index version 3", name).
		WithHint("use one of %s, or \"none\"", strings.Join(LanguageNames(), ", "))
}

// LanguageNames returns the names of the languages, sorted.
func LanguageNames() []string {
	var names []string
	for _, l := range languages {
		if l.Name != "none" {
			names = append(names, l.Name)
		}
	}
	sort.Strings(names)
	return names
}

// IsStopWord reports whether the lower-cased word is a stop word.
func (l *Language) IsStopWord(w string) bool {
	loadStops()
	_, ok := l.words[w]
	return ok
}

// Stem returns the word's stem ("none": the word).
func (l *Language) Stem(w string) string {
	if l.stem == nil {
		return w
	}
	env := snowball.NewEnv(w)
	l.stem(env)
	return env.Current()
}

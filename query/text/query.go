package text

import (
	"sort"
	"strings"
)

// Query is a parsed $text search: what the index is searched for and
// what each document found must also satisfy.
type Query struct {
	Search             string
	Language           *Language
	CaseSensitive      bool
	DiacriticSensitive bool
	// Terms are the distinct positive terms, lower-cased and without
	// diacritics, as the index holds them, sorted: a document matches only
	// if it has one of them, and its score is the sum of its scores for
	// them. Empty Terms match nothing.
	Terms []string
	// Positive and Negated are the positive and negated terms in the
	// form the documents' tokens are compared with: Terms' form unless the
	// search is case- or diacritic-sensitive.
	Positive, Negated map[string]bool
	// Phrases must all appear in one string of the document; none of
	// NegatedPhrases may appear in any.
	Phrases, NegatedPhrases []string
}

// ParseQuery reads a $text search string in language l: words are
// OR'ed, "quoted phrases" AND'ed, and a '-' right after a space (or at
// the start) negates the word or phrase it precedes, up to the next
// space. The words of a phrase are positive terms too.
func ParseQuery(search string, l *Language, caseSensitive, diacriticSensitive bool) *Query {
	q := &Query{Search: search, Language: l, CaseSensitive: caseSensitive, DiacriticSensitive: diacriticSensitive}
	var pos, neg strings.Builder
	inNeg, inPhrase, white := false, false, true
	quote := 0
	for i := 0; i < len(search); {
		c := search[i]
		switch {
		case isSpace(c):
			white = true
			i++
			continue
		case c == '-':
			if !inPhrase && white {
				inNeg = true
			}
		case c == '"':
			if inPhrase {
				p := search[quote+1 : i]
				if inNeg {
					q.NegatedPhrases = append(q.NegatedPhrases, p)
				} else {
					q.Phrases = append(q.Phrases, p)
				}
				inPhrase = false
			} else {
				inPhrase = true
				if inNeg && white {
					inNeg = false
				}
				quote = i
			}
		default:
			j := i
			for j < len(search) && !isSpace(search[j]) && search[j] != '-' && search[j] != '"' {
				j++
			}
			word := search[i:j]
			if !(inPhrase && inNeg) {
				if inNeg && white {
					inNeg = false
				}
				b := &pos
				if inNeg {
					b = &neg
				}
				b.WriteString(word)
				b.WriteByte(' ')
			}
			white = false
			i = j
			continue
		}
		white = false
		i++
	}
	q.Positive, q.Terms = q.addTerms(pos.String(), true)
	q.Negated, _ = q.addTerms(neg.String(), false)
	return q
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// addTerms tokenizes a sentence of the query's words; it returns the
// terms in matching form and, for positive words, the index terms.
func (q *Query) addTerms(sentence string, positive bool) (map[string]bool, []string) {
	set := map[string]bool{}
	var bounds []string
	for _, t := range q.Language.Tokens(sentence, Options{}) {
		if positive && !set[t] {
			bounds = append(bounds, t)
		}
		set[t] = true
	}
	sort.Strings(bounds)
	if q.CaseSensitive || q.DiacriticSensitive {
		set = map[string]bool{}
		for _, t := range q.Language.Tokens(sentence, q.options()) {
			set[t] = true
		}
	}
	return set, bounds
}

func (q *Query) options() Options {
	return Options{CaseSensitive: q.CaseSensitive, DiacriticSensitive: q.DiacriticSensitive}
}

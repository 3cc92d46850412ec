package text

import (
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Match reports whether doc, read through index spec s, satisfies q, and
// returns its textScore. A document matches when it has one of q.Terms
// (in q's case and diacritic sensitivity), none of the negated terms,
// every phrase and none of the negated phrases. The error is that of a
// document whose language override is not a supported language.
func (s *Spec) Match(q *Query, doc value.Value) (ok bool, score float64, err error) {
	scores, err := s.Scores(doc)
	if err != nil {
		return false, 0, err
	}
	found := false
	for _, t := range q.Terms {
		if v, has := scores[t]; has {
			found = true
			score += v
		}
	}
	if !found {
		return false, 0, nil
	}
	texts, err := s.texts(doc)
	if err != nil {
		return false, 0, err
	}
	sensitive := q.CaseSensitive || q.DiacriticSensitive
	if sensitive && !anyToken(texts, q.Positive, q.options()) {
		return false, 0, nil
	}
	if len(q.Negated) > 0 && anyToken(texts, q.Negated, q.options()) {
		return false, 0, nil
	}
	for _, p := range q.Phrases {
		if !anyPhrase(texts, p, q) {
			return false, 0, nil
		}
	}
	for _, p := range q.NegatedPhrases {
		if anyPhrase(texts, p, q) {
			return false, 0, nil
		}
	}
	return true, score, nil
}

func anyToken(texts []textValue, set map[string]bool, opts Options) bool {
	for _, t := range texts {
		for _, tok := range t.lang.Tokens(t.s, opts) {
			if set[tok] {
				return true
			}
		}
	}
	return false
}

// anyPhrase reports whether one of the strings contains phrase, compared
// in the query's case and diacritic sensitivity.
func anyPhrase(texts []textValue, phrase string, q *Query) bool {
	for _, t := range texts {
		hay := t.lang.normalize(t.s, q.CaseSensitive, q.DiacriticSensitive)
		if strings.Contains(hay, q.Language.normalize(phrase, q.CaseSensitive, q.DiacriticSensitive)) {
			return true
		}
	}
	return false
}

// Terms returns the distinct terms the index holds for doc, sorted.
func (s *Spec) Terms(doc value.Value) ([]string, error) {
	scores, err := s.Scores(doc)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(scores))
	for t := range scores {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}

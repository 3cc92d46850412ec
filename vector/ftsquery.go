package vector

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

// BM25 parameters (Robertson/Lucene values, also bleve's).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxExpansion bounds how many dictionary terms one prefix, wildcard,
// regexp or fuzzy term may expand to.
const maxExpansion = 1024

// matches are the documents a query node matches: key of _id -> score.
type matches map[string]float64

// ftsSearcher evaluates a parsed query over one search index.
type ftsSearcher struct {
	fi    *ftsIndex
	t     store.TextIndex
	st    []store.FieldStats
	terms map[string]map[string]bool // field -> terms that matched, for highlighting
	ctx   context.Context
}

// parseSearch parses a query in bleve's query-string syntax (ftsparse.go).
func parseSearch(text string) (searchNode, error) {
	q, err := parseQueryString(text)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "search query %q: %v", text, err).
			WithHint(`use bleve's query-string syntax: words, "a phrase", +required, -excluded, field:word, prefix*, fuzzy~1, word^2`)
	}
	return q, nil
}

func (s *ftsSearcher) eval(q searchNode) (matches, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	switch q := q.(type) {
	case *boolNode:
		return s.boolean(q)
	case *disjunctionNode:
		return s.disjunction(q.clauses, 0, q.boost)
	case *matchNode:
		return s.match(q)
	case *phraseNode:
		return s.phrase(q.field, q.text, q.boost)
	case *termNode:
		return s.expand(q.field, q.boost, func(f string) ([]string, error) { return []string{q.term}, nil })
	case *wildcardNode:
		return s.pattern(q.field, wildcardRegexp(strings.ToLower(q.pattern)), q.boost)
	case *regexpNode:
		return s.pattern(q.field, q.pattern, q.boost)
	case *fuzzyNode:
		return s.fuzzy(q.field, strings.ToLower(q.term), q.fuzziness, 0, q.boost)
	case *noneNode:
		return matches{}, nil
	case *rangeNode:
		kind := "numeric"
		if q.date {
			kind = "date"
		}
		return nil, errs.Errorf(errs.Invalid, "search queries cannot use a %s range here", kind).
			WithHint("numeric and date ranges belong in --filter, e.g. --filter '{\"year\":2020}'")
	}
	panic(fmt.Sprintf("vector: search query node %T", q))
}

// boolean evaluates a whole query: the required clauses (their scores
// summed, plus those of the optional ones they match), else the optional
// ones (any may match), else every document; less the excluded ones.
func (s *ftsSearcher) boolean(q *boolNode) (matches, error) {
	var out matches
	var err error
	switch {
	case len(q.must) > 0:
		if out, err = s.conjunction(q.must, 1); err != nil {
			return nil, err
		}
		if len(q.should) > 0 {
			should, err := s.disjunction(q.should, 0, 1)
			if err != nil {
				return nil, err
			}
			for k := range out {
				out[k] += should[k]
			}
		}
	case len(q.should) > 0:
		if out, err = s.disjunction(q.should, 0, 1); err != nil {
			return nil, err
		}
	default:
		if out, err = s.all(); err != nil {
			return nil, err
		}
	}
	if len(q.mustNot) > 0 {
		not, err := s.disjunction(q.mustNot, 0, 1)
		if err != nil {
			return nil, err
		}
		for k := range not {
			delete(out, k)
		}
	}
	return out, nil
}

// conjunction keeps the documents every clause matches, summing scores.
func (s *ftsSearcher) conjunction(qs []searchNode, b float64) (matches, error) {
	var out matches
	for _, q := range qs {
		m, err := s.eval(q)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = m
			continue
		}
		for k, v := range out {
			if w, ok := m[k]; ok {
				out[k] = v + w
			} else {
				delete(out, k)
			}
		}
	}
	if out == nil {
		out = matches{}
	}
	for k := range out {
		out[k] *= b
	}
	return out, nil
}

// disjunction keeps the documents at least min (and at least one) clauses
// match, scoring the sum times the fraction of clauses matched (bleve's
// coordination factor).
func (s *ftsSearcher) disjunction(qs []searchNode, min int, b float64) (matches, error) {
	out, count := matches{}, map[string]int{}
	for _, q := range qs {
		m, err := s.eval(q)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] += v
			count[k]++
		}
	}
	for k, n := range count {
		if n < max(min, 1) {
			delete(out, k)
			continue
		}
		out[k] *= b * float64(n) / float64(len(qs))
	}
	return out, nil
}

// match analyzes text and searches its terms (fuzzily when asked): any of
// them, or all of them with the AND operator.
func (s *ftsSearcher) match(q *matchNode) (matches, error) {
	field, err := s.field(q.field)
	if err != nil {
		return nil, err
	}
	var parts []searchNode
	// Like bleve, a word repeated in the query counts once per occurrence.
	for _, tok := range s.fi.an.Analyze([]byte(q.text)) {
		t := string(tok.Term)
		if q.fuzziness > 0 {
			parts = append(parts, &fuzzyNode{term: t, fuzziness: q.fuzziness, field: field, boost: 1})
		} else {
			parts = append(parts, &termNode{term: t, field: field, boost: 1})
		}
	}
	switch {
	case len(parts) == 0:
		return matches{}, nil
	case len(parts) == 1:
		m, err := s.eval(parts[0])
		for k := range m {
			m[k] *= q.boost
		}
		return m, err
	case q.and:
		return s.conjunction(parts, q.boost)
	}
	return s.disjunction(parts, 1, q.boost)
}

// field resolves a query's field: the only field, or _all, when empty.
func (s *ftsSearcher) field(f string) (string, error) {
	if f == "" {
		return s.fi.fields[len(s.fi.fields)-1], nil
	}
	for _, g := range s.fi.fields {
		if g == f {
			return f, nil
		}
	}
	return "", errs.Errorf(errs.Invalid, "field %q is not in the search index%s", f, errs.DidYouMean(f, s.fi.spec.Fields)).
		WithHint("the index covers %s; create another with `omgdb create-search-index` for other fields", strings.Join(s.fi.spec.Fields, ", "))
}

// expand scores the union of the terms terms(field) returns, each as BM25,
// summing over terms.
func (s *ftsSearcher) expand(field string, b float64, terms func(string) ([]string, error)) (matches, error) {
	f, err := s.field(field)
	if err != nil {
		return nil, err
	}
	ts, err := terms(f)
	if err != nil {
		return nil, err
	}
	out := matches{}
	for _, t := range ts {
		if err := s.term(f, t, b, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// term adds the BM25 score of one term to the documents containing it.
func (s *ftsSearcher) term(field, term string, b float64, out matches) error {
	fidx := s.fieldIndex(field)
	df := s.t.DocFreq(field, term)
	if df == 0 {
		return nil
	}
	s.noteTerm(field, term)
	n := float64(s.st[fidx].Docs)
	// bleve's BM25: idf as Lucene's, the square root of the term frequency,
	// k1 in the numerator only, an average length of distinct terms per
	// document rounded up, and the idf counted twice (once through the
	// query weight).
	avg := math.Ceil(float64(s.st[fidx].Terms) / math.Max(n, 1))
	idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
	for c := s.t.Postings(field, term); c.Next(); {
		key := c.Key()
		length, freq := c.Freq()
		tf, dl := math.Sqrt(float64(freq)), float64(length)
		out[string(key)] += b * idf * idf * tf * bm25K1 / (tf + bm25K1*(1-bm25B+bm25B*dl/math.Max(avg, 1)))
	}
	return nil
}

func (s *ftsSearcher) noteTerm(field, term string) {
	if s.terms[field] == nil {
		s.terms[field] = map[string]bool{}
	}
	s.terms[field][term] = true
}

func (s *ftsSearcher) fieldIndex(field string) int {
	for i, f := range s.fi.fields {
		if f == field {
			return i
		}
	}
	return 0
}

// dictionary returns the terms of field starting with prefix that keep
// accepts, at most maxExpansion of them.
func (s *ftsSearcher) dictionary(field, prefix string, keep func(string) bool) ([]string, error) {
	var out []string
	for c := s.t.Terms(field, prefix); c.Next(); {
		if t := string(c.Key()); keep(t) {
			if len(out) == maxExpansion {
				return nil, errs.Errorf(errs.Limit, "search term %s* matches more than %d terms", prefix, maxExpansion).
					WithHint("make the prefix, wildcard or pattern more specific")
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *ftsSearcher) pattern(field, expr string, b float64) (matches, error) {
	re, err := regexp.Compile("^(?:" + expr + ")$")
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "search pattern /%s/: %v", expr, err)
	}
	prefix, _ := re.LiteralPrefix()
	return s.expand(field, b, func(f string) ([]string, error) {
		return s.dictionary(f, prefix, re.MatchString)
	})
}

func wildcardRegexp(w string) string {
	var sb strings.Builder
	for _, r := range w {
		switch r {
		case '*':
			sb.WriteString(".*")
		case '?':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return sb.String()
}

// fuzzy searches the terms within edit distance fuzziness (at most 2) of
// term that share its first prefix bytes.
func (s *ftsSearcher) fuzzy(field, term string, fuzziness, prefix int, b float64) (matches, error) {
	fuzziness = min(max(fuzziness, 0), 2)
	prefix = min(max(prefix, 0), len(term))
	return s.expand(field, b, func(f string) ([]string, error) {
		return s.dictionary(f, term[:prefix], func(t string) bool {
			return editWithin(t, term, fuzziness)
		})
	})
}

// editWithin reports whether a and b are within Levenshtein distance d.
func editWithin(a, b string, d int) bool {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)] <= d
}

// phrase matches documents whose field has the analyzed words of text at
// the same relative positions; the score is the sum of the words' BM25.
func (s *ftsSearcher) phrase(field, text string, b float64) (matches, error) {
	f, err := s.field(field)
	if err != nil {
		return nil, err
	}
	toks := s.fi.an.Analyze([]byte(text))
	if len(toks) == 0 {
		return matches{}, nil
	}
	type word struct {
		term string
		off  uint32
	}
	words := make([]word, len(toks))
	for i, t := range toks {
		words[i] = word{string(t.Term), uint32(t.Position - toks[0].Position)}
	}
	// Candidates: documents with every word, with their positions.
	var cand map[string][]uint32 // key -> positions of the first word
	scores := matches{}
	for i, w := range words {
		next := map[string][]uint32{}
		for c := s.t.Postings(f, w.term); c.Next(); {
			key := string(c.Key())
			if i == 0 {
				next[key] = c.Positions(nil)
				continue
			}
			starts, ok := cand[key]
			if !ok {
				continue
			}
			var kept []uint32
			pos := c.Positions(nil)
			for _, p0 := range starts {
				if containsPos(pos, p0+w.off) {
					kept = append(kept, p0)
				}
			}
			if len(kept) > 0 {
				next[key] = kept
			}
		}
		cand = next
	}
	if len(cand) == 0 {
		return matches{}, nil
	}
	for _, w := range words {
		m := matches{}
		if err := s.term(f, w.term, b, m); err != nil {
			return nil, err
		}
		for k := range cand {
			scores[k] += m[k]
		}
	}
	return scores, nil
}

func containsPos(pos []uint32, p uint32) bool {
	i := sort.Search(len(pos), func(i int) bool { return pos[i] >= p })
	return i < len(pos) && pos[i] == p
}

// all matches every indexed document with score 0.
func (s *ftsSearcher) all() (matches, error) {
	out := matches{}
	for c := s.t.Docs(); c.Next(); {
		out[string(c.Key())] = 0
	}
	return out, nil
}

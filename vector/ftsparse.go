package vector

import (
	"fmt"

	bq "github.com/blevesearch/bleve/v2/search/query"
)

// The search query syntax is bleve's query string, parsed by bleve's own
// parser (search/query); parseQueryString turns what it returns into the
// nodes below, which ftsquery.go evaluates on our own index. bleve's
// search/query package links its search, registry and geo packages into
// the binary (docs/benchmarks.md measures the start-up this costs).

// searchNode is a node of a parsed search query.
type searchNode interface{ searchNode() }

// boolNode is a whole query: its clauses by prefix (+ must, none should,
// - must not).
type boolNode struct {
	must, should, mustNot []searchNode
}

// matchNode analyzes text and matches its words: any of them (all of them
// with and), each fuzzily within fuzziness edits when fuzziness > 0.
type matchNode struct {
	text, field string
	fuzziness   int
	and         bool
	boost       float64
}

// phraseNode matches the analyzed words of text at consecutive positions.
type phraseNode struct {
	text, field string
	boost       float64
}

// termNode matches one term as indexed.
type termNode struct {
	term, field string
	boost       float64
}

// fuzzyNode matches the terms within fuzziness edits of term.
type fuzzyNode struct {
	term, field string
	fuzziness   int
	boost       float64
}

// wildcardNode matches the terms matching a pattern with * and ?.
type wildcardNode struct {
	pattern, field string
	boost          float64
}

// regexpNode matches the terms matching a regular expression (RE2).
type regexpNode struct {
	pattern, field string
	boost          float64
}

// disjunctionNode matches documents any clause matches: a number, which
// bleve searches as a word or as a numeric value.
type disjunctionNode struct {
	clauses []searchNode
	boost   float64
}

// rangeNode is a numeric or date range, which search queries refuse (it
// belongs in --filter).
type rangeNode struct {
	field string
	date  bool
	boost float64
}

// noneNode matches nothing: the empty query.
type noneNode struct{}

func (*boolNode) searchNode()        {}
func (*matchNode) searchNode()       {}
func (*phraseNode) searchNode()      {}
func (*termNode) searchNode()        {}
func (*fuzzyNode) searchNode()       {}
func (*wildcardNode) searchNode()    {}
func (*regexpNode) searchNode()      {}
func (*disjunctionNode) searchNode() {}
func (*rangeNode) searchNode()       {}
func (*noneNode) searchNode()        {}

// parseQueryString parses a query in bleve's query-string syntax. The
// errors are bleve's.
func parseQueryString(text string) (searchNode, error) {
	q, err := bq.NewQueryStringQuery(text).Parse()
	if err != nil {
		return nil, err
	}
	return fromBleve(q)
}

// fromBleve converts a query of bleve's query-string parser into our
// nodes. The parser makes only the kinds below; any other is refused
// rather than misread.
func fromBleve(q bq.Query) (searchNode, error) {
	switch q := q.(type) {
	case *bq.BooleanQuery:
		return boolFromBleve(q)
	case *bq.DisjunctionQuery:
		clauses, err := listFromBleve(q.Disjuncts)
		return &disjunctionNode{clauses: clauses, boost: boostOf(q.BoostVal)}, err
	case *bq.MatchQuery:
		if q.Prefix != 0 || q.Operator != bq.MatchQueryOperatorOr {
			break
		}
		return &matchNode{text: q.Match, field: q.FieldVal, fuzziness: q.Fuzziness, boost: boostOf(q.BoostVal)}, nil
	case *bq.MatchPhraseQuery:
		return &phraseNode{text: q.MatchPhrase, field: q.FieldVal, boost: boostOf(q.BoostVal)}, nil
	case *bq.WildcardQuery:
		return &wildcardNode{pattern: q.Wildcard, field: q.FieldVal, boost: boostOf(q.BoostVal)}, nil
	case *bq.RegexpQuery:
		return &regexpNode{pattern: q.Regexp, field: q.FieldVal, boost: boostOf(q.BoostVal)}, nil
	case *bq.NumericRangeQuery:
		return &rangeNode{field: q.FieldVal, boost: boostOf(q.BoostVal)}, nil
	case *bq.DateRangeQuery:
		return &rangeNode{field: q.FieldVal, date: true, boost: boostOf(q.BoostVal)}, nil
	case *bq.MatchNoneQuery:
		return &noneNode{}, nil
	}
	return nil, fmt.Errorf("unsupported query %T", q)
}

// boolFromBleve converts a whole query: bleve puts the required clauses
// in a conjunction and the optional and excluded ones in disjunctions.
func boolFromBleve(q *bq.BooleanQuery) (searchNode, error) {
	n := &boolNode{}
	var err error
	if q.Must != nil {
		c, ok := q.Must.(*bq.ConjunctionQuery)
		if !ok {
			return nil, fmt.Errorf("unsupported required clauses %T", q.Must)
		}
		if n.must, err = listFromBleve(c.Conjuncts); err != nil {
			return nil, err
		}
	}
	for _, part := range []struct {
		q    bq.Query
		dest *[]searchNode
	}{{q.Should, &n.should}, {q.MustNot, &n.mustNot}} {
		if part.q == nil {
			continue
		}
		d, ok := part.q.(*bq.DisjunctionQuery)
		if !ok {
			return nil, fmt.Errorf("unsupported clauses %T", part.q)
		}
		if *part.dest, err = listFromBleve(d.Disjuncts); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func listFromBleve(qs []bq.Query) ([]searchNode, error) {
	out := make([]searchNode, 0, len(qs))
	for _, q := range qs {
		n, err := fromBleve(q)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func boostOf(b *bq.Boost) float64 {
	if b == nil {
		return 1
	}
	return b.Value()
}

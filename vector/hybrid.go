package vector

import (
	"context"
	"math"

	"github.com/omgdb/omgdb/store"
)

// RRFK is the constant k of reciprocal rank fusion: a document's hybrid
// score is the sum, over the rankings it appears in, of
// weight/(RRFK + rank). Cormack, Clarke and Büttcher (2009) use 60 with
// equal weights; on our known-item benchmark that loses to BM25 alone
// (the vector ranking is the weaker one), so RRFK and the weights were
// chosen by measurement (docs/retrieval.md): the lexical ranking leads,
// the vector ranking breaks near-ties and lifts what BM25 misses.
const RRFK = 5

// Weights of the rankings in the fusion.
const (
	RRFTextWeight   = 1.0
	RRFVectorWeight = 0.2
)

// hybridDepth is how many hits of each ranking are fused for k results.
func hybridDepth(k int) int { return max(10*k, 100) }

// HybridSearch fuses the BM25 ranking of the collection's search index for
// text (as plain words, any of which may match) with the vector ranking of
// field for text, by reciprocal rank fusion. Hits carry their documents.
func HybridSearch(ctx context.Context, c *store.Collection, field, text string, opts *SearchOptions) (*Result, error) {
	return hybrid(ctx, c, field, &matchNode{text: text, boost: 1}, text, opts)
}

// HybridQuerySearch is HybridSearch for a query in bleve's query-string
// syntax; the vector side embeds the query's text as written.
func HybridQuerySearch(ctx context.Context, c *store.Collection, field, text string, opts *SearchOptions) (*Result, error) {
	q, err := parseSearch(text)
	if err != nil {
		return nil, err
	}
	return hybrid(ctx, c, field, q, text, opts)
}

func hybrid(ctx context.Context, c *store.Collection, field string, q searchNode, text string, opts *SearchOptions) (*Result, error) {
	if opts == nil {
		opts = &SearchOptions{}
	}
	k := opts.k()
	deep := *opts
	deep.K, deep.MinScore = hybridDepth(k), nil
	lex, _, err := textSearch(ctx, c, q, &deep)
	if err != nil {
		return nil, err
	}
	ix, vi, note, err := findVectorIndex(c, field, &deep)
	if err != nil {
		return nil, err
	}
	var sem *Result
	if ix == nil {
		sem, err = embedScan(ctx, c, field, text, &deep)
	} else {
		sem, err = indexScan(ctx, c, ix, vi, text, &deep)
	}
	if err != nil {
		return nil, err
	}
	res := fuse(k, RRFK, []float64{RRFTextWeight, RRFVectorWeight}, lex, sem)
	res.Index, res.Model, res.OnTheFly, res.Note = lex.Index+"+"+sem.Index, sem.Model, sem.OnTheFly, note
	if opts.MinScore != nil {
		kept := res.Hits[:0]
		for _, h := range res.Hits {
			if h.Score >= *opts.MinScore {
				kept = append(kept, h)
			}
		}
		res.Hits = kept
	}
	return res, fillDocs(c, res.Hits)
}

// fuse combines rankings by weighted reciprocal rank fusion and keeps the
// k best.
func fuse(k int, rrfK float64, weights []float64, rankings ...*Result) *Result {
	score := map[string]float64{}
	first := map[string]Hit{}
	res := &Result{}
	for j, r := range rankings {
		res.Scanned += r.Scanned
		for i, h := range r.Hits {
			key := string(h.key)
			score[key] += weights[j] / (rrfK + float64(i+1))
			if _, ok := first[key]; !ok {
				first[key] = h
			}
		}
	}
	top := newTopK(k)
	for key, s := range score {
		if top.admits(s) {
			top.push(s, 0, []byte(key), nil)
		}
	}
	for _, it := range top.sorted() {
		h := first[string(it.key)]
		h.Score = math.Round(it.score*1e6) / 1e6
		res.Hits = append(res.Hits, h)
	}
	return res
}

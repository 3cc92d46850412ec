package vector

import (
	"context"
	"math"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TextSearch ranks the documents of c by BM25 over its search index for a
// query in bleve's query-string syntax. The hits carry their documents.
func TextSearch(ctx context.Context, c *store.Collection, text string, opts *SearchOptions) (*Result, error) {
	q, err := parseSearch(text)
	if err != nil {
		return nil, err
	}
	res, terms, err := textSearch(ctx, c, q, opts)
	if err != nil {
		return nil, err
	}
	if err := fillDocs(c, res.Hits); err != nil {
		return nil, err
	}
	if opts != nil && opts.Highlight {
		_, fi, err := findSearchIndex(c, opts.TextIndex)
		if err != nil {
			return nil, err
		}
		for i := range res.Hits {
			res.Hits[i].Highlights = fi.highlight(res.Hits[i].Doc, terms)
		}
	}
	return res, nil
}

// textSearch returns the hits without documents, and the terms that
// matched per field, for highlighting.
func textSearch(ctx context.Context, c *store.Collection, q searchNode, opts *SearchOptions) (*Result, map[string]map[string]bool, error) {
	if opts == nil {
		opts = &SearchOptions{}
	}
	ix, fi, err := findSearchIndex(c, opts.TextIndex)
	if err != nil {
		return nil, nil, err
	}
	s := &ftsSearcher{fi: fi, t: ix.Text(), st: ix.Text().Stats(len(fi.fields)), terms: map[string]map[string]bool{}, ctx: ctx}
	m, err := s.eval(q)
	if err != nil {
		return nil, nil, err
	}
	if opts.Filter != nil {
		m, err = filterMatches(ctx, c, m, opts.Filter)
		if err != nil {
			return nil, nil, err
		}
	}
	res := &Result{Index: ix.Def.Name, Scanned: len(m)}
	top := newTopK(opts.k())
	for k, score := range m {
		if top.admits(score) {
			top.push(score, 0, []byte(k), nil)
		}
	}
	keep := func(float64) bool { return true }
	if opts.MinScore != nil {
		keep = minScore(opts, 0)
	}
	for _, it := range top.sorted() {
		score := roundBM25(it.score)
		if !keep(score) {
			continue
		}
		id, err := idOfKey(c, ix, it.key)
		if err != nil {
			return nil, nil, err
		}
		res.Hits = append(res.Hits, Hit{ID: id, Score: score, key: it.key})
	}
	return res, s.terms, nil
}

// roundBM25 rounds a score to 6 significant digits for print.
func roundBM25(s float64) float64 {
	if s == 0 {
		return 0
	}
	p := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(s))))
	return math.Round(s*p) / p
}

// filterMatches keeps the matches whose documents pass filter: the filter
// runs over the collection (with whatever indexes the store uses), then the
// two sets are intersected.
func filterMatches(ctx context.Context, c *store.Collection, m matches, f *query.Filter) (matches, error) {
	out := matches{}
	src := c.Find(ctx, store.Query{Filter: f})
	defer src.Close()
	for src.Next() {
		k := string(docKey(src.Doc()))
		if s, ok := m[k]; ok {
			out[k] = s
		}
	}
	return out, src.Err()
}

// findSearchIndex returns the collection's search index: the named one, or
// the only one.
func findSearchIndex(c *store.Collection, name string) (*store.Index, *ftsIndex, error) {
	var found []string
	for _, def := range c.Indexes() {
		if def.Kind == KindSearch && (name == "" || def.Name == name) {
			found = append(found, def.Name)
		}
	}
	switch {
	case len(found) == 0 && name != "":
		if _, err := c.Index(name); err != nil {
			return nil, nil, err
		}
		return nil, nil, errs.Errorf(errs.Invalid, "index %s is not a search index", name)
	case len(found) == 0:
		return nil, nil, errs.Errorf(errs.NotFound, "collection `%s` has no search index", c.Name()).
			WithHint("create one with `omgdb create-search-index <store> %s <field>[,<field>…]`", c.Name())
	case len(found) > 1:
		return nil, nil, errs.Errorf(errs.Usage, "collection `%s` has several search indexes (%s)", c.Name(), strings.Join(found, ", ")).
			WithHint("choose one with --index")
	}
	ix, err := c.Index(found[0])
	if err != nil {
		return nil, nil, err
	}
	fi, err := openFTS(ix)
	return ix, fi, err
}

// idOfKey returns the _id of the document stored under key, kept at the
// end of its lengths record.
func idOfKey(c *store.Collection, ix *store.Index, key []byte) (value.Value, error) {
	fi, err := openFTS(ix)
	if err != nil {
		return value.Value{}, err
	}
	_, v, _ := ix.Text().Doc(key, len(fi.fields))
	id, err := value.Parse(v)
	if err != nil {
		return value.Value{}, errs.Errorf(errs.IO, "search index %s of %s: damaged entry for key %x", ix.Def.Name, c.Name(), key).
			WithHint("rebuild it with `omgdb reindex`")
	}
	return id, nil
}

package vector

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// qualityRun holds the ranks of the relevant item per method.
type qualityRun struct {
	name  string
	ranks []int
}

// measureQuality loads items into a store with vector indexes (baseline
// and default embedder) and a search index, runs nq queries (perturbed by
// mangle when set) and returns the rank of the relevant item per method.
func measureQuality(t testing.TB, db *store.DB, bidx bleve.Index, items []knownItem, nq int, mangle func(string) string) []qualityRun {
	runs := []qualityRun{{name: "baseline d256 (OMGDB)"}, {name: "omgdb v2 d256"}, {name: "BM25 (omgdb search index)"}, {name: "hybrid (RRF of BM25 + v2)"}}
	ctx := context.Background()
	var err error
	rankOf := func(r *Result, want string) int {
		for i, h := range r.Hits {
			if h.ID.Str() == want {
				return i + 1
			}
		}
		return 0
	}
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("items")
		if err != nil {
			return err
		}
		for i := 0; i < nq && i < len(items); i++ {
			q := items[i].Query
			if mangle != nil {
				q = mangle(q)
			}
			for j, search := range []func() (*Result, error){
				func() (*Result, error) { return VectorSearch(ctx, c, "text", q, &SearchOptions{Index: "baseline"}) },
				func() (*Result, error) { return VectorSearch(ctx, c, "text", q, &SearchOptions{Index: "v2"}) },
				func() (*Result, error) {
					r, _, err := textSearch(ctx, c, &matchNode{text: q, boost: 1}, &SearchOptions{})
					return r, err
				},
				func() (*Result, error) { return HybridSearch(ctx, c, "text", q, &SearchOptions{Index: "v2"}) },
			} {
				r, err := search()
				if err != nil {
					return fmt.Errorf("%s: %q: %v", runs[j].name, q, err)
				}
				runs[j].ranks = append(runs[j].ranks, rankOf(r, items[i].ID))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bidx == nil {
		return runs
	}
	return append(runs, qualityRun{"BM25 (bleve v2.6.1 reference)", bleveRanks(t, bidx, items, nq, mangle)})
}

// bleveIndex loads the items into an in-memory bleve index with BM25
// scoring and the standard analyzer: the reference BM25.
func bleveIndex(t testing.TB, items []knownItem) bleve.Index {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = "standard"
	m.ScoringModel = bindex.BM25Scoring
	// scorch, bleve's default index, on disk: NewMemOnly's upsidedown
	// index has no BM25 statistics and silently scores by TF-IDF.
	idx, err := bleve.NewUsing(filepath.Join(t.TempDir(), "bleve"), m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	batch := idx.NewBatch()
	for _, it := range items {
		batch.Index(it.ID, map[string]any{"text": it.Text})
	}
	if err := idx.Batch(batch); err != nil {
		t.Fatal(err)
	}
	return idx
}

// bleveRanks runs the queries through the reference index.
func bleveRanks(t testing.TB, idx bleve.Index, items []knownItem, nq int, mangle func(string) string) []int {
	var ranks []int
	for i := 0; i < nq && i < len(items); i++ {
		q := items[i].Query
		if mangle != nil {
			q = mangle(q)
		}
		mq := bleve.NewMatchQuery(q)
		mq.SetField("text")
		req := bleve.NewSearchRequestOptions(mq, 10, 0, false)
		res, err := idx.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		for j, h := range res.Hits {
			if h.ID == items[i].ID {
				rank = j + 1
			}
		}
		ranks = append(ranks, rank)
	}
	return ranks
}

// mismatch perturbs a query the way people and agents mistype: every
// third word of five letters or more gets a typo (two inner letters
// swapped) or another word form (a plural 's' added or removed, "ing"
// for "e"), chosen by the word's hash so the result is deterministic.
func mismatch(q string) string {
	words := strings.Fields(q)
	n := 0
	for i, w := range words {
		if len(w) < 5 || !isAlpha(w) {
			continue
		}
		n++
		if n%3 != 1 {
			continue
		}
		switch fnv1a(fnvOffset, w) % 3 {
		case 0:
			b := []byte(w)
			j := len(b) / 2
			b[j-1], b[j] = b[j], b[j-1]
			words[i] = string(b)
		case 1:
			if strings.HasSuffix(w, "s") {
				words[i] = w[:len(w)-1]
			} else {
				words[i] = w + "s"
			}
		case 2:
			if strings.HasSuffix(w, "e") {
				words[i] = w[:len(w)-1] + "ing"
			} else {
				words[i] = w + "ed"
			}
		}
	}
	return strings.Join(words, " ")
}

func isAlpha(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func qualityTable(t testing.TB, title string, runs []qualityRun) map[string]metrics {
	out := map[string]metrics{}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s (%d queries)\n| method | MRR@10 | nDCG@10 | recall@10 |\n|---|---|---|---|\n", title, len(runs[0].ranks))
	for _, r := range runs {
		m := scoreRanks(r.ranks)
		out[r.name] = m
		fmt.Fprintf(&sb, "| %s | %.3f | %.3f | %.3f |\n", r.name, m.MRR, m.NDCG, m.Recall)
	}
	t.Log("\n" + sb.String())
	return out
}

var qualityQueries = flag.Int("quality-queries", 400, "TestQuality: queries to run from the committed subset (its 1181 for the docs table)")

// pinned are the figures TestQuality pins for the first 400 queries of
// the committed subset: MRR@10 per method, plain and with typos. A change
// of the embedder, the BM25 scoring or the fusion shows here; update them
// (and docs/retrieval.md) when it is intended.
var pinned = map[string][2]float64{
	"baseline d256 (OMGDB)":         {0.4134, 0.3242},
	"omgdb v2 d256":                 {0.7538, 0.7253},
	"BM25 (omgdb search index)":     {0.8768, 0.8399},
	"hybrid (RRF of BM25 + v2)":     {0.8767, 0.8461},
	"BM25 (bleve v2.6.1 reference)": {0.8755, 0.8386},
}

// TestQuality measures retrieval quality on the committed known-item
// subset (or on -corpus), checks the bars of issue 6 (the embedder reaches
// 60% of BM25's MRR@10, hybrid is at least as good as BM25) and pins the
// figures. The table of docs/retrieval.md comes from
//
//	go test ./vector -run TestQuality -quality-queries 2000 -v
func TestQuality(t *testing.T) {
	path, nq := "testdata/known-items.jsonl", *qualityQueries
	if raceEnabled && nq == 400 {
		nq = 60 // the bars are still checked; the pinned figures are not
	}
	if *corpusFlag != "" {
		path, nq = *corpusFlag, *queriesFlag
	}
	items := loadItems(t, path)
	// Verify (what storetest.MustOpen runs at the end) is tested elsewhere;
	// here it would only double the time.
	db, err := store.Open(filepath.Join(t.TempDir(), "q.omgdb"), &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loadQualityStore(t, db, items)
	var bidx bleve.Index
	if !raceEnabled {
		bidx = bleveIndex(t, items)
		defer bidx.Close()
	}
	plain := qualityTable(t, "known-item queries", measureQuality(t, db, bidx, items, nq, nil))
	typos := qualityTable(t, "queries with typos and other word forms", measureQuality(t, db, bidx, items, nq, mismatch))
	for i, m := range []map[string]metrics{plain, typos} {
		bm25, hyb, v2 := m["BM25 (omgdb search index)"], m["hybrid (RRF of BM25 + v2)"], m["omgdb v2 d256"]
		if v2.MRR < 0.6*bm25.MRR {
			t.Errorf("v2 embedder MRR@10 %.3f is under 60%% of BM25's %.3f", v2.MRR, bm25.MRR)
		}
		if hyb.MRR < bm25.MRR-0.001 {
			t.Errorf("hybrid MRR@10 %.4f is below BM25's %.4f", hyb.MRR, bm25.MRR)
		}
		if ref, ok := m["BM25 (bleve v2.6.1 reference)"]; ok && math.Abs(ref.MRR-bm25.MRR) > 0.005 {
			t.Errorf("our BM25 MRR@10 %.4f strays from bleve's %.4f", bm25.MRR, ref.MRR)
		}
		if i == 1 && hyb.MRR <= bm25.MRR {
			t.Errorf("hybrid MRR@10 %.3f does not beat BM25's %.3f on queries with typos", hyb.MRR, bm25.MRR)
		}
		if *corpusFlag != "" || nq != 400 {
			continue
		}
		for name, want := range pinned {
			if got := m[name].MRR; math.Abs(got-want[i]) > 0.002 {
				t.Errorf("%s: MRR@10 %.4f, pinned %.4f", name, got, want[i])
			}
		}
	}
}

// loadQualityStore loads the items into collection "items" with vector
// indexes "baseline" (OMGDB's embedder) and "v2", and search index "bm25".
func loadQualityStore(t testing.TB, db *store.DB, items []knownItem) {
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection("items")
		if err != nil {
			return err
		}
		for _, it := range items {
			if _, err := c.Insert(value.ObjectValue([]value.Field{{Key: "_id", Value: value.StringValue(it.ID)}, {Key: "text", Value: value.StringValue(it.Text)}})); err != nil {
				return err
			}
		}
		for _, def := range []store.IndexDef{
			{Name: "baseline", Kind: KindVector, Spec: []byte(`{"field":"text","model":"hashing-fnv1a-v1-d256","dim":256}`)},
			NewVectorIndexDef("v2", "text", 0),
			NewSearchIndexDef("bm25", []string{"text"}, ""),
		} {
			if _, err := c.CreateIndex(def); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package vector

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

var (
	corpusFlag  = flag.String("corpus", "", "known-item corpus (JSONL of {_id,query,text}) for TestQuality/TestTune")
	queriesFlag = flag.Int("queries", 1000, "number of queries to run from -corpus")
	tuneFlag    = flag.Bool("tune", false, "run the tuning experiments")
)

type knownItem struct {
	ID    string `json:"_id"`
	Query string `json:"query"`
	Text  string `json:"text"`
}

func loadItems(t testing.TB, path string) []knownItem {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []knownItem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it knownItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

// metrics are the known-item measures over a set of queries.
type metrics struct{ MRR, NDCG, Recall float64 }

func (m metrics) String() string {
	return fmt.Sprintf("MRR@10 %.4f  nDCG@10 %.4f  recall@10 %.4f", m.MRR, m.NDCG, m.Recall)
}

// score accumulates the rank (1-based, 0 when not in the top 10) of the
// relevant item of each query.
func scoreRanks(ranks []int) metrics {
	var m metrics
	for _, r := range ranks {
		if r >= 1 && r <= 10 {
			m.MRR += 1 / float64(r)
			m.NDCG += 1 / math.Log2(float64(r)+1)
			m.Recall++
		}
	}
	n := float64(len(ranks))
	return metrics{m.MRR / n, m.NDCG / n, m.Recall / n}
}

// embedRanks ranks every item's text against each query by exact cosine
// under emb and returns the rank of the relevant item.
func embedRanks(items []knownItem, nq int, emb *Embedder) []int {
	dim := emb.dim()
	mat := make([]float32, 0, len(items)*dim)
	for _, it := range items {
		mat = emb.AppendEmbed(mat, it.Text)
	}
	ranks := make([]int, 0, nq)
	for qi := 0; qi < nq && qi < len(items); qi++ {
		q := emb.Embed(items[qi].Query)
		want := dot(q, mat[qi*dim:(qi+1)*dim])
		rank := 1
		for j := range items {
			if j == qi {
				continue
			}
			s := dot(q, mat[j*dim:(j+1)*dim])
			if s > want || (s == want && j < qi) {
				rank++
			}
		}
		ranks = append(ranks, rank)
	}
	return ranks
}

func TestTune(t *testing.T) {
	if *corpusFlag == "" {
		t.Skip("needs -corpus")
	}
	items := loadItems(t, *corpusFlag)
	type variant struct {
		name string
		emb  *Embedder
	}
	var vs []variant
	for _, d := range []int{256} {
		vs = append(vs,
			variant{"v2 default", &Embedder{Dim: d}},
			variant{"v2 tri .5", &Embedder{Dim: d, cfg: feat{trigram: 0.5}}},
			variant{"v2 tri .5 nobi", &Embedder{Dim: d, cfg: feat{trigram: 0.5, bigram: -1}}},
			variant{"v2 tri .75 nobi", &Embedder{Dim: d, cfg: feat{trigram: 0.75, bigram: -1}}},
			variant{"v2 tri 1 nobi", &Embedder{Dim: d, cfg: feat{trigram: 1, bigram: -1}}},
			variant{"v2 tri .5 bi.25", &Embedder{Dim: d, cfg: feat{trigram: 0.5, bigram: 0.25}}},
			variant{"v2 tri .5 unstem", &Embedder{Dim: d, cfg: feat{trigram: 0.5, unstemmed: true}}},
		)
	}
	type row struct {
		name string
		m    metrics
	}
	var rows []row
	for _, v := range vs {
		m := scoreRanks(embedRanks(items, *queriesFlag, v.emb))
		rows = append(rows, row{fmt.Sprintf("%-16s d%d", v.name, v.emb.dim()), m})
		t.Logf("%-22s %v", rows[len(rows)-1].name, m)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].m.MRR > rows[j].m.MRR })
}

// TestTuneFusion compares fusion constants and weights on the committed
// subset (or -corpus): go test ./vector -run TestTuneFusion -tune -v
func TestTuneFusion(t *testing.T) {
	if !*tuneFlag {
		t.Skip("needs -tune")
	}
	path := "testdata/known-items.jsonl"
	if *corpusFlag != "" {
		path = *corpusFlag
	}
	items := loadItems(t, path)
	for _, mangle := range []func(string) string{nil, mismatch} {
		db := storetest.MustOpen(t)
		loadQualityStore(t, db, items)
		type cfg struct{ k, wv float64 }
		cfgs := []cfg{{60, 0.5}, {10, 0.3}, {10, 0.2}, {10, 0.1}, {5, 0.3}, {5, 0.2}, {5, 0.1}, {2, 0.1}}
		ranks := make([][]int, len(cfgs))
		bm := []int{}
		db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("items")
			ctx := context.Background()
			for i := 0; i < len(items) && i < *queriesFlag; i++ {
				q := items[i].Query
				if mangle != nil {
					q = mangle(q)
				}
				deep := &SearchOptions{K: 100, Index: "v2"}
				lex, _, err := textSearch(ctx, c, &matchNode{text: q, boost: 1}, deep)
				if err != nil {
					t.Fatal(err)
				}
				ix, vi, _, _ := findVectorIndex(c, "text", deep)
				sem, err := indexScan(ctx, c, ix, vi, q, deep)
				if err != nil {
					t.Fatal(err)
				}
				for j, cf := range cfgs {
					r := fuse(10, cf.k, []float64{1, cf.wv}, lex, sem)
					ranks[j] = append(ranks[j], rankIn(r, items[i].ID))
				}
				lex.Hits = lex.Hits[:min(10, len(lex.Hits))]
				bm = append(bm, rankIn(lex, items[i].ID))
			}
			return nil
		})
		t.Logf("BM25            %v", scoreRanks(bm))
		for j, cf := range cfgs {
			t.Logf("k=%-3v w_vec=%-4v %v", cf.k, cf.wv, scoreRanks(ranks[j]))
		}
	}
}

func rankIn(r *Result, id string) int {
	for i, h := range r.Hits {
		if h.ID.Str() == id {
			return i + 1
		}
	}
	return 0
}

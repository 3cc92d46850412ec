package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

// The vector workload: 100,000 short texts (or n, if smaller) with a
// 256-dimension vector index (omgdb's hashing embedder), searched for the
// top 10 by exact cosine similarity, in process with the index's matrix
// cached (as a server or a long-lived library user searches).
const vectorDocs = 100_000

var vectorQueries = []string{"quiet lamp for reading at night", "fast cable for the office desk", "blue mug with a cap",
	"bag for books and pens", "shirt for a summer trip to Lima", "gift for a coffee lover in Oslo"}

func vectorText(r *rand.Rand) string {
	words := []string{"lamp", "mug", "shirt", "cable", "pen", "bag", "cap", "book", "quiet", "fast", "blue", "red",
		"summer", "winter", "office", "desk", "reading", "night", "coffee", "tea", "gift", "trip", "travel", "lover",
		"warm", "light", "heavy", "small", "large", "cotton", "steel", "paper", "leather", "green", "old", "new"}
	var b []byte
	for k, n := 0, 8+r.IntN(10); k < n; k++ {
		if k > 0 {
			b = append(b, ' ')
		}
		if r.IntN(4) == 0 {
			b = append(b, cities[r.IntN(len(cities))]...)
		} else {
			b = append(b, words[r.IntN(len(words))]...)
		}
	}
	return string(b)
}

// vectorStore builds (once) the store the vector workload searches.
func (b *bench) vectorStore() (string, error) {
	n := min(b.cfg.n, vectorDocs)
	path := b.path("vector-%d", n) + ".omgdb"
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	r := rand.New(rand.NewPCG(dataSeed, 11))
	var in bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, `{"_id":%d,"text":%s}`+"\n", i, strconv.Quote(vectorText(r)))
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	db, err := store.Open(tmp, &store.Options{Create: true, NoSync: true})
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Import(context.Background(), "docs", &in, nil); err != nil {
		return "", err
	}
	err = db.Update(store.Change{Kind: "index"}, func(tx *store.Tx) error {
		c, err := tx.Collection("docs")
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(vector.NewVectorIndexDef("", "text", vector.DefaultDim))
		return err
	})
	if err != nil {
		return "", err
	}
	if err := db.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

func (b *bench) libVector() result {
	path, err := b.vectorStore()
	if err != nil {
		return skipped("build the vector store: %v", err)
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		return skipped("open: %v", err)
	}
	defer db.Close()
	search := func(q string) error {
		return db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("docs")
			if err != nil {
				return err
			}
			res, err := vector.VectorSearch(context.Background(), c, "text", q, &vector.SearchOptions{K: 10})
			if err == nil && (len(res.Hits) != 10 || res.OnTheFly) {
				err = fmt.Errorf("search %q: %d hits, on the fly %v", q, len(res.Hits), res.OnTheFly)
			}
			return err
		})
	}
	if err := search(vectorQueries[0]); err != nil { // loads the index's matrix
		return skipped("%v", err)
	}
	r := b.timeRuns(nil, func() error {
		for _, q := range vectorQueries {
			if err := search(q); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range r.samples {
		r.samples[i] /= float64(len(vectorQueries))
		r.cpu[i] /= float64(len(vectorQueries))
	}
	if r.skip == "" {
		r.note = fmt.Sprintf("%d documents, %d dimensions (hashing embedder); per search, warm; the issue's SIMD floor: 5.5 ms", min(b.cfg.n, vectorDocs), vector.DefaultDim)
	}
	return r
}

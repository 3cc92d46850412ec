package vector

import (
	"context"
	"os"
	"testing"

	"github.com/omgdb/omgdb/store"
)

// BenchmarkTextSearchStore runs full-text searches on the store named by
// $OMGDB_BENCH_STORE (collection docs, with one search index), in one read
// transaction each: a common term (a long postings scan), a phrase
// (postings with positions), a prefix (a dictionary walk) and a negation
// (every lengths record, less a term).
func BenchmarkTextSearchStore(b *testing.B) {
	path := os.Getenv("OMGDB_BENCH_STORE")
	if path == "" {
		b.Skip("set OMGDB_BENCH_STORE")
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range []struct{ name, text string }{
		{"term", "desktop"},
		{"phrase", `"command line"`},
		{"prefix", "sett*"},
		{"not", "-desktop"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				err := db.View(func(tx *store.Tx) error {
					c, err := tx.Collection("docs")
					if err != nil {
						return err
					}
					_, _, err = textSearch(context.Background(), c, mustParse(b, q.text), nil)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustParse(b *testing.B, text string) searchNode {
	q, err := parseSearch(text)
	if err != nil {
		b.Fatal(err)
	}
	return q
}

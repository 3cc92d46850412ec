package vector

import (
	"context"
	"os"
	"testing"

	"github.com/omgdb/omgdb/store"
)

// BenchmarkVectorSearchStore searches the store named by $OMGDB_BENCH_STORE
// (collection docs, field text, with a vector index), as built by
// docs/retrieval.md's instructions: "cold" opens the store and forgets the
// cached matrix for every search (what one CLI call does: the int8 pass),
// "warm" searches with the matrix cached (what a server does).
func BenchmarkVectorSearchStore(b *testing.B) {
	path := os.Getenv("OMGDB_BENCH_STORE")
	if path == "" {
		b.Skip("set OMGDB_BENCH_STORE")
	}
	search := func(db *store.DB) {
		err := db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("docs")
			if err != nil {
				return err
			}
			_, err = VectorSearch(context.Background(), c, "text", "fast regular expression search tool", nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			matrixCache.Lock()
			matrixCache.entries = nil
			matrixCache.Unlock()
			db, err := store.Open(path, &store.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			search(db)
			db.Close()
		}
	})
	b.Run("warm", func(b *testing.B) {
		db, err := store.Open(path, &store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		search(db)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			search(db)
		}
	})
}

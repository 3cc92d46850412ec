package store_test

import (
	"context"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// benchIndexed is benchStore with indexes on email (unique), age and
// address.zip.
func benchIndexed(b *testing.B, n int) *store.DB {
	db := benchStore(b, n)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		for _, spec := range []store.BTreeSpec{
			{Fields: []store.IndexField{{Path: "email"}}, Unique: true},
			{Fields: []store.IndexField{{Path: "age"}}},
			{Fields: []store.IndexField{{Path: "address.zip"}}},
		} {
			if _, err := c.CreateIndex(store.BTreeIndex("", spec)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func benchFind(b *testing.B, db *store.DB, filter string, want int) {
	f, err := query.CompileFilter(value.MustParse(filter))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("users")
			src := c.Find(context.Background(), store.Query{Filter: f})
			m := 0
			for src.Next() {
				m++
			}
			if m != want {
				b.Fatalf("%s matched %d, want %d", filter, m, want)
			}
			return src.Err()
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFind_IndexedEquality: a point query on a unique index, over
// 100,000 documents (plan, seek, fetch, filter).
func BenchmarkFind_IndexedEquality(b *testing.B) {
	benchFind(b, benchIndexed(b, 100_000), `{"email":"user4242@example.com"}`, 1)
}

// BenchmarkFind_IndexedRange100: a range of 100 documents.
func BenchmarkFind_IndexedRange100(b *testing.B) {
	// zip is i mod 100000 over 100,000 documents: one per zip.
	benchFind(b, benchIndexed(b, 100_000), `{"address.zip":{"$gte":"01200","$lt":"01300"}}`, 100)
}

// BenchmarkCount_Covered: a count answered from index entries alone.
func BenchmarkCount_Covered(b *testing.B) {
	db := benchIndexed(b, 100_000)
	f, _ := query.CompileFilter(value.MustParse(`{"age":{"$gte":20,"$lt":25}}`))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("users")
			n, err := c.CountMatching(context.Background(), f)
			if err != nil || n != 8335 { // i mod 60 in 2..6
				b.Fatalf("count = %d, %v", n, err)
			}
			return nil
		})
	}
}

// BenchmarkCreateIndex: building a unique index over 100,000 documents.
func BenchmarkCreateIndex(b *testing.B) {
	db := benchStore(b, 100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("users")
			if _, err := c.CreateIndex(store.BTreeIndex("e", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true})); err != nil {
				return err
			}
			return c.DropIndex("e")
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "docs/s")
}

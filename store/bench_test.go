package store_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// benchDoc is a ~300-byte users/orders-like document.
func benchDoc(i int) string {
	return fmt.Sprintf(`{"_id":%d,"name":"user %d","email":"user%d@example.com","age":%d,"active":%t,`+
		`"address":{"city":"%s","zip":"%05d","geo":[%d.5,%d.25]},"tags":["t%d","t%d"],`+
		`"orders":[{"sku":"A-%d","qty":%d,"price":%d.99},{"sku":"B-%d","qty":1,"price":5.0}],"score":%d.5}`,
		i, i, i, 18+i%60, i%3 == 0, []string{"Paris", "Berlin", "Lagos", "Lima", "Osaka"}[i%5], i%100000,
		i%90, i%180, i%10, i%7, i%1000, 1+i%5, i%50, i%500, i%100)
}

func benchStore(b *testing.B, n int) *store.DB {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "b.omgdb"), &store.Options{Create: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		buf.WriteString(benchDoc(i))
		buf.WriteByte('\n')
	}
	if _, err := db.Import(context.Background(), "users", &buf, nil); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkImport measures bulk NDJSON import; b.SetBytes gives MB/s.
func BenchmarkImport(b *testing.B) {
	const n = 100_000
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		buf.WriteString(benchDoc(i))
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db, err := store.Open(filepath.Join(b.TempDir(), fmt.Sprint(i)), &store.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Import(context.Background(), "users", bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkInsert measures one durable (fsynced) insert transaction.
func BenchmarkInsert(b *testing.B) {
	db, err := store.Open(filepath.Join(b.TempDir(), "b.omgdb"), &store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	doc := value.MustParse(benchDoc(1)).Without("_id")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		err := db.Update(store.Change{}, func(tx *store.Tx) error {
			c, err := tx.CreateCollection("users")
			if err != nil {
				return err
			}
			_, err = c.Insert(doc)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet measures a point read by _id in a read transaction.
func BenchmarkGet(b *testing.B) {
	const n = 100_000
	db := benchStore(b, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("users")
			if err != nil {
				return err
			}
			_, err = c.GetJSON(value.LongValue(int64(i * 7919 % n)))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan measures a full scan that decodes every document and
// evaluates a two-predicate filter, over 100,000 documents.
func BenchmarkScan(b *testing.B) {
	const n = 100_000
	db := benchStore(b, n)
	filter, err := query.CompileFilter(value.MustParse(`{"address.city":"Lima","active":true}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("users")
			src := c.Find(context.Background(), store.Query{Filter: filter})
			m := 0
			for src.Next() {
				m++
			}
			if want := (n + 11) / 15; m != want { // i = 3 mod 15
				return fmt.Errorf("matched %d, want %d", m, want)
			}
			return src.Err()
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkExport measures writing a collection as NDJSON.
func BenchmarkExport(b *testing.B) {
	db := benchStore(b, 100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := db.Export(context.Background(), "users", io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

package changes_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// benchDoc is a ~300-byte document, as in the store's benchmarks; age runs
// over 18..77 and score over 0.5..99.5, so {"score":{"$lt":10}} selects
// one document in ten, spread over the collection.
func benchDoc(i int) string {
	return fmt.Sprintf(`{"_id":%d,"name":"user %d","email":"user%d@example.com","age":%d,"active":%t,`+
		`"address":{"city":"%s","zip":"%05d","geo":[%d.5,%d.25]},"tags":["t%d","t%d"],`+
		`"orders":[{"sku":"A-%d","qty":%d,"price":%d.99},{"sku":"B-%d","qty":1,"price":5.0}],"score":%d.5}`,
		i, i, i, 18+i%60, i%3 == 0, []string{"Paris", "Berlin", "Lagos", "Lima", "Osaka"}[i%5], i%100000,
		i%90, i%180, i%10, i%7, i%1000, 1+i%5, i%50, i%500, i%100)
}

// randomDoc is benchDoc with random text in its strings, so that
// compression finds little to share between documents.
func randomDoc(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 3))
	word := func(n int) string {
		w := make([]byte, n)
		for j := range w {
			w[j] = "abcdefghijklmnopqrstuvwxyz0123456789"[r.IntN(36)]
		}
		return string(w)
	}
	return fmt.Sprintf(`{"_id":%d,"name":"%s %s","email":"%s@%s.com","age":%d,"active":%t,`+
		`"address":{"city":"%s","zip":"%s","geo":[%.6f,%.6f]},"tags":["%s","%s"],`+
		`"orders":[{"sku":"%s","qty":%d,"price":%.2f},{"sku":"%s","qty":1,"price":5.0}],"score":%d.5}`,
		i, word(6), word(9), word(10), word(7), 18+r.IntN(60), r.IntN(2) == 0, word(8), word(5),
		r.Float64()*180-90, r.Float64()*360-180, word(4), word(6), word(8), r.IntN(9)+1, r.Float64()*100, word(8), i%100)
}

// benchStore holds 100,000 documents, opened with fsync on commit.
func benchStore(b *testing.B) *store.DB { return benchStoreOf(b, benchDoc) }

func benchStoreOf(b *testing.B, doc func(int) string) *store.DB {
	b.Helper()
	path := filepath.Join(b.TempDir(), "b.omgdb")
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var buf bytes.Buffer
	for i := 0; i < 100_000; i++ {
		buf.WriteString(doc(i) + "\n")
	}
	if _, err := db.Import(ctx, "users", &buf, nil); err != nil {
		b.Fatal(err)
	}
	return db
}

var (
	benchFilter = value.MustParse(`{"score":{"$lt":10}}`)
	benchUpdate = value.MustParse(`{"$inc":{"visits":1},"$set":{"seen":true}}`)
)

// BenchmarkPlanUpdate plans an update of 10,000 of 100,000 documents.
func BenchmarkPlanUpdate(b *testing.B) {
	db := benchStore(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := changes.PlanUpdate(ctx, db, "users", benchFilter, benchUpdate, nil)
		if err != nil || res.Modified != 10_000 {
			b.Fatalf("plan: %v (%+v)", err, res)
		}
	}
}

// BenchmarkApply applies a planned update of 10,000 of 100,000 documents,
// and reports the journal bytes it adds per changed document, for
// documents alike (benchDoc) and documents of random text (randomDoc).
func BenchmarkApply(b *testing.B) {
	for _, docs := range []struct {
		name string
		doc  func(int) string
	}{{"alike", benchDoc}, {"random", randomDoc}} {
		b.Run(docs.name, func(b *testing.B) { benchApply(b, benchStoreOf(b, docs.doc)) })
	}
}

func benchApply(b *testing.B, db *store.DB) {
	b.ResetTimer()
	var journal int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		res, err := changes.PlanUpdate(ctx, db, "users", benchFilter, benchUpdate, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ap, err := changes.Apply(ctx, db, res.Token, nil)
		if err != nil || ap.Updated != 10_000 {
			b.Fatalf("apply: %v (%+v)", err, ap)
		}
		b.StopTimer()
		journal = journalBytes(b, db, res.Token)
		b.StartTimer()
	}
	b.ReportMetric(float64(journal)/10_000, "journal-B/doc")
}

// BenchmarkRollback rolls back an applied update of 10,000 documents.
func BenchmarkRollback(b *testing.B) {
	db := benchStore(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		res, err := changes.PlanUpdate(ctx, db, "users", benchFilter, benchUpdate, nil)
		if err == nil {
			_, err = changes.Apply(ctx, db, res.Token, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := changes.Rollback(ctx, db, res.Token, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// journalBytes returns the stored size of a change's journal records:
// the record as the store encodes it (canonical JSON, zstd-compressed when
// large, behind a 5-byte header).
func journalBytes(b *testing.B, db *store.DB, id string) int {
	n, raw := 0, 0
	db.View(func(tx *store.Tx) error {
		recs, err := tx.ChangeRecords(id)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			js := value.JSON(r.Value())
			raw += len(js)
			n += len(store.EncodeBlob(js))
		}
		return nil
	})
	b.ReportMetric(float64(raw)/10_000, "journal-raw-B/doc")
	return n
}

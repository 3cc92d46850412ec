package query_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/omgdb/omgdb/query"
)

// BenchmarkGroup is $group with a count and an average over 100,000 small
// documents in 100 groups.
func BenchmarkGroup(b *testing.B) {
	docs := make([]query.Value, 100_000)
	for i := range docs {
		docs[i] = query.MustParse(fmt.Sprintf(`{"_id":%d,"city":"c%d","age":%d,"name":"user%d"}`, i, i%100, 18+i%60, i))
	}
	p, err := query.CompilePipeline(query.MustParse(`[{"$group":{"_id":"$city","n":{"$count":{}},"avgAge":{"$avg":"$age"}}}]`), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out := p.Run(context.Background(), query.SliceSource(docs), nil)
		n := 0
		for out.Next() {
			n++
		}
		if out.Err() != nil || n != 100 {
			b.Fatalf("%d groups, %v", n, out.Err())
		}
	}
}

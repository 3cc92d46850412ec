package agg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// BenchmarkGroup is $group with a count and an average over 100,000 small
// documents in 100 groups.
func BenchmarkGroup(b *testing.B) {
	docs := make([]value.Value, 100_000)
	for i := range docs {
		docs[i] = value.MustParse(fmt.Sprintf(`{"_id":%d,"city":"c%d","age":%d,"name":"user%d"}`, i, i%100, 18+i%60, i))
	}
	p, err := agg.CompilePipeline(value.MustParse(`[{"$group":{"_id":"$city","n":{"$count":{}},"avgAge":{"$avg":"$age"}}}]`), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out := p.Run(context.Background(), agg.SliceSource(docs), nil)
		n := 0
		for out.Next() {
			n++
		}
		if out.Err() != nil || n != 100 {
			b.Fatalf("%d groups, %v", n, out.Err())
		}
	}
}

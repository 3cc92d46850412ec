package value_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// BenchmarkParseSmallAfterLarge measures a small parse by a pooled parser
// that once parsed a large value (a journal record of many operations).
func BenchmarkParseSmallAfterLarge(b *testing.B) {
	var big strings.Builder
	big.WriteString("[")
	for i := 0; i < 10000; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, "%d", i)
	}
	big.WriteString("]")
	small := []byte(`{"_id":1,"name":"user 1","age":30,"tags":["a","b"],"address":{"city":"Paris"}}`)
	value.Parse([]byte(big.String()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		value.Parse(small)
	}
}

package jsonscan_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// BenchmarkSkipContainer skips objects holding strings of several
// lengths, as the decoder skips the fields a filter does not read.
func BenchmarkSkipContainer(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"short", 8}, {"medium", 40}, {"long", 1000}} {
		s := strings.Repeat("x", c.n)
		data := []byte(`{"a":"` + s + `","b":["` + s + `","` + s + `"],"c":1}`)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if jsonscan.SkipContainer(data, 0, 0, 100) != len(data) {
					b.Fatal("wrong end")
				}
			}
		})
	}
}

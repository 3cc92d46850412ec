package vector

import (
	"testing"

	"github.com/viterin/vek/vek32"
)

func benchMatrix(n, dim int) ([]float32, []float32) {
	e := NewEmbedder(dim)
	m := make([]float32, n*dim)
	for i := range m {
		m[i] = float32((i*7919)%1000) / 1000
	}
	return m, e.Embed("a query about tar archives")
}

func BenchmarkDotGo(b *testing.B) {
	m, q := benchMatrix(100000, 256)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s float32
		for j := 0; j < 100000; j++ {
			s += dot(q, m[j*256:(j+1)*256])
		}
		_ = s
	}
}

func BenchmarkDotVek(b *testing.B) {
	m, q := benchMatrix(100000, 256)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s float32
		for j := 0; j < 100000; j++ {
			s += vek32.Dot(q, m[j*256:(j+1)*256])
		}
		_ = s
	}
}

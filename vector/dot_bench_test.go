package vector

import (
	"context"
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

// BenchmarkScan100k is the in-process scan of vsearch: exact top-10 over
// 100,000 × 256 float32 vectors in a contiguous matrix, on all cores.
func BenchmarkScan100k(b *testing.B) {
	m, q := benchMatrix(100000, 256)
	mat := &matrix{dim: 256, vecs: m, keys: make([][]byte, 100000), ids: make([][]byte, 100000)}
	for i := range mat.keys {
		mat.keys[i] = []byte{byte(i >> 16), byte(i >> 8), byte(i)}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := mat.scan(context.Background(), q, newTopK(10)); err != nil {
			b.Fatal(err)
		}
	}
}

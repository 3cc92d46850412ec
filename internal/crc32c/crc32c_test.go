package crc32c_test

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/crc32c"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func random(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// withGeneric runs f twice: on the CPU's fast path, then forced onto the
// standard library's.
func withGeneric(t *testing.T, f func(t *testing.T)) {
	t.Run("fast", f)
	*crc32c.ForceGeneric = true
	defer func() { *crc32c.ForceGeneric = false }()
	t.Run("generic", f)
}

func TestChecksum_EveryLengthAndAlignment(t *testing.T) {
	withGeneric(t, func(t *testing.T) {
		buf := random(2048+16, 1)
		for off := range 16 {
			for n := 0; n <= 2048; n++ {
				p := buf[off : off+n]
				if got, want := crc32c.Checksum(p), crc32.Checksum(p, castagnoli); got != want {
					t.Fatalf("offset %d length %d: Checksum = %#08x, want %#08x", off, n, got, want)
				}
			}
		}
	})
}

// TestChecksum_EveryLaneLength covers each lane length (up to 4080-byte
// buffers) and the blocks of longer buffers.
func TestChecksum_EveryLaneLength(t *testing.T) {
	buf := random(3*4080+100, 2)
	for n := 2048; n <= len(buf); n++ {
		if got, want := crc32c.Checksum(buf[:n]), crc32.Checksum(buf[:n], castagnoli); got != want {
			t.Fatalf("length %d: Checksum = %#08x, want %#08x", n, got, want)
		}
	}
}

func TestChecksum_RandomLengths(t *testing.T) {
	withGeneric(t, func(t *testing.T) {
		buf := random(1<<20, 3)
		r := rand.New(rand.NewPCG(4, 4))
		for range 200 {
			off := r.IntN(64)
			p := buf[off : off+r.IntN(len(buf)-off+1)]
			if got, want := crc32c.Checksum(p), crc32.Checksum(p, castagnoli); got != want {
				t.Fatalf("offset %d length %d: Checksum = %#08x, want %#08x", off, len(p), got, want)
			}
		}
	})
}

// TestUpdate_Split checks that Update continues a checksum, across every
// split point, from a nonzero start.
func TestUpdate_Split(t *testing.T) {
	withGeneric(t, func(t *testing.T) {
		p := random(600, 5)
		want := crc32.Checksum(p, castagnoli)
		for i := 0; i <= len(p); i++ {
			if got := crc32c.Update(crc32c.Checksum(p[:i]), p[i:]); got != want {
				t.Fatalf("split at %d: Update = %#08x, want %#08x", i, got, want)
			}
		}
	})
}

func TestChecksum_Known(t *testing.T) {
	// RFC 3720 appendix B.4: 32 bytes of zeros, of 0xff, and ascending.
	zeros, ones, inc := make([]byte, 32), make([]byte, 32), make([]byte, 32)
	for i := range 32 {
		ones[i], inc[i] = 0xff, byte(i)
	}
	for _, c := range []struct {
		p    []byte
		want uint32
	}{{nil, 0}, {[]byte("123456789"), 0xe3069283}, {zeros, 0x8a9136aa}, {ones, 0x62a8ab43}, {inc, 0x46dd794e}} {
		if got := crc32c.Checksum(c.p); got != c.want {
			t.Errorf("Checksum(% x) = %#08x, want %#08x", c.p, got, c.want)
		}
	}
}

func FuzzChecksum(f *testing.F) {
	f.Add([]byte("123456789"), uint32(0), uint8(0))
	f.Add(random(330, 6), uint32(0xdeadbeef), uint8(3))
	f.Add(random(5000, 7), uint32(1), uint8(15))
	f.Fuzz(func(t *testing.T, p []byte, crc uint32, off uint8) {
		p = p[min(int(off), len(p)):]
		if got, want := crc32c.Update(crc, p), crc32.Update(crc, castagnoli, p); got != want {
			t.Errorf("Update(%#08x, %d bytes) = %#08x, want %#08x", crc, len(p), got, want)
		}
	})
}

func BenchmarkChecksum(b *testing.B) {
	for _, n := range []int{64, 128, 330, 512, 1024, 4096} {
		p := random(n, 8)
		b.Run(fmt.Sprintf("crc32c/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				crc32c.Checksum(p)
			}
		})
		b.Run(fmt.Sprintf("stdlib/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				crc32.Checksum(p, castagnoli)
			}
		})
	}
}

package vector

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"
	"unsafe"

	"github.com/viterin/vek/vek32"

	"github.com/omgdb/omgdb/store"
)

// A vector index keeps, next to each float32 vector, an int8 copy: a
// quarter of the bytes. A search that streams over the stored vectors (one
// search in a process: a CLI call) scans the int8 copies first, then
// re-ranks with the float32 vectors only the documents that could still be
// in the top k. Each int8 record carries a bound on its error, so the
// result is exactly that of a float32 scan.
//
// The int8 record of a vector v (dim values) is dim int8s q_i =
// round(v_i / s) with s = max|v_i| / 127, then s and e = ||v - s·q|| (an
// upper bound of the error) as little-endian float32s, padded to 4 bytes.

// quantSlack covers float rounding in the bounds and in the float32 dot
// products.
const quantSlack = 1e-4

// quantize returns the int8 record of v.
func quantize(v []float32) []byte {
	q, s, e := quantizeVec(v)
	out := make([]byte, 0, len(v)+12)
	for _, x := range q {
		out = append(out, byte(x))
	}
	out = pad4(out, 0)
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(s))
	return binary.LittleEndian.AppendUint32(out, math.Float32bits(e))
}

// quantizeVec returns the int8 values, the scale and the error bound of v.
func quantizeVec(v []float32) ([]int8, float32, float32) {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	q := make([]int8, len(v))
	if m == 0 {
		return q, 0, 0
	}
	s := float32(m / 127)
	var err float64
	for i, x := range v {
		r := math.Round(float64(x) / float64(s))
		q[i] = int8(max(-127, min(127, r)))
		d := float64(x) - float64(q[i])*float64(s)
		err += d * d
	}
	// Round the bound up: it must never be below the true error.
	return q, s, float32(math.Sqrt(err)*(1+1e-6) + 1e-7)
}

// quantRecord splits an int8 record.
func quantRecord(rec []byte, dim int) (q []byte, s, e float32) {
	tail := rec[len(rec)-8:]
	return rec[:dim], math.Float32frombits(binary.LittleEndian.Uint32(tail)), math.Float32frombits(binary.LittleEndian.Uint32(tail[4:]))
}

// dotInt8 returns the dot product of two int8 vectors given as bytes.
func dotInt8(a []int8, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(x[0])*int32(int8(y[0])) + int32(x[4])*int32(int8(y[4]))
		s1 += int32(x[1])*int32(int8(y[1])) + int32(x[5])*int32(int8(y[5]))
		s2 += int32(x[2])*int32(int8(y[2])) + int32(x[6])*int32(int8(y[6]))
		s3 += int32(x[3])*int32(int8(y[3])) + int32(x[7])*int32(int8(y[7]))
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(int8(b[i]))
	}
	return s0 + s1 + s2 + s3
}

// candidate is a document whose exact score may be in the top k.
type candidate struct {
	upper float64 // an upper bound of its exact score
	key   []byte  // key of _id
}

// quantScan scores the stored vectors for the unit query q into top,
// exactly, reading int8 copies first. It returns the number of vectors.
func quantScan(vs store.Vectors, q []float32, top *topK) int {
	qq, qs, qe := quantizeVec(q)
	dim := len(q)
	// First pass: an upper bound of every document's score; keep the
	// bounds that can still reach the k-th best lower bound seen so far.
	lower := newTopK(top.k)
	var cands []candidate
	n := 0
	for cur := vs.Quants(); cur.Next(); {
		n++
		iq, s, e := quantRecord(cur.Record(), dim)
		approx := float64(qs) * float64(s) * float64(dotInt8(qq, iq))
		// |q·v - approx| <= ||q||·e + e_q·||v̂|| with ||q|| = 1 and
		// ||v̂|| <= 1 + e.
		bound := float64(e) + float64(qe)*(1+float64(e)) + quantSlack
		if lower.admits(approx - bound) {
			lower.push(approx-bound, 0, cur.DocKey(), nil)
		}
		if len(lower.items) == lower.k && approx+bound < lower.items[0].score {
			continue // k documents surely score higher
		}
		cands = append(cands, candidate{approx + bound, cur.DocKey()})
	}
	// Second pass: exact scores, best bound first, until no remaining
	// bound can enter the top k.
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].upper != cands[j].upper {
			return cands[i].upper > cands[j].upper
		}
		return bytes.Compare(cands[i].key, cands[j].key) < 0
	})
	buf := make([]float32, dim)
	for _, c := range cands {
		if len(top.items) == top.k && c.upper < top.items[0].score {
			break
		}
		rec := vs.Get(c.key)
		if rec == nil {
			continue
		}
		vec := buf
		if littleEndian && uintptr(unsafe.Pointer(&rec[0]))%4 == 0 {
			vec = unsafe.Slice((*float32)(unsafe.Pointer(&rec[0])), dim)
		} else {
			appendFloats(buf[:0], rec[:4*dim])
		}
		if s := float64(vek32.Dot(q, vec)); top.admits(s) {
			top.add(s, c.key, rec[4*dim:])
		}
	}
	return n
}

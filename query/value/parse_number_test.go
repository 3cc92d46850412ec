package value_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// TestParse_Decimals: short decimals (the parser's fast path) and longer
// ones parse to exactly the double strconv.ParseFloat gives, sign of zero
// included.
func TestParse_Decimals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	texts := []string{"0.0", "-0.0", "0.1", "0.3", "55.161", "999999999999999.0", "0.000000000000001", "9007199254740993.0", "1.7976931348623157", "123456789012345.6"}
	for range 200000 {
		n := 1 + r.IntN(18)
		digits := make([]byte, n)
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		point := r.IntN(n)
		intPart := strings.TrimLeft(string(digits[:point+1]), "0")
		if intPart == "" {
			intPart = "0"
		}
		text := intPart + "." + string(digits[point+1:])
		if point+1 == n {
			text += "0"
		}
		if r.IntN(2) == 0 {
			text = "-" + text
		}
		texts = append(texts, text)
	}
	for _, text := range texts {
		want, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatal(err)
		}
		v, err := value.Parse([]byte(`{"x":` + text + `}`))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got := v.Get("x").Double()
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s parses to %v (%x), want %v (%x)", text, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

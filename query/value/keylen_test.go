package value_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

func TestKeyLen_SplitsConcatenatedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		a, b := testgen.Value(r, 3), testgen.Value(r, 3)
		for _, desc := range []bool{false, true} {
			enc := value.AppendKey
			if desc {
				enc = value.AppendKeyDesc
			}
			ka := enc(nil, a)
			both := enc(append([]byte(nil), ka...), b)
			if got := value.KeyLen(both, desc); got != len(ka) {
				t.Fatalf("KeyLen(%s then %s, desc=%v) = %d, want %d", a, b, desc, got, len(ka))
			}
			if got := value.KeyLen(ka[:len(ka)-1], desc); got != -1 {
				t.Fatalf("KeyLen of truncated %s = %d, want -1", a, got)
			}
		}
	}
}

func TestKeyLen_Malformed(t *testing.T) {
	for _, b := range [][]byte{nil, {0x00}, {0x20, 1, 2}, {0x30, 'a', 0x00, 0x05}, {0x50, 0x10}, {0x60, 0, 0, 0, 9, 0, 1}} {
		if got := value.KeyLen(b, false); got != -1 {
			t.Errorf("KeyLen(%x) = %d, want -1", b, got)
		}
	}
}

package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// entryKeys describes the entries of an index: each entry's field values
// as JSON, then "@" and the _id key's value, sorted in key order.
func keysOf(t *testing.T, spec BTreeSpec, doc string) []string {
	t.Helper()
	g := newKeyGen(&spec)
	var ks keySet
	if _, err := g.keys(value.MustParse(doc), &ks); err != nil {
		t.Fatalf("keys(%s): %v", doc, err)
	}
	var out []string
	for _, k := range ks.keys {
		out = append(out, g.describe(value.MustParse(doc), k))
	}
	return out
}

func TestKeyGen_Keys(t *testing.T) {
	one := func(path string) BTreeSpec { return BTreeSpec{Fields: []IndexField{{Path: path}}} }
	cases := []struct {
		spec BTreeSpec
		doc  string
		want string
	}{
		{one("a"), `{"a":1}`, `{"a":1}`},
		{one("a"), `{}`, `{"a":null}`},
		{one("a"), `{"a":[1,2,1]}`, `{"a":1} {"a":2}`},
		{one("a"), `{"a":[]}`, `{"a":[]}`},
		{one("a"), `{"a":[[1,2],3]}`, `{"a":[1,2]} {"a":3}`},
		{one("a.b"), `{"a":{"b":"x"}}`, `{"a.b":"x"}`},
		{one("a.b"), `{"a":5}`, `{"a.b":null}`},
		{one("a.b"), `{"a":[{"b":1},{"c":2},{"b":[3,4]}]}`, `{"a.b":1} {"a.b":null} {"a.b":3} {"a.b":4}`},
		{one("a.b"), `{"a":[1,2]}`, `{"a.b":null}`},
		{one("a.b"), `{"a":[]}`, `{"a.b":null}`},
		{one("a.1"), `{"a":[5,6,7]}`, `{"a.1":6}`},
		{one("a.0.b"), `{"a":[{"b":1},{"b":2}]}`, `{"a.0.b":null} {"a.0.b":1}`}, // as the matcher walks it
		{BTreeSpec{Fields: []IndexField{{Path: "a"}, {Path: "b", Desc: true}}}, `{"a":[1,2],"b":"x"}`, `{"a":1,"b":"x"} {"a":2,"b":"x"}`},
		{BTreeSpec{Fields: []IndexField{{Path: "a.x"}, {Path: "a.y"}}}, `{"a":[{"x":1,"y":2},{"x":3,"y":4}]}`,
			`{"a.x":1,"a.y":2} {"a.x":1,"a.y":4} {"a.x":3,"a.y":2} {"a.x":3,"a.y":4}`},
		{BTreeSpec{Fields: []IndexField{{Path: "a"}}, Sparse: true}, `{"b":1}`, ``},
		{BTreeSpec{Fields: []IndexField{{Path: "a"}}, Sparse: true}, `{"a":null}`, `{"a":null}`},
		{BTreeSpec{Fields: []IndexField{{Path: "a"}, {Path: "b"}}, Sparse: true}, `{"b":1}`, `{"a":null,"b":1}`},
	}
	for _, c := range cases {
		got := strings.Join(keysOf(t, c.spec, c.doc), " ")
		if got != c.want {
			t.Errorf("keys of %s on %+v = %s, want %s", c.doc, c.spec.Fields, got, c.want)
		}
	}
}

func TestKeyGen_ParallelArrays(t *testing.T) {
	g := newKeyGen(&BTreeSpec{Fields: []IndexField{{Path: "a"}, {Path: "b"}}})
	var ks keySet
	_, err := g.keys(value.MustParse(`{"a":[1],"b":[2]}`), &ks)
	if err == nil || err.Error() != "cannot index parallel arrays [a] [b]" {
		t.Errorf("parallel arrays: %v", err)
	}
	ks.reset()
	if mask, err := g.keys(value.MustParse(`{"a":[1,2],"b":3}`), &ks); err != nil || mask != 1 {
		t.Errorf("one array: mask %b, %v", mask, err)
	}
}

func TestKeyGen_DescendingOrder(t *testing.T) {
	g := newKeyGen(&BTreeSpec{Fields: []IndexField{{Path: "a", Desc: true}, {Path: "b"}}})
	key := func(doc string) []byte {
		var ks keySet
		g.keys(value.MustParse(doc), &ks)
		return ks.keys[0]
	}
	// a descending, then b ascending.
	ordered := []string{`{"a":"z","b":1}`, `{"a":"z","b":2}`, `{"a":5,"b":0}`, `{"a":null,"b":9}`}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(key(ordered[i-1]), key(ordered[i])) >= 0 {
			t.Errorf("key of %s does not sort before %s", ordered[i-1], ordered[i])
		}
	}
}

func TestBTree_EntriesFollowWrites(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.omgdb"), &Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entries := func() (n int64, multikey []bool) {
		db.View(func(tx *Tx) error {
			c, _ := tx.Collection("c")
			ix, err := c.Index("tags_1")
			if err != nil {
				t.Fatal(err)
			}
			n, multikey = ix.Entries(), ix.Multikey()
			return nil
		})
		return
	}
	err = db.Update(Change{}, func(tx *Tx) error {
		c, _ := tx.CreateCollection("c")
		c.Insert(value.MustParse(`{"_id":1,"tags":"x"}`))
		_, err := c.CreateIndex(BTreeIndex("", BTreeSpec{Fields: []IndexField{{Path: "tags"}}}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, mk := entries(); n != 1 || mk[0] {
		t.Fatalf("after build: %d entries, multikey %v", n, mk)
	}
	db.Update(Change{}, func(tx *Tx) error {
		c, _ := tx.Collection("c")
		c.Insert(value.MustParse(`{"_id":2,"tags":["a","b","a"]}`))
		return c.Replace(value.LongValue(1), value.MustParse(`{"tags":["x","y"]}`))
	})
	if n, mk := entries(); n != 4 || !mk[0] {
		t.Fatalf("after array writes: %d entries, multikey %v", n, mk)
	}
	db.Update(Change{}, func(tx *Tx) error {
		c, _ := tx.Collection("c")
		return c.Delete(value.LongValue(2))
	})
	if n, mk := entries(); n != 2 || !mk[0] {
		t.Fatalf("after delete: %d entries, multikey %v (flags are never cleared)", n, mk)
	}
	rep, _ := db.Verify(t.Context())
	if !rep.OK {
		t.Fatalf("verify: %v", rep.Problems)
	}
}

// TestSortEntries: the radix sort orders entries as their bytes, whatever
// prefixes they share, their lengths (a short entry's prefix is padded
// with zeros, like an entry that goes on with zeros) or their number.
func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, radixMin - 1, radixMin, 300, 5000, 40000} {
		var arena []byte
		var entries []buildEntry
		for range n {
			var e []byte
			switch rng.IntN(4) {
			case 0: // a long shared prefix, differing late
				e = fmt.Appendf(nil, "\x0ctheverysameprefix%d", rng.IntN(50))
			case 1: // short, with zeros
				e = make([]byte, rng.IntN(10))
				for i := range e {
					e[i] = byte(rng.IntN(3))
				}
			case 2: // an e-mail-like key
				e = fmt.Appendf(nil, "\x0cuser%d@example.com\x00", rng.IntN(n+1))
			default:
				e = make([]byte, 1+rng.IntN(30))
				for i := range e {
					e[i] = byte(rng.IntN(256))
				}
			}
			off := len(arena)
			arena = append(arena, e...)
			entries = append(entries, buildEntry{pre: prefix8(e), pre2: prefix8(e[min(8, len(e)):]), off: uint32(off), n: uint16(len(e))})
		}
		want := slices.Clone(entries)
		sortEntriesCmp(arena, want)
		sortEntries(arena, entries)
		at := func(e buildEntry) []byte { return arena[e.off : e.off+uint32(e.n)] }
		for i := range entries {
			if !bytes.Equal(at(entries[i]), at(want[i])) {
				t.Fatalf("n=%d: entry %d is %q, want %q", n, i, at(entries[i]), at(want[i]))
			}
		}
	}
}

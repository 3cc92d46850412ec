package spill_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/omgdb/omgdb/internal/spill"
)

type rec struct {
	key, val []byte
	seq      int
}

// sortAll feeds recs to a Sorter with the given budget and returns what
// it gives back, with its stats.
func sortAll(t *testing.T, dir string, budget int64, recs []rec) ([]rec, spill.Stats) {
	t.Helper()
	s := spill.New(dir, budget)
	for _, r := range recs {
		if err := s.Add(r.key, r.val); err != nil {
			t.Fatal(err)
		}
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []rec
	for it.Next() {
		out = append(out, rec{key: bytes.Clone(it.Key()), val: bytes.Clone(it.Value())})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out, s.Stats()
}

func randomRecs(r *rand.Rand, n, keys int) []rec {
	recs := make([]rec, n)
	for i := range recs {
		k := make([]byte, r.IntN(4))
		for j := range k {
			k[j] = byte(r.IntN(keys))
		}
		recs[i] = rec{key: k, val: fmt.Appendf(nil, "%d:%s", i, bytes.Repeat([]byte{'v'}, r.IntN(300))), seq: i}
	}
	return recs
}

// TestSorter_StableAcrossRuns checks the order (keys, then arrival for
// equal keys, empty keys included) with everything in memory, with a few
// runs, and with more runs than are merged at once.
func TestSorter_StableAcrossRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	recs := randomRecs(r, 20000, 3) // few distinct keys: many ties
	want := slices.Clone(recs)
	slices.SortStableFunc(want, func(a, b rec) int { return bytes.Compare(a.key, b.key) })
	for _, tc := range []struct {
		budget   int64
		minRuns  int
		wantDisk bool
	}{{1 << 30, 0, false}, {1 << 20, 2, true}, {16 << 10, 65, true}} {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			dir := t.TempDir()
			got, st := sortAll(t, dir, tc.budget, recs)
			if len(got) != len(want) {
				t.Fatalf("got %d records, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i].key, want[i].key) || !bytes.Equal(got[i].val, want[i].val) {
					t.Fatalf("record %d: got %q %.20q, want %q %.20q", i, got[i].key, got[i].val, want[i].key, want[i].val)
				}
			}
			if (st.Runs > 0) != tc.wantDisk || st.Runs < tc.minRuns {
				t.Errorf("stats %+v: want at least %d runs, disk used %v", st, tc.minRuns, tc.wantDisk)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left in the temporary directory", len(left))
			}
		})
	}
}

// TestSorter_NoFileNamesWhileSorting checks that a run's file has no name
// from the moment it exists: a process killed mid-sort leaves nothing.
func TestSorter_NoFileNamesWhileSorting(t *testing.T) {
	dir := t.TempDir()
	s := spill.New(dir, 4<<10)
	for _, r := range randomRecs(rand.New(rand.NewPCG(3, 4)), 2000, 200) {
		if err := s.Add(r.key, r.val); err != nil {
			t.Fatal(err)
		}
	}
	if s.Stats().Runs == 0 {
		t.Fatal("no run written")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d named files in the temporary directory while sorting", len(left))
	}
	s.Close()
}

// TestSorter_Errors checks that a directory that cannot take a file fails
// the Add that needs it, and every later call, with a clear error.
func TestSorter_Errors(t *testing.T) {
	s := spill.New(filepath.Join(t.TempDir(), "missing"), 1<<10)
	var err error
	for i := 0; err == nil && i < 1000; i++ {
		err = s.Add([]byte{byte(i)}, bytes.Repeat([]byte{'x'}, 100))
	}
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Add into a missing directory: %v", err)
	}
	if _, err2 := s.Sort(); err2 == nil {
		t.Fatal("Sort after a failed Add succeeded")
	}
	s.Close()
}

func BenchmarkSorter(b *testing.B) {
	recs := randomRecs(rand.New(rand.NewPCG(5, 6)), 100000, 256)
	for _, budget := range []int64{1 << 30, 4 << 20} {
		b.Run(fmt.Sprint(budget>>20, "MiB"), func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				s := spill.New(dir, budget)
				for _, r := range recs {
					s.Add(r.key, r.val)
				}
				it, err := s.Sort()
				if err != nil {
					b.Fatal(err)
				}
				for it.Next() {
				}
				it.Close()
			}
		})
	}
}

// TestSweep: where run files must be named, a later sort removes those of
// processes that are gone, and keeps those of live ones and other files.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command")
	}
	dead := cmd.Process.Pid
	files := map[string]bool{ // name -> kept
		fmt.Sprintf("omgdb-sort-%d-123", dead):        false,
		fmt.Sprintf("omgdb-sort-%d-123", os.Getpid()): true,
		"omgdb-sort-x-1": true,
		"other":          true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	spill.SweepOnce(dir)
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}

// TestTape: values come back in order, as often as asked, in memory and
// past the budget in a file, which leaves no name behind.
func TestTape(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var vals [][]byte
	for i := range 3000 {
		vals = append(vals, fmt.Appendf(nil, "%d:%s", i, bytes.Repeat([]byte{'t'}, r.IntN(200))))
	}
	for _, budget := range []int64{1 << 30, 8 << 10} {
		dir := t.TempDir()
		tape := spill.NewTape(dir, budget)
		for _, v := range vals {
			if err := tape.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		if spilled := tape.Stats().Runs > 0; spilled != (budget < 1<<20) {
			t.Errorf("budget %d: spilled %v", budget, spilled)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("budget %d: %d named files", budget, len(left))
		}
		for pass := range 3 {
			rd, err := tape.Reader()
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for ; rd.Next(); i++ {
				if !bytes.Equal(rd.Value(), vals[i]) {
					t.Fatalf("budget %d, pass %d, value %d: %.20q, want %.20q", budget, pass, i, rd.Value(), vals[i])
				}
			}
			if rd.Err() != nil || i != len(vals) {
				t.Fatalf("budget %d, pass %d: %d values, error %v", budget, pass, i, rd.Err())
			}
		}
		tape.Close()
	}
}

package cli_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/store"
)

// TestCrash_KillCopy kills `omgdb copy` into a new store file with
// SIGKILL, at random moments and at the import's batch failpoint. After
// each kill the target, if the kill left one, must open, verify clean
// and hold whole batches of 50 of the source's documents in _id order,
// with no index or rules before the last batch; a copy that exited 0
// must have written everything. Then `copy --resume` completes it and
// its dump equals the source's.
func TestCrash_KillCopy(t *testing.T) {
	t.Parallel()
	seed, err := strconv.ParseUint(os.Getenv("OMGDB_CRASH_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with OMGDB_CRASH_SEED=%d)", seed, seed)
	lines := []string{`{"collection":"c"}`}
	for i := 0; i < 2000; i++ {
		lines = append(lines, fmt.Sprintf(`{"collection":"c","document":{"_id":{"$numberInt":"%d"},"pad":"%s"}}`, i, strings.Repeat("p", 200)))
	}
	lines = append(lines, `{"collection":"c","rules":{"required":["pad"]}}`,
		`{"collection":"c","index":{"name":"pad_1","kind":"btree","spec":{"fields":[{"path":"pad"}]}}}`)
	src := loadFixture(t, lines)
	want := mustRun(t, "dump", src)
	dir := t.TempDir()
	cycles := 16
	if testing.Short() {
		cycles = 6
	}
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		dst := filepath.Join(dir, fmt.Sprintf("d%d.omgdb", c))
		k := crashtest.Kill{Workload: "cli", Args: []string{"", "copy", src, dst, "--batch-size", "50"}, Delay: time.Duration(r.IntN(300000)) * time.Microsecond}
		if c%2 == 1 {
			k.Failpoint, k.Delay = fmt.Sprintf("import-batch:%d", 1+r.IntN(2000)), time.Minute
		}
		o, err := crashtest.Run(k)
		completed := o != nil && o.Exited && o.ExitCode == 0
		if err != nil && !completed {
			t.Fatalf("cycle %d: %v", c, err)
		}
		n := checkKilledCopy(t, dst, completed)
		switch {
		case completed:
			outcomes["completed"]++
		case n == 0:
			outcomes["killed, nothing committed"]++
		default:
			outcomes["killed, some batches committed"]++
		}
		if code, _, stderr := runCLI(t, "", "copy", src, dst, "--resume", "--batch-size", "50"); code != 0 {
			t.Fatalf("cycle %d: resume after %d documents: exit %d: %s", c, n, code, stderr)
		}
		if got := mustRun(t, "dump", dst); got != want {
			t.Fatalf("cycle %d: dump after the resume differs from the source's", c)
		}
	}
	t.Logf("%d copies killed or completed: %v; every target opened and verified clean, and a resume completed it", cycles, outcomes)
}

// checkKilledCopy checks the target a killed copy left and returns how
// many documents it holds.
func checkKilledCopy(t *testing.T, path string, completed bool) int64 {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if completed {
			t.Fatal("copy exited 0 but left no store")
		}
		return 0
	}
	db := openVerified(t, path, "copy")
	defer db.Close()
	var n int64
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return nil // killed before the first commit
		}
		for cur := c.Scan(); cur.Next(); n++ {
			if id := cur.Doc().Get("_id").Long(); id != n {
				return fmt.Errorf("document %d has _id %d: not a prefix of the source", n, id)
			}
		}
		if len(c.Indexes()) > 0 && n != 2000 {
			return fmt.Errorf("the index exists with %d of 2000 documents", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case completed && n != 2000:
		t.Fatalf("copy exited 0 but the target holds %d of 2000 documents", n)
	case n%50 != 0 && n != 2000:
		t.Fatalf("copy killed: %d documents, not a whole number of batches of 50", n)
	}
	return n
}

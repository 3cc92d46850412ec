package store_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
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

// compactChild compacts and backs up the store at args[0] in a loop,
// pruning a little history on odd rounds, until it is killed.
func compactChild(w io.Writer, args []string) error {
	path := args[0]
	fmt.Fprintln(w, "ready")
	for i := 0; ; i++ {
		opts := &store.CompactOptions{}
		if i%2 == 1 {
			opts.HistoryBefore = 2
		}
		if _, err := store.Compact(context.Background(), path, opts); err != nil {
			return err
		}
		db, err := store.Open(path, &store.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		_, err = db.Backup(context.Background(), filepath.Join(filepath.Dir(path), fmt.Sprintf("b-%d-%d.omgdb", os.Getpid(), i)))
		db.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "ack %d\n", i)
	}
}

// TestCrash_KillCompaction kills a process that compacts and backs up a
// store at random moments: the store must open, verify, and hold exactly
// the same documents every time, and the next compaction clears what a
// killed one left behind.
func TestCrash_KillCompaction(t *testing.T) {
	cycles := 30
	if testing.Short() {
		cycles = 8
	}
	if n, err := strconv.Atoi(os.Getenv("OMGDB_CRASH_CYCLES")); err == nil && n > 0 {
		cycles = n / 4 // a compaction cycle costs several writer cycles
	}
	path := fillAndDelete(t)
	want := dumpOf(t, path)
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	acks := 0
	for i := 0; i < cycles; i++ {
		out, err := crashtest.Run(crashtest.Kill{Workload: "compactor", Args: []string{path}, Delay: time.Duration(r.IntN(150)) * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if out.Exited {
			t.Fatalf("cycle %d: the compactor stopped on its own (exit %d): %s", i, out.ExitCode, out.Stderr)
		}
		acks += len(out.Lines)
		if got := dumpOf(t, path); !bytes.Equal(got, want) {
			t.Fatalf("cycle %d: the data changed after a killed compaction", i)
		}
	}
	if _, err := store.Compact(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".compact-") {
			t.Errorf("a killed compaction's temporary file survived the next compaction: %s", e.Name())
		}
	}
	t.Logf("compaction crash: %d cycles, %d compactions+backups acknowledged, data intact every time", cycles, acks)
}

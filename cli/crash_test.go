package cli_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/store"
)

// cliChild runs omgdb in a crash-test child: args are a file for standard
// input ("" for none) and the command line.
func cliChild(w io.Writer, args []string) error {
	stdin := io.Reader(strings.NewReader(""))
	if args[0] != "" {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		stdin = f
	}
	io.WriteString(w, "ready\n")
	os.Exit(cli.Main(args[1:], stdin, io.Discard, io.Discard))
	return nil
}

// TestCrash_KillCLI kills omgdb commands with SIGKILL at random moments:
// import in batches of 50, and insert - and load, which are all or
// nothing, each creating its store. After each kill the store, if the
// kill left one, must open read-only, verify clean, and hold whole
// batches in order (import) or everything or nothing (insert -, load); a
// command that exited 0 before the kill must have written everything.
func TestCrash_KillCLI(t *testing.T) {
	t.Parallel()
	seed, err := strconv.ParseUint(os.Getenv("OMGDB_CRASH_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with OMGDB_CRASH_SEED=%d)", seed, seed)
	dir := t.TempDir()
	files := writeCrashInputs(t, dir)
	cycles := 40
	if testing.Short() {
		cycles = 10
	}
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		path := filepath.Join(dir, fmt.Sprintf("s%d.omgdb", c))
		kind := []string{"import", "insert", "load"}[c%3]
		args := map[string][]string{
			"import": {"", "import", path, "c", files["import"], "--batch-size", "50"},
			"insert": {files["insert"], "insert", path, "c", "-"},
			"load":   {"", "load", path, files["load"]},
		}[kind]
		// Every other import runs with a reader process waiting for the
		// store over and over, so that the import hands its lock over
		// between batches and some kills land in a handoff.
		withReader := kind == "import" && (c/3)%2 == 1
		var stopReader func() (int, error)
		if withReader {
			stopReader = readWhileKilled(path)
		}
		delay := time.Duration(r.IntN(80000)) * time.Microsecond
		if withReader {
			delay = time.Duration(r.IntN(400000)) * time.Microsecond // into the batches
		}
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: args, Delay: delay})
		if withReader {
			reads, rerr := stopReader()
			if rerr != nil {
				t.Fatalf("cycle %d: a reader during the import: %v", c, rerr)
			}
			outcomes["reads during imports"] += reads
		}
		completed := o != nil && o.Exited && o.ExitCode == 0
		if err != nil && !completed {
			t.Fatalf("cycle %d (%s): %v", c, kind, err)
		}
		n := checkKilledCLI(t, path, kind, completed)
		switch {
		case completed:
			outcomes[kind+" completed"]++
		case n == 0:
			outcomes[kind+" killed, nothing committed"]++
		case n == map[string]int64{"import": 2000, "insert": 300, "load": 300}[kind]:
			outcomes[kind+" killed after its last commit"]++
		default:
			outcomes[kind+" killed, some batches committed"]++
		}
	}
	t.Logf("%d commands killed or completed: %v; every store opened and verified clean", cycles, outcomes)
}

func writeCrashInputs(t *testing.T, dir string) map[string]string {
	var imp, ins, load strings.Builder
	load.WriteString(`{"collection":"c"}` + "\n")
	for i := 0; i < 2000; i++ {
		doc := fmt.Sprintf(`{"_id":%d,"pad":"%s"}`, i, strings.Repeat("p", 200))
		imp.WriteString(doc + "\n")
		if i < 300 {
			ins.WriteString(doc + "\n")
			load.WriteString(`{"collection":"c","document":` + doc + "}\n")
		}
	}
	files := map[string]string{}
	for name, text := range map[string]string{"import": imp.String(), "insert": ins.String(), "load": load.String()} {
		files[name] = filepath.Join(dir, name+".ndjson")
		if err := os.WriteFile(files[name], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// checkKilledCLI checks the store a killed command left and returns how
// many documents it holds.
func checkKilledCLI(t *testing.T, path, kind string, completed bool) int64 {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if completed {
			t.Fatalf("%s exited 0 but left no store", kind)
		}
		return 0
	}
	db := openVerified(t, path, kind)
	defer db.Close()
	var n int64
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return nil // the kill came before the first commit
		}
		for cur := c.Scan(); cur.Next(); n++ {
			if id := cur.Doc().Get("_id").Long(); id != n {
				return fmt.Errorf("document %d has _id %d: not a prefix of the input", n, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	total := map[string]int64{"import": 2000, "insert": 300, "load": 300}[kind]
	switch {
	case completed && n != total:
		t.Fatalf("%s exited 0 but the store holds %d of %d documents", kind, n, total)
	case kind == "import" && n%50 != 0 && n != total:
		t.Fatalf("import killed: %d documents, not a whole number of batches of 50", n)
	case kind != "import" && n != 0 && n != total:
		t.Fatalf("%s killed: %d of %d documents of one transaction visible", kind, n, total)
	}
	return n
}

// openVerified opens the store a killed command left, read-only as the
// next reader would, and verifies it.
func openVerified(t *testing.T, path, kind string) *store.DB {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("%s: open after kill: %v", kind, err)
	}
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK {
		db.Close()
		t.Fatalf("%s: verify after kill: %v %v", kind, err, rep.Problems)
	}
	return db
}

// readWhileKilled opens the store at path read-only in a loop, as another
// process would (flock is per open file), checking that it holds whole
// import batches of 50, until the returned function is called; that
// returns the number of reads and the first error.
func readWhileKilled(path string) func() (int, error) {
	stop := make(chan struct{})
	type result struct {
		reads int
		err   error
	}
	done := make(chan result)
	go func() {
		var res result
		defer func() { done <- res }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			db, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 5 * time.Second})
			if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrCorrupt) && strings.Contains(err.Error(), "empty file") {
				continue // not created yet
			}
			if err != nil {
				res.err = err
				return
			}
			var n int64
			db.View(func(tx *store.Tx) error {
				if c, err := tx.Collection("c"); err == nil {
					n = c.Count()
				}
				return nil
			})
			db.Close()
			if n%50 != 0 && n != 2000 {
				res.err = fmt.Errorf("a reader saw %d documents: not whole batches of 50", n)
				return
			}
			res.reads++
		}
	}()
	return func() (int, error) {
		close(stop)
		res := <-done
		return res.reads, res.err
	}
}

package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/store"
)

// crashModes are the import writers beside plain inserts that the crash
// suite kills: each runs over a copy of a store of modeDocs documents
// ({"_id":i,"v":0,"pad":…}), in batches of 50.
var crashModes = []string{"upsert", "merge", "delete", "drop"}

const modeDocs = 2000

// TestCrash_KillImportModes kills `omgdb import --mode upsert|merge|delete`
// and `import --drop` with SIGKILL at random moments. After each kill the
// store must open and verify clean and show whole batches done in input
// order: a prefix of the documents replaced, merged or deleted, or, for
// --drop, the old collection whole or the new documents in whole batches;
// a command that exited 0 must have done everything. Then rollback of the
// import's change must give back the store as it was before, byte for
// byte.
func TestCrash_KillImportModes(t *testing.T) {
	t.Parallel()
	seed, err := strconv.ParseUint(os.Getenv("OMGDB_CRASH_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with OMGDB_CRASH_SEED=%d)", seed, seed)
	dir := t.TempDir()
	template, before := modeTemplate(t, dir)
	inputs := modeInputs(t, dir)
	cycles := 24
	if testing.Short() {
		cycles = 8
	}
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		kind := crashModes[c%len(crashModes)]
		path := filepath.Join(dir, fmt.Sprintf("m%d.omgdb", c))
		copyFile(t, template, path)
		args := []string{"", "import", path, "c", inputs[kind], "--batch-size", "50"}
		if kind == "drop" {
			args = append(args, "--drop")
		} else {
			args = append(args, "--mode", kind)
		}
		delay := time.Duration(r.IntN(300000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: args, Delay: delay})
		completed := o != nil && o.Exited && o.ExitCode == 0
		if err != nil && !completed {
			t.Fatalf("cycle %d (%s): %v", c, kind, err)
		}
		n := checkKilledMode(t, path, kind, completed)
		switch {
		case completed:
			outcomes[kind+" completed"]++
		case n == 0:
			outcomes[kind+" killed, nothing committed"]++
		default:
			outcomes[kind+" killed, some batches committed"]++
		}
		if n > 0 {
			rollbackLast(t, path, before)
		}
	}
	t.Logf("%d imports killed or completed: %v; every store opened, verified clean and rolled back to its bytes", cycles, outcomes)
}

// modeTemplate makes the store each cycle starts from, and returns its
// path and its collection's export.
func modeTemplate(t *testing.T, dir string) (string, []byte) {
	var in strings.Builder
	for i := 0; i < modeDocs; i++ {
		fmt.Fprintf(&in, `{"_id":%d,"v":0,"pad":"%s"}`+"\n", i, strings.Repeat("p", 200))
	}
	path := filepath.Join(dir, "template.omgdb")
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import(context.Background(), "c", strings.NewReader(in.String()), nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := db.Export(context.Background(), "c", &out); err != nil {
		t.Fatal(err)
	}
	return path, out.Bytes()
}

func modeInputs(t *testing.T, dir string) map[string]string {
	var set, ids, fresh strings.Builder
	for i := 0; i < modeDocs; i++ {
		fmt.Fprintf(&set, `{"_id":%d,"v":1}`+"\n", i)
		fmt.Fprintf(&ids, `{"_id":%d}`+"\n", i)
		fmt.Fprintf(&fresh, `{"_id":%d,"new":true}`+"\n", i)
	}
	files := map[string]string{}
	for kind, text := range map[string]string{"upsert": set.String(), "merge": set.String(), "delete": ids.String(), "drop": fresh.String()} {
		files[kind] = filepath.Join(dir, kind+".ndjson")
		if err := os.WriteFile(files[kind], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// checkKilledMode checks the store a killed import left and returns how
// many input documents it shows done.
func checkKilledMode(t *testing.T, path, kind string, completed bool) int {
	t.Helper()
	db := openVerified(t, path, kind)
	defer db.Close()
	var n int
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		n, err = modeDone(c, kind)
		return err
	})
	switch {
	case err != nil:
		t.Fatalf("%s: %v", kind, err)
	case completed && n != modeDocs:
		t.Fatalf("%s exited 0 but shows %d of %d documents done", kind, n, modeDocs)
	case n%50 != 0 && n != modeDocs:
		t.Fatalf("%s killed: %d documents done, not a whole number of batches of 50", kind, n)
	}
	return n
}

// modeDone reads the collection after an import of kind and returns how
// many input documents it shows done, checking that they are the first
// ones and that every other document is as it was.
func modeDone(c *store.Collection, kind string) (int, error) {
	done, i, seenOld := 0, 0, false
	for cur := c.Scan(); cur.Next(); i++ {
		doc := cur.Doc()
		id := int(doc.Get("_id").Long())
		isNew := modeIsDone(kind, doc.Get("v").Long() == 1, doc.Has("pad"), doc.Has("new"))
		old := doc.Get("v").Long() == 0 && doc.Has("pad") && !doc.Has("new")
		switch {
		case kind == "delete" && i == 0:
			done = id // the deleted ones are the first ids
		case isNew && !seenOld:
			done++
		case old && (kind != "drop" || done == 0):
			seenOld = true
		default:
			return 0, fmt.Errorf("document %d after %d done is %s: not a prefix of the input in order", id, done, doc)
		}
		if kind != "delete" && id != i || kind == "delete" && id != done+i {
			return 0, fmt.Errorf("document %d has _id %d", i, id)
		}
	}
	if kind == "delete" && i == 0 {
		done = modeDocs
	}
	if kind != "delete" && kind != "drop" && i != modeDocs {
		return 0, fmt.Errorf("%d documents, want %d", i, modeDocs)
	}
	return done, nil
}

// modeIsDone says whether a document shows the import of kind done: v set
// to 1 (upsert: without pad; merge: with it), or a new document (drop).
func modeIsDone(kind string, v1, pad, isNew bool) bool {
	switch kind {
	case "upsert":
		return v1 && !pad
	case "merge":
		return v1 && pad
	case "drop":
		return isNew
	}
	return false
}

// rollbackLast rolls back the last change of the store at path and checks
// that the collection is then what it was before, byte for byte.
func rollbackLast(t *testing.T, path string, before []byte) {
	t.Helper()
	db, err := store.Open(path, &store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var change string
	err = db.View(func(tx *store.Tx) error {
		return tx.JournalReverse(0, func(r *store.Record) (bool, error) {
			change = r.Change
			return false, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changes.Rollback(context.Background(), db, change, nil); err != nil {
		t.Fatalf("rollback %s: %v", change, err)
	}
	var out bytes.Buffer
	if err := db.Export(context.Background(), "c", &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), before) {
		t.Fatalf("after rollback the collection differs from before the import (%d bytes against %d)", out.Len(), len(before))
	}
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK {
		t.Fatalf("verify after rollback: %v %v", err, rep.Problems)
	}
}

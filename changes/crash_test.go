package changes_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// crashEnv carries "<store path> <op> <arg>" to the child process.
const crashEnv = "OMGDB_CHANGES_CRASH_CHILD"

// crashUpdate is the update the crash template's plan makes, and the one
// the one-step update in the crash test makes.
const crashUpdate = `{"$set":{"migrated":true},"$inc":{"age":1}}`

// TestApplyCrashChild is the child of the kill -9 tests: it makes one
// change (op apply <token>, update or rename) and says "ready" before and
// "applied" after.
func TestApplyCrashChild(t *testing.T) {
	arg := os.Getenv(crashEnv)
	if arg == "" {
		t.Skip("run by the KillNine tests")
	}
	path, rest, _ := strings.Cut(arg, " ")
	op, token, _ := strings.Cut(rest, " ")
	db, err := store.Open(path, nil)
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	switch op {
	case "apply":
		_, err = changes.Apply(ctx, db, token, nil)
	case "update":
		_, err = changes.Update(ctx, db, "users", value.MustParse(`{}`), value.MustParse(crashUpdate), nil)
	case "rename":
		_, err = changes.RenameCollection(ctx, db, "users", "people", nil)
	}
	if err != nil {
		fmt.Println(op, "failed:", err)
		os.Exit(2)
	}
	fmt.Println("applied")
	os.Exit(0)
}

// TestApply_KillNineIsAllOrNothing kills a process with SIGKILL at random
// moments of a large apply: the store must open, verify, and hold either
// the whole change or none of it (the whole change once acknowledged).
func TestApply_KillNineIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash cycles take seconds")
	}
	template, token, db := appliedTemplate(t)
	db.View(func(tx *store.Tx) error {
		return tx.Journal(tx.LastLSN(), func(r *store.Record) (bool, error) {
			if n := len(value.JSON(r.Value())); n < 8<<20 {
				t.Errorf("the apply's journal record is %d bytes: too small to be written in pieces", n)
			}
			return false, nil
		})
	})
	after := db.Path()
	db.Close()
	killNine(t, template, "apply "+token, dumpFile(t, after), func(path string, whole bool) {
		checkPlanStatus(t, path, token, whole)
	})
}

// TestUpdate_KillNineIsAllOrNothing is the same for a one-step update of
// the same 10,000 documents: it must leave exactly what the apply leaves,
// or nothing.
func TestUpdate_KillNineIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash cycles take seconds")
	}
	template, _, db := appliedTemplate(t)
	after := db.Path()
	db.Close()
	killNine(t, template, "update -", dumpFile(t, after), func(path string, _ bool) { verifyFile(t, path) })
}

// appliedTemplate builds the crash template (crashTemplate) and a copy of
// it with the plan applied, which it returns open.
func appliedTemplate(t *testing.T) (template, token string, after *store.DB) {
	dir := t.TempDir()
	template = filepath.Join(dir, "template.omgdb")
	token = crashTemplate(t, template, 10_000)
	path := filepath.Join(dir, "after.omgdb")
	copyFile(t, template, path)
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, db, token)
	return template, token, db
}

// TestRenameCollection_KillNineIsAllOrNothing is the same for a rename of
// a collection of 10,000 documents with an index: after a kill the
// collection has its old name or its new one, whole.
func TestRenameCollection_KillNineIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash cycles take seconds")
	}
	dir := t.TempDir()
	template := filepath.Join(dir, "template.omgdb")
	crashTemplate(t, template, 10_000)
	after := filepath.Join(dir, "after.omgdb")
	copyFile(t, template, after)
	db, err := store.Open(after, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changes.RenameCollection(ctx, db, "users", "people", nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	killNine(t, template, "rename -", dumpFile(t, after), func(path string, _ bool) { verifyFile(t, path) })
}

// killNine runs the child's op on copies of template, killing it with
// SIGKILL at moments spread over the op's duration, and checks that each
// store opens and holds the whole change (want) or none of it (the
// template's documents, only if the op was not acknowledged); check runs
// on each store with whether it holds the change.
func killNine(t *testing.T, template, op, want string, check func(path string, whole bool)) {
	dir := t.TempDir()
	before := dumpFile(t, template)
	// Calibrate: one op left to finish gives its duration; the kills are
	// then spread over 0 to 1.2 times it.
	calib := filepath.Join(dir, "calibrate.omgdb")
	copyFile(t, template, calib)
	acked, took := runAndKill(t, calib, op, time.Hour)
	if !acked {
		t.Fatal("the calibration run did not finish")
	}
	const cycles = 12
	counts := map[string]int{}
	for cycle := 0; cycle < cycles; cycle++ {
		path := filepath.Join(dir, fmt.Sprintf("c%d.omgdb", cycle))
		copyFile(t, template, path)
		delay := time.Duration(float64(took) * 1.2 * (float64(cycle) + 0.5) / cycles)
		acked, _ := runAndKill(t, path, op, delay)
		got := dumpFile(t, path) // opens read-only: fails the test if the store does not open
		switch {
		case got == want:
			counts["whole change"]++
		case got == before && !acked:
			counts["none of it"]++
		case got == before:
			t.Fatalf("cycle %d: the %s was acknowledged but the store holds none of it", cycle, op)
		default:
			t.Fatalf("cycle %d (killed after %v): the store holds part of the change", cycle, delay)
		}
		check(path, got == want)
	}
	name, _, _ := strings.Cut(op, " ")
	t.Logf("kill -9 during a %s of 10,000 documents (%v unkilled): %d cycles, %v, 0 partial, 0 failed opens", name, took.Round(time.Millisecond), cycles, counts)
}

// verifyFile opens a store read-only and verifies it.
func verifyFile(t *testing.T, path string) {
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	storetest.MustVerify(t, db)
}

// crashTemplate builds a store of n documents and plans an update of all
// of them, returning the plan's token. Each document carries 600 bytes of
// padding, so that the apply's journal record of 10,000 before-images
// (about 9 MB) is written in pieces (store.encodeFast).
func crashTemplate(t *testing.T, path string, n int) string {
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var in strings.Builder
	pad := strings.Repeat("padding ", 75)
	for i := 0; i < n; i++ {
		doc := benchDoc(i)
		in.WriteString(doc[:len(doc)-1] + `,"pad":"` + pad + `"}` + "\n")
	}
	if _, err := db.Import(ctx, "users", strings.NewReader(in.String()), nil); err != nil {
		t.Fatal(err)
	}
	res, err := changes.PlanUpdate(ctx, db, "users", value.MustParse(`{}`), value.MustParse(`{"$set":{"migrated":true},"$inc":{"age":1}}`), nil)
	if err != nil || res.Modified != int64(n) {
		t.Fatalf("plan: %v", err)
	}
	return res.Token
}

// runAndKill starts the child with op, kills it delay after it is ready
// (unless it finished first), and reports whether it acknowledged the op
// and, if it did, how long the op took.
func runAndKill(t *testing.T, path, op string, delay time.Duration) (bool, time.Duration) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestApplyCrashChild$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path+" "+op)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not get ready: %q", lines.Text())
	}
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		rest, _ := io.ReadAll(out)
		done <- string(rest)
	}()
	var rest string
	select {
	case rest = <-done:
	case <-time.After(delay):
		cmd.Process.Signal(syscall.SIGKILL)
		rest = <-done
	}
	took := time.Since(start)
	cmd.Wait()
	acked := strings.Contains(rest, "applied")
	if !acked {
		took = 0
	}
	return acked, took
}

// checkPlanStatus checks that the plan's status moved with the documents.
func checkPlanStatus(t *testing.T, path, token string, applied bool) {
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	storetest.MustVerify(t, db)
	plans, err := changes.Plans(ctx, db, true)
	if err != nil || len(plans) != 1 {
		t.Fatalf("plans = %v, %v", plans, err)
	}
	if want := map[bool]string{true: "applied", false: "pending"}[applied]; plans[0].Status != want {
		t.Fatalf("plan status %s with the change %s", plans[0].Status, map[bool]string{true: "applied", false: "absent"}[applied])
	}
}

func dumpFile(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	return dump(t, db)
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

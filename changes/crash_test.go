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

// crashEnv carries "<store path> <token>" to the child process.
const crashEnv = "OMGDB_CHANGES_CRASH_CHILD"

// TestApplyCrashChild is the child of TestApply_KillNineIsAllOrNothing:
// it applies a plan and says "ready" before and "applied" after.
func TestApplyCrashChild(t *testing.T) {
	arg := os.Getenv(crashEnv)
	if arg == "" {
		t.Skip("run by TestApply_KillNineIsAllOrNothing")
	}
	path, token, _ := strings.Cut(arg, " ")
	db, err := store.Open(path, nil)
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	if _, err := changes.Apply(ctx, db, token, nil); err != nil {
		fmt.Println("apply failed:", err)
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
	dir := t.TempDir()
	template := filepath.Join(dir, "template.omgdb")
	token := crashTemplate(t, template, 10_000)
	before := dumpFile(t, template)
	after := filepath.Join(dir, "after.omgdb")
	copyFile(t, template, after)
	db, err := store.Open(after, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, db, token)
	db.View(func(tx *store.Tx) error {
		return tx.Journal(tx.LastLSN(), func(r *store.Record) (bool, error) {
			if n := len(value.JSON(r.Value())); n < 8<<20 {
				t.Errorf("the apply's journal record is %d bytes: too small to be written in pieces", n)
			}
			return false, nil
		})
	})
	db.Close()
	want := dumpFile(t, after)

	// Calibrate: one apply left to finish gives its duration; the kills
	// are then spread over 0 to 1.2 times it.
	calib := filepath.Join(dir, "calibrate.omgdb")
	copyFile(t, template, calib)
	acked, took := runAndKill(t, calib, token, time.Hour)
	if !acked {
		t.Fatal("the calibration apply did not finish")
	}
	const cycles = 12
	counts := map[string]int{}
	for cycle := 0; cycle < cycles; cycle++ {
		path := filepath.Join(dir, fmt.Sprintf("c%d.omgdb", cycle))
		copyFile(t, template, path)
		delay := time.Duration(float64(took) * 1.2 * (float64(cycle) + 0.5) / cycles)
		acked, _ := runAndKill(t, path, token, delay)
		got := dumpFile(t, path) // opens read-only: fails the test if the store does not open
		switch {
		case got == want:
			counts["whole change"]++
		case got == before && !acked:
			counts["none of it"]++
		case got == before:
			t.Fatalf("cycle %d: the apply was acknowledged but the store holds none of it", cycle)
		default:
			t.Fatalf("cycle %d (killed after %v): the store holds part of the change", cycle, delay)
		}
		checkPlanStatus(t, path, token, got == want)
	}
	t.Logf("kill -9 during an apply of 10,000 documents (%v unkilled): %d cycles, %v, 0 partial, 0 failed opens", took.Round(time.Millisecond), cycles, counts)
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

// runAndKill starts the child, kills it delay after it is ready (unless it
// finished first), and reports whether it acknowledged the apply and, if
// it did, how long the apply took.
func runAndKill(t *testing.T, path, token string, delay time.Duration) (bool, time.Duration) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestApplyCrashChild$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path+" "+token)
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

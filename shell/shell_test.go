package shell_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/shell"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// changeIDs masks the change ids, which differ at each run.
var changeIDs = regexp.MustCompile(`[0-9a-f]{24}`)

// runSession runs src through the shell's loop as a piped session, the
// prompts echoed, and returns what it printed, errors included.
func runSession(t *testing.T, store, src string) string {
	t.Helper()
	var out bytes.Buffer
	sh := shell.New(&shell.Options{Store: store, Out: &out, Err: &out})
	if err := sh.Run(context.Background(), shell.NewPlain(strings.NewReader(src), &out)); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestShell_Session_Golden(t *testing.T) {
	src, err := os.ReadFile("testdata/session.js")
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "app.omgdb")
	got := runSession(t, store, string(src))
	got = strings.ReplaceAll(got, store, "STORE")
	got = changeIDs.ReplaceAllString(got, "<id>")
	golden := "testdata/session.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("session transcript differs from %s (go test ./shell -run Golden -update, then review the diff):\n%s", golden, got)
	}
}

// TestShell_Interrupt: Interrupt stops a statement that never ends by
// itself, with ErrInterrupted, and the shell runs the next statement.
func TestShell_Interrupt(t *testing.T) {
	var out bytes.Buffer
	sh := shell.New(&shell.Options{Out: &out})
	done := make(chan error, 1)
	go func() { done <- sh.Eval(context.Background(), "test", "while (true) {}") }()
	time.Sleep(100 * time.Millisecond)
	sh.Interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, shell.ErrInterrupted) {
			t.Fatalf("interrupted statement: %v, want ErrInterrupted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not stop the loop")
	}
	if err := sh.Eval(context.Background(), "test", "6 * 7"); err != nil || out.String() != "42\n" {
		t.Fatalf("after the interrupt: %v, printed %q", err, out.String())
	}
}

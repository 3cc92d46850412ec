package shell_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

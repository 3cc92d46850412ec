package cli

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/leakcheck"
	"github.com/omgdb/omgdb/store"
)

// TestCLI_NoLeaks runs commands in this process, the failing ones too (a
// busy store, a missing collection, a bad line) and an import that hands
// its lock to a waiting reader, and checks that no file descriptor or
// goroutine is left behind.
func TestCLI_NoLeaks(t *testing.T) {
	if !leakcheck.Supported() {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "app.omgdb")
	lines := strings.Repeat(`{"v":1}`+"\n", 1000)
	run := func(stdin string, args ...string) int {
		return Main(args, strings.NewReader(stdin), &bytes.Buffer{}, &bytes.Buffer{})
	}
	round := func(int) {
		run("", "insert", path, "c", `{"a":1}`)
		run("", "find", path, "c", `{"a":1}`)
		run("", "count", path, "nope")
		run("{bad\n", "import", path, "c")
		run("", "verify", path)
		run("", "export", path, "c")
		// An import while another handle waits for the store: the import
		// hands it over between batches.
		pr, pw := io.Pipe()
		done := make(chan int)
		go func() {
			done <- Main([]string{"import", path, "c", "--batch-size", "100"}, pr, &bytes.Buffer{}, &bytes.Buffer{})
		}()
		io.WriteString(pw, lines[:len(lines)/2])
		for { // until the import holds the store
			r, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: -1})
			if err != nil {
				break
			}
			r.Close()
			time.Sleep(time.Millisecond)
		}
		got := make(chan error)
		go func() {
			r, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 5 * time.Second})
			if err == nil {
				r.Close()
			}
			got <- err
		}()
		time.Sleep(30 * time.Millisecond)
		io.WriteString(pw, lines[len(lines)/2:])
		if err := <-got; err != nil {
			t.Errorf("a reader during the import: %v", err)
		}
		pw.Close()
		if code := <-done; code != 0 {
			t.Errorf("import: exit %d", code)
		}
		w, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		run("", "count", path, "c", "--lock-timeout", "0") // busy
		w.Close()
	}
	// os/signal's goroutine lives as long as the process once a handler
	// is installed, which a command running over interruptAfter does:
	// start it before counting.
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	signal.Stop(ch)
	leakcheck.Rounds(t, 10, round)
}

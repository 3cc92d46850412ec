package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// term drives a process through a pseudo-terminal and keeps all it
// printed.
type term struct {
	t    *testing.T
	f    *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex // guards out
	out  bytes.Buffer
	done chan struct{}
	seen int // how much of out the last expect consumed
}

func startTerm(t *testing.T, env []string, args ...string) *term {
	t.Helper()
	cmd := exec.Command("omgdb", args...)
	cmd.Env = append(os.Environ(), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, f: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = f.Close() })
	return tm
}

func (tm *term) send(s string) {
	if _, err := tm.f.WriteString(s); err != nil {
		tm.t.Fatal(err)
	}
}

// expect waits until the output after the last match contains want.
func (tm *term) expect(want string, within time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		tm.mu.Lock()
		rest := tm.out.String()[tm.seen:]
		tm.mu.Unlock()
		if i := strings.Index(rest, want); i >= 0 {
			tm.seen += i + len(want)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.t.Fatalf("no %q within %v; the terminal shows:\n%s", want, within, clean(tm.out.String()[tm.seen:]))
}

// wait waits for the process to end and returns its exit code.
func (tm *term) wait() int {
	tm.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- tm.cmd.Wait() }()
	select {
	case err := <-errc:
		<-tm.done
		if err != nil {
			return tm.cmd.ProcessState.ExitCode()
		}
		return 0
	case <-time.After(10 * time.Second):
		tm.t.Fatalf("the shell did not exit; it shows:\n%s", clean(tm.out.String()))
	}
	return -1
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// clean removes terminal escapes and carriage returns, and keeps of each
// line what it shows last (readline redraws a line as it is edited).
func clean(s string) string {
	s = escapes.ReplaceAllString(s, "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.LastIndex(strings.TrimRight(l, "\r"), "\r"); i >= 0 {
			l = l[i+1:]
		}
		lines = append(lines, strings.TrimRight(l, "\r "))
	}
	return strings.Join(lines, "\n")
}

// TestShell_Terminal drives omgdb shell through a real pseudo-terminal:
// typing, tab completion of a collection, a method and a field, history
// across two sessions, a statement over three lines, it, Ctrl-C during a
// long query (the shell goes on), and exit; the transcript is golden.
func TestShell_Terminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a shell on a pseudo-terminal")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "app.omgdb")
	var docs strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&docs, `{"_id":%d,"n":%d,"message":"event %d"}`+"\n", i, i*2, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs.ndjson"), []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("omgdb", "import", store, "logs", filepath.Join(dir, "logs.ndjson")).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	env := []string{"OMGDB_HISTORY=" + filepath.Join(dir, "history"), "NO_COLOR=1", "TERM=xterm"}
	tm := startTerm(t, env, "shell", store)
	tm.expect("app> ", 10*time.Second)
	tm.send("db.lo\t")         // completes the collection
	tm.send(".estimatedDoc\t") // and the method
	tm.send("()\r")
	tm.expect("6000", 5*time.Second)
	tm.expect("app> ", 5*time.Second)
	tm.send("db.logs.countDocuments({mess\t: /event 1/})\r") // a field from the sample
	tm.expect("1111", 5*time.Second)
	tm.expect("app> ", 5*time.Second)
	tm.send("db.logs.find(\r")
	tm.expect("... ", 5*time.Second)
	tm.send("  {n: {$lt: 50}},\r")
	tm.expect("... ", 5*time.Second)
	tm.send("  {message: 0})\r")
	tm.expect(`Type "it" for more`, 5*time.Second)
	tm.send("it\r")
	tm.expect("{ _id: 24, n: 48 }", 5*time.Second)
	tm.expect("app> ", 5*time.Second)
	tm.send("db.logs.aggregate([{$lookup: {from: 'logs', pipeline: [{$match: {n: {$lt: 0}}}], as: 'x'}}, {$count: 'n'}])\r")
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	tm.send("\x03")
	tm.expect("error: interrupted", 10*time.Second)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Ctrl-C took %v to stop the query", d)
	}
	tm.expect("app> ", 5*time.Second)
	tm.send("40 + 2\r")
	tm.expect("42", 5*time.Second)
	tm.send("exit\r")
	if code := tm.wait(); code != 0 {
		t.Errorf("exit: code %d", code)
	}
	first := clean(tm.out.String())

	// A second session finds the first one's history: Up recalls exit,
	// Up again 40 + 2.
	tm = startTerm(t, env, "shell", store)
	tm.expect("app> ", 10*time.Second)
	tm.send("\x1b[A")
	tm.expect("exit", 5*time.Second)
	tm.send("\x1b[A")
	tm.expect("40 + 2", 5*time.Second)
	tm.send("\r")
	tm.expect("42", 5*time.Second)
	tm.expect("app> ", 5*time.Second)
	tm.send("\x03") // Ctrl-C at an empty prompt: a hint
	tm.expect("press Ctrl+C again", 5*time.Second)
	tm.send("\x03") // twice: leave
	if code := tm.wait(); code != 0 {
		t.Errorf("Ctrl-C twice: code %d", code)
	}

	// Ctrl-D leaves too.
	tm = startTerm(t, env, "shell", store)
	tm.expect("app> ", 10*time.Second)
	tm.send("\x04")
	if code := tm.wait(); code != 0 {
		t.Errorf("Ctrl-D: code %d", code)
	}
	hist, err := os.ReadFile(filepath.Join(dir, "history"))
	if err != nil || !strings.Contains(string(hist), "db.logs.find(   {n: {$lt: 50}},   {message: 0})") {
		t.Errorf("history file: %v\n%s", err, hist)
	}
	checkGolden(t, "testdata/shell_terminal.golden", strings.ReplaceAll(first, store, "STORE"))
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("OMGDB_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the terminal transcript differs from %s (OMGDB_UPDATE_GOLDEN=1 rewrites it; review the diff):\n%s", path, got)
	}
}

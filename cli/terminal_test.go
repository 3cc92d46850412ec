package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// terminal is a pseudo-terminal a child process writes to, and what it
// wrote.
type terminal struct {
	ptmx, tty *os.File
	out       bytes.Buffer
	read      chan struct{}
}

// newTerminal opens a pseudo-terminal cols wide.
func newTerminal(t *testing.T, cols uint16) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	term := &terminal{ptmx: ptmx, tty: tty, read: make(chan struct{})}
	go func() {
		defer close(term.read)
		io.Copy(&term.out, ptmx) // ends with EIO once the child's side is closed
	}()
	return term
}

// text closes the parent's side of the terminal and returns what the child
// wrote, with the terminal's \r\n turned back into \n.
func (term *terminal) text() string {
	term.tty.Close()
	<-term.read
	term.ptmx.Close()
	return strings.ReplaceAll(term.out.String(), "\r\n", "\n")
}

// run runs omgdb with standard output and standard error each on a
// terminal (when given) or a buffer, and returns its exit code and what it
// wrote to each.
func run(t *testing.T, env []string, stdoutTerm, stderrTerm *terminal, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("omgdb", args...)
	cmd.Env = append(os.Environ(), env...)
	var outb, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if stdoutTerm != nil {
		cmd.Stdout = stdoutTerm.tty
	}
	if stderrTerm != nil {
		cmd.Stderr = stderrTerm.tty
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	stdout, stderr = outb.String(), errb.String()
	if stdoutTerm != nil {
		stdout = stdoutTerm.text()
	}
	if stderrTerm != nil {
		stderr = stderrTerm.text()
	}
	return code, stdout, stderr
}

// progressStore makes a store of n documents in a new directory.
func progressStore(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"_id\":%d,\"body\":\"note %d about stores\"}\n", i, i)
	}
	in := filepath.Join(dir, "in.ndjson")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.omgdb")
	omgdbOut(t, "import", path, "notes", in)
	return path
}

// TestProgress_TerminalOnly: verify, backup, restore, compact and index
// builds draw a progress line on stderr when it is a terminal, clear it
// when done, and write nothing to stderr when it is a pipe.
func TestProgress_TerminalOnly(t *testing.T) {
	path := progressStore(t, 5000)
	dir := filepath.Dir(path)
	for i, tc := range []struct {
		args []string
		want string // on the terminal
	}{
		{[]string{"verify", path}, "verifying: documents ["},
		{[]string{"backup", path, filepath.Join(dir, "b%d.omgdb.zst")}, "backing up: copying ["},
		{[]string{"restore", filepath.Join(dir, "b0.omgdb.zst"), filepath.Join(dir, "r%d.omgdb")}, "restoring: copying ["},
		{[]string{"compact", path}, "compacting "},
		{[]string{"create-index", path, "notes", "body:%d"}, "indexing ["},
		{[]string{"create-search-index", path, "notes", "body", "--name", "s%d"}, "indexing ["},
	} {
		for _, onTerminal := range []bool{true, false} {
			args := append([]string(nil), tc.args...)
			args[len(args)-1] = strings.ReplaceAll(args[len(args)-1], "%d", fmt.Sprint(map[bool]int{true: 0, false: 1}[onTerminal]))
			if tc.args[0] == "create-index" {
				args[len(args)-1] = "body:" + map[bool]string{true: "1", false: "-1"}[onTerminal]
			}
			var term *terminal
			if onTerminal {
				term = newTerminal(t, 100)
			}
			code, _, stderr := run(t, nil, nil, term, args...)
			switch {
			case code != 0:
				t.Errorf("%d: omgdb %s: exit %d: %s", i, strings.Join(args, " "), code, stderr)
			case onTerminal && (!strings.Contains(stderr, tc.want) || !strings.HasSuffix(stderr, "\r\033[K")):
				t.Errorf("omgdb %s on a terminal: stderr %q, want %q and the line cleared at the end", strings.Join(args, " "), stderr, tc.want)
			case !onTerminal && stderr != "":
				t.Errorf("omgdb %s into a pipe: stderr %q, want nothing", strings.Join(args, " "), stderr)
			}
		}
	}
}

// TestFormat_Terminal: on a terminal, find prints documents in mongosh's
// style, coloured unless NO_COLOR is set, and a table as wide as the
// terminal; into a pipe it prints the stored NDJSON.
func TestFormat_Terminal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.omgdb")
	omgdbOut(t, "import", path, "people", "testdata/format/people.ndjson")
	golden := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata/format", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	find := []string{"find", path, "people"}

	_, coloured, _ := run(t, []string{"NO_COLOR="}, newTerminal(t, 40), nil, find...)
	if !strings.Contains(coloured, "\033[32m'Ada Lovelace'\033[0m") || !strings.Contains(coloured, "ObjectId('665f1c2e9b1d4a3f5e6d7c8b')") {
		t.Errorf("find on a terminal: %q, want mongosh's style in colour", coloured)
	}
	_, plain, _ := run(t, []string{"NO_COLOR=1"}, newTerminal(t, 40), nil, find...)
	if plain != golden("find-40.shell") {
		t.Errorf("find on a 40-column terminal with NO_COLOR:\n%s\nwant\n%s", plain, golden("find-40.shell"))
	}
	_, table, _ := run(t, []string{"NO_COLOR=1", "COLUMNS=200"}, newTerminal(t, 60), nil, append(find, "--format", "table")...)
	if table != golden("find-60.table") {
		t.Errorf("find --format table on a 60-column terminal:\n%s\nwant\n%s", table, golden("find-60.table"))
	}
	_, boldHead, _ := run(t, []string{"NO_COLOR=", "TERM=xterm"}, newTerminal(t, 60), nil, append(find, "--format", "table")...)
	if !strings.HasPrefix(boldHead, "\033[1m_id\033[0m") {
		t.Errorf("find --format table on a terminal: %q, want the header in bold", boldHead)
	}
	_, piped, _ := run(t, nil, nil, nil, find...)
	if piped != golden("find.ndjson") {
		t.Errorf("find into a pipe:\n%s\nwant\n%s", piped, golden("find.ndjson"))
	}
}

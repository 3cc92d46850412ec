package cli_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interruptImport runs omgdb import reading standard input, feeds it a line
// a millisecond (document {"_id":n} on line n+1) until the import has run
// for a second, then sends SIGINT, and returns its exit code, standard
// output and standard error.
func interruptImport(t *testing.T, path string, flags ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("omgdb", append([]string{"import", path, "c", "-", "--batch-size", "100"}, flags...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		for n := 0; ; n++ {
			if _, err := fmt.Fprintf(stdin, "{\"_id\":%d}\n", n); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	stdin.Close()
	<-fed
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, out.String(), errb.String()
}

// TestInterrupt_Import: Ctrl-C during an import in batches exits 130,
// says "interrupted", how many documents were committed through which
// line, and how to import the rest; exactly those lines are in the store.
func TestInterrupt_Import(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.omgdb")
	code, _, stderr := interruptImport(t, path)
	m := regexp.MustCompile(`(?m)^error: interrupted: (\d+) document\(s\) committed, through line (\d+) of standard input\nhint: the rest starts at line (\d+): feed it with tail -n \+(\d+) to omgdb import \S+ c\n`).FindStringSubmatch(stderr)
	if code != 130 || m == nil {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 130 and what was committed", code, stderr)
	}
	n, _ := strconv.Atoi(m[1])
	line, _ := strconv.Atoi(m[2])
	if n == 0 || n != line || m[3] != strconv.Itoa(line+1) || m[4] != m[3] {
		t.Fatalf("stderr:\n%s\nwant a non-zero count equal to the line, and the next line to resume at", stderr)
	}
	if got := omgdbOut(t, "count", path, "c"); got != strconv.Itoa(n) {
		t.Errorf("count after the interrupt = %s, want %d", got, n)
	}
	if got := omgdbOut(t, "count", path, "c", fmt.Sprintf(`{"_id":{"$lt":%d}}`, line)); got != strconv.Itoa(n) {
		t.Errorf("documents of lines 1..%d = %s, want %d", line, got, n)
	}
}

// TestInterrupt_ImportAtomic: an atomic import interrupted keeps nothing
// and says so.
func TestInterrupt_ImportAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.omgdb")
	code, _, stderr := interruptImport(t, path, "--atomic")
	want := "error: interrupted: nothing was changed\n"
	if code != 130 || !strings.HasSuffix(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 130 and %q", code, stderr, want)
	}
	if got, err := exec.Command("omgdb", "count", path, "c").CombinedOutput(); err == nil {
		t.Errorf("count after an interrupted atomic import = %s, want no collection", got)
	}
}

// TestInterrupt_Find: Ctrl-C during a long find exits 130, says nothing
// was changed, and stops printing.
func TestInterrupt_Find(t *testing.T) {
	path := progressStore(t, 30000)
	cmd := exec.Command("omgdb", "find", path, "notes")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	r.ReadString('\n') // find is running, and blocks on the pipe
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(r)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 130 || errb.String() != "error: interrupted: nothing was changed\n" {
		t.Fatalf("exit %d, stderr %q; want 130 and \"error: interrupted: nothing was changed\"", code, errb.String())
	}
	if n := bytes.Count(rest, []byte("\n")) + 1; n >= 30000 {
		t.Errorf("find printed all %d documents after Ctrl-C", n)
	}
}

// omgdbOut runs omgdb and returns its standard output, trimmed.
func omgdbOut(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("omgdb", args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("omgdb %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(string(out))
}

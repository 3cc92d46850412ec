package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/store"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"omgdb": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// omgdb-hold <store> <read|write> <duration> <readyfile>: hold a
		// store's lock, as another process would, for the many-process
		// scripts. It writes "held" to readyfile once it has the lock.
		"omgdb-hold": holdMain,
	})
}

func holdMain() {
	path, mode, ready := os.Args[1], os.Args[2], os.Args[4]
	d, _ := time.ParseDuration(os.Args[3])
	db, err := store.Open(path, &store.Options{ReadOnly: mode == "read", Timeout: 5 * time.Second})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.WriteFile(ready, []byte("held\n"), 0o644)
	time.Sleep(d)
	db.Close()
	os.Exit(0)
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: each is
// a sequence of omgdb commands with their expected output and exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile": waitFile,
			"exits":    exits,
			"jset":     jset,
		},
	})
}

// exits <code> <command> [args…]: run the command and check its exit code.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: exits <code> <command> [args…]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// waitfile <file> <substring>: wait up to 10s until the file contains the
// substring (a background process's readiness line).
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitfile <file> <substring>")
	}
	for i := 0; i < 1000; i++ {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && contains(b, args[1]) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("%s never contained %s", args[0], strconv.Quote(args[1]))
}

func contains(b []byte, s string) bool {
	return strings.Contains(string(b), s)
}

// jset <var> <key>: set the environment variable to the string value of a
// top-level key of the JSON object on the last line of the previous
// command's stdout (a plan's token, a rollback's change_id).
func jset(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: jset <var> <key>")
	}
	lines := strings.Split(strings.TrimSpace(ts.ReadFile("stdout")), "\n")
	var obj map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil {
		ts.Fatalf("jset: stdout is not JSON: %v", err)
	}
	v, ok := obj[args[1]].(string)
	if !ok {
		ts.Fatalf("jset: no string %q in %s", args[1], lines[len(lines)-1])
	}
	ts.Setenv(args[0], v)
}

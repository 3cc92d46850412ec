package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/faults"
	"github.com/omgdb/omgdb/store"
)

func TestMain(m *testing.M) {
	crashtest.Main(map[string]crashtest.Workload{"cli": cliChild})
	crashtest.ChildrenExitAtOnce()
	testscript.Main(m, map[string]func(){
		"omgdb": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// omgdb-hold <store> <read|write> <duration> <readyfile>: hold a
		// store's lock, as another process would, for the many-process
		// scripts. It writes "held" to readyfile once it has the lock.
		"omgdb-hold": holdMain,
		// omgdb-faults <spec> <omgdb args…>: run omgdb with injected I/O
		// faults. spec is fsize=<bytes> (RLIMIT_FSIZE: writes past it fail
		// with EFBIG, as on a full disk) or syscall=ERRNO,… (a seccomp
		// filter makes those system calls fail, such as fdatasync=EIO).
		"omgdb-faults": faultsMain,
		// omgdb-writer <store> <coll> <txns> <per-txn> <done-file>: run
		// `omgdb insert <store> <coll> -` txns times, each inserting per-txn
		// documents tagged with the transaction's number in one
		// transaction, then create done-file.
		"omgdb-writer": writerMain,
		// omgdb-reader <store> <coll> <per-txn> <ready-file> <until-file>:
		// create ready-file, then read the collection with `omgdb count`
		// and `omgdb export` until until-file exists, checking that every
		// read sees whole transactions only; prints how many reads it made
		// and how many different counts it saw.
		"omgdb-reader": readerMain,
		// omgdb-import-readers <store> <coll> <input> <batch> <pre-count>
		// <backup>: run an import and, while it runs, an MCP server's and
		// CLI reads and a backup, checking they see whole batches only
		// (processes_test.go).
		"omgdb-import-readers": importReadersMain,
		// omgdb-plans <store> <coll> <rounds> <done-file> and omgdb-uniform
		// <store> <coll> <ready-file> <until-file>: apply (and roll back)
		// plans that update every document, and read meanwhile, checking
		// that no read sees a plan half applied (processes_test.go).
		"omgdb-plans":   plansMain,
		"omgdb-uniform": uniformMain,
	})
}

func faultsMain() {
	spec := os.Args[1]
	var err error
	if n, ok := strings.CutPrefix(spec, "fsize="); ok {
		size, _ := strconv.ParseInt(n, 10, 64)
		err = faults.LimitFileSize(size)
	} else {
		var rules []faults.Rule
		if rules, err = faults.ParseRules(spec); err == nil {
			err = faults.FailSyscalls(rules)
		}
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	os.Exit(cli.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
}

func writerMain() {
	path, coll := os.Args[1], os.Args[2]
	txns, _ := strconv.Atoi(os.Args[3])
	per, _ := strconv.Atoi(os.Args[4])
	for t := 0; t < txns; t++ {
		var in strings.Builder
		for i := 0; i < per; i++ {
			fmt.Fprintf(&in, `{"txn":%d,"i":%d}`+"\n", t, i)
		}
		var out, errb strings.Builder
		if code := cli.Main([]string{"insert", path, coll, "-"}, strings.NewReader(in.String()), &out, &errb); code != 0 {
			fmt.Fprintf(os.Stderr, "transaction %d: exit %d: %s", t, code, errb.String())
			os.Exit(1)
		}
		// Pause, as a script between commands would: waiting processes
		// poll for the lock (every 10 ms), so a writer that reopens at once
		// can keep the store.
		time.Sleep(60 * time.Millisecond)
	}
	fmt.Printf("wrote %d transactions\n", txns)
	os.WriteFile(os.Args[5], []byte("done\n"), 0o644)
}

func readerMain() {
	path, coll, until := os.Args[1], os.Args[2], os.Args[5]
	per, _ := strconv.Atoi(os.Args[3])
	os.WriteFile(os.Args[4], []byte("ready\n"), 0o644)
	reads, counts := 0, map[int]bool{}
	for {
		_, err := os.Stat(until)
		done := err == nil // one more read after the writer is done
		n, msg := readWhole(path, coll, per)
		counts[n] = true
		if msg != "" {
			fmt.Fprintf(os.Stderr, "read %d: %s\n", reads, msg)
			os.Exit(1)
		}
		reads++
		if done {
			break
		}
	}
	fmt.Printf("%d reads, each of whole transactions; saw %d different counts\n", reads, len(counts))
}

// readWhole counts and exports the collection and checks both show whole
// transactions of per documents.
func readWhole(path, coll string, per int) (int, string) {
	var out, errb strings.Builder
	code := cli.Main([]string{"count", path, coll}, strings.NewReader(""), &out, &errb)
	if code == 66 {
		return 0, "" // the collection's first transaction is not committed yet
	}
	if code != 0 {
		return 0, fmt.Sprintf("count: exit %d: %s", code, errb.String())
	}
	n, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	if n%per != 0 {
		return n, fmt.Sprintf("count %d is not a whole number of %d-document transactions", n, per)
	}
	out.Reset()
	if code := cli.Main([]string{"export", path, coll}, strings.NewReader(""), &out, &errb); code != 0 {
		return n, fmt.Sprintf("export: exit %d: %s", code, errb.String())
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if _, after, ok := strings.Cut(line, `"txn":`); ok {
			num, _, _ := strings.Cut(after, ",")
			seen[num]++
		}
	}
	for t, k := range seen {
		if k != per {
			return n, fmt.Sprintf("transaction %s: %d of its %d documents visible", t, k, per)
		}
	}
	return n, ""
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
		// A script's environment is testscript's own: pass GORACE on, so
		// that its commands exit at once (crashtest.ChildrenExitAtOnce).
		Setup: func(e *testscript.Env) error {
			if v, ok := os.LookupEnv("GORACE"); ok {
				e.Setenv("GORACE", v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile": waitFile,
			"exits":    exits,
			"ndjson":   genNDJSON,
			"flipbyte": flipByte,
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

// ndjson <file> <count> <pad>: write count documents {"_id":i,"pad":…}
// with pad bytes of padding each, for tests that need volume.
func genNDJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: ndjson <file> <count> <pad>")
	}
	n, err1 := strconv.Atoi(args[1])
	pad, err2 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil {
		ts.Fatalf("ndjson: bad numbers")
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"_id":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", pad))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// flipbyte <file> <text> <offset>: flip the lowest bit of the byte offset
// bytes after the first occurrence of text in the file, as a damaged disk
// would.
func flipByte(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: flipbyte <file> <text> <offset>")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	off, err := strconv.Atoi(args[2])
	ts.Check(err)
	i := strings.Index(string(data), args[1])
	if i < 0 || i+off >= len(data) {
		ts.Fatalf("flipbyte: %q not found in %s", args[1], args[0])
	}
	data[i+off] ^= 1
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
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

package crashtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/omgdb/omgdb/internal/failpoint"
)

// envChild names the workload a child runs; envArgs carries its arguments.
const (
	envChild = "OMGDB_CRASHTEST_CHILD"
	envArgs  = "OMGDB_CRASHTEST_ARGS"
)

// Workload is what a child runs. It must print "ready" once it is about to
// write, then one line per acknowledged commit, each with a single write
// to w, and it should loop until killed.
type Workload func(w io.Writer, args []string) error

// Main runs the workload named in the environment and exits, when this
// process is a child; otherwise it returns at once. Call it first thing in
// TestMain.
func Main(workloads map[string]Workload) {
	name := os.Getenv(envChild)
	if name == "" {
		return
	}
	run, ok := workloads[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "crashtest: no workload %q\n", name)
		os.Exit(2)
	}
	var args []string
	if a := os.Getenv(envArgs); a != "" {
		args = strings.Split(a, "\x1f")
	}
	if err := run(os.Stdout, args); err != nil {
		fmt.Fprintf(os.Stderr, "crashtest: %s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Kill describes one cycle: which workload, with what arguments, and when
// to kill it.
type Kill struct {
	Workload string
	Args     []string
	// Delay is how long after "ready" the child is killed. With Early, it
	// is counted from the start of the process instead, so the kill may
	// land while the child opens or creates the store.
	Delay time.Duration
	Early bool
	// Failpoint, when set ("name:n"), turns on that failpoint in the child
	// (failpoint.Env), which then kills itself at the nth hit. Delay is then
	// how long to wait for that after "ready" before killing it anyway.
	Failpoint string
	// Env is added to the child's environment.
	Env []string
}

// Outcome is what a cycle saw.
type Outcome struct {
	Lines    []string // complete lines printed after "ready", in order
	Ready    bool     // the child printed "ready" before it was killed
	Exited   bool     // the child ended on its own before the kill
	Fired    bool     // the child killed itself at the failpoint
	ExitCode int      // its exit code when it did
	Stderr   string
}

// readyTimeout bounds the wait for a child's "ready" line.
const readyTimeout = 30 * time.Second

// Run starts the child, kills it with SIGKILL as k says, waits for it to
// be gone (so its locks are released) and returns what it printed.
func Run(k Kill) (*Outcome, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+k.Workload, envArgs+"="+strings.Join(k.Args, "\x1f"))
	cmd.Env = append(cmd.Env, k.Env...)
	if k.Failpoint != "" {
		cmd.Env = append(cmd.Env, failpoint.Env+"="+k.Failpoint)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines, ready, eof := make(chan []string, 1), make(chan struct{}), make(chan struct{})
	go func() { lines <- readLines(out, ready); close(eof) }()
	o := &Outcome{}
	var wait <-chan time.Time // when to kill
	if k.Early {
		wait = time.After(k.Delay)
	} else {
		select {
		case <-ready:
			wait = time.After(k.Delay)
		case now := <-time.After(readyTimeout):
			c := make(chan time.Time, 1)
			c <- now
			wait = c
		case <-eof:
		}
	}
	select {
	case <-wait:
	case <-eof: // the child is gone: killed at its failpoint, or ended
	}
	select {
	case <-ready:
		o.Ready = true
	default:
	}
	sent := false
	select {
	case <-eof:
	default:
		sent = cmd.Process.Signal(syscall.SIGKILL) == nil
	}
	all := <-lines
	werr := cmd.Wait()
	if ee, ok := werr.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		o.Exited, o.ExitCode = true, cmd.ProcessState.ExitCode()
	} else if !sent {
		o.Fired = true // nothing else sends SIGKILL
	}
	o.Stderr = stderr.String()
	if len(all) > 0 && all[0] == "ready" {
		all = all[1:]
	}
	o.Lines = all
	if o.Exited {
		return o, fmt.Errorf("child %s ended on its own (%v) before it was killed: %s", k.Workload, werr, o.Stderr)
	}
	return o, nil
}

// readLines reads complete lines until EOF, closing ready at "ready".
func readLines(r io.Reader, ready chan struct{}) []string {
	var lines []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return lines // a line without its newline was cut by the kill
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "ready" && len(lines) == 0 {
			close(ready)
		}
		lines = append(lines, line)
	}
}

// Complete runs a workload's child to its end, without killing it, and
// returns the lines it printed after "ready". The fault tests use it: their
// child meets an injected fault and reports what happened.
func Complete(workload string, args []string, env ...string) (*Outcome, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+workload, envArgs+"="+strings.Join(args, "\x1f"))
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o := &Outcome{Exited: true, ExitCode: cmd.ProcessState.ExitCode(), Stderr: stderr.String()}
	for _, line := range strings.SplitAfter(stdout.String(), "\n") {
		if strings.HasSuffix(line, "\n") {
			o.Lines = append(o.Lines, strings.TrimSuffix(line, "\n"))
		}
	}
	if len(o.Lines) > 0 && o.Lines[0] == "ready" {
		o.Ready, o.Lines = true, o.Lines[1:]
	}
	if err != nil {
		return o, fmt.Errorf("child %s: %v: %s", workload, err, o.Stderr)
	}
	return o, nil
}

// ChildrenExitAtOnce makes every child process the tests start from here
// on (crash workloads, scripts' commands, MCP servers: this test binary
// run again) exit at once under the race detector, which otherwise sleeps
// a second at each exit (GORACE's atexit_sleep_ms, default 1000) so that
// the other goroutines may report a race first. The cli package's tests
// start several hundred children: measured, `omgdb version` of the
// race-built test binary took 1.04 s, and 0.04 s without the sleep. A
// race a child detects is still reported and fails it (exit 66); only one
// detected in the instant of its exit could go unseen. A GORACE set by
// the caller is kept. Call it from TestMain, in the parent.
func ChildrenExitAtOnce() {
	if _, set := os.LookupEnv("GORACE"); !set {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
}

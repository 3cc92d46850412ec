package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptible runs each case in a child process, which interrupts
// itself: once the handler is installed Ctrl-C cancels the context; before
// then, or after the release, it ends the process as the default does.
func TestInterruptible(t *testing.T) {
	if c := os.Getenv("OMGDB_TEST_INTERRUPT"); c != "" {
		os.Exit(interruptChild(c))
	}
	for _, tc := range []struct {
		name      string
		cancelled bool // the child reports a cancelled context; else SIGINT ends it
	}{
		{"installed", true},
		{"early", false},
		{"released", false},
		{"released-installed", false},
		{"twice", false}, // the first cancels, the second ends the process
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptible$")
		cmd.Env = append(os.Environ(), "OMGDB_TEST_INTERRUPT="+tc.name)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case tc.cancelled && (err != nil || !strings.Contains(string(out), "cancelled")):
			t.Errorf("%s: want the context cancelled, got %v: %s", tc.name, err, out)
		case !tc.cancelled && (!errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT):
			t.Errorf("%s: want the process ended by SIGINT, got %v: %s", tc.name, err, out)
		}
	}
}

func interruptChild(c string) int {
	after := 20 * time.Millisecond
	if c == "early" {
		after = time.Hour
	}
	ctx, stop := interruptible(context.Background(), after)
	switch c {
	case "released": // before the handler is installed
		time.Sleep(5 * time.Millisecond)
		stop()
	case "released-installed":
		time.Sleep(100 * time.Millisecond)
		stop()
	}
	time.Sleep(200 * time.Millisecond)
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if c == "twice" {
		<-ctx.Done()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
	if c != "installed" { // the context is done (released) or not: the process must end first
		time.Sleep(5 * time.Second)
		return 3
	}
	select {
	case <-ctx.Done():
		fmt.Println("cancelled")
		return 0
	case <-time.After(5 * time.Second):
		return 3
	}
}

package failpoint_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/omgdb/omgdb/internal/failpoint"
)

// TestHit_KillsAtTheNthHit runs a child that hits points and prints after
// each hit: with OMGDB_FAILPOINT=apply:3 it must die by SIGKILL right at
// the third hit of "apply", whatever other points it hit.
func TestHit_KillsAtTheNthHit(t *testing.T) {
	if os.Getenv("FAILPOINT_CHILD") == "1" {
		for i := 1; ; i++ {
			failpoint.Hit(failpoint.Commit)
			failpoint.Hit(failpoint.Apply)
			fmt.Printf("%d\n", i)
			if i == 10 {
				os.Exit(0)
			}
		}
	}
	for _, tc := range []struct{ spec, out string }{
		{"apply:3", "1\n2\n"},
		{"apply", ""},
		{"commit:10", "1\n2\n3\n4\n5\n6\n7\n8\n9\n"},
		{"compact-copy", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"}, // never hit
		{"nonsense:2", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},   // a bad spec turns them off
		{"apply:0", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHit_KillsAtTheNthHit$")
		cmd.Env = append(os.Environ(), "FAILPOINT_CHILD=1", failpoint.Env+"="+tc.spec)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		killed := false
		if ee, ok := err.(*exec.ExitError); ok {
			killed = ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
		}
		if wantKill := !strings.HasSuffix(tc.out, "10\n"); killed != wantKill {
			t.Errorf("%s: killed %v (%v), want %v", tc.spec, killed, err, wantKill)
		}
		if got := strings.TrimSuffix(out.String(), "PASS\n"); got != tc.out {
			t.Errorf("%s: printed %q, want %q", tc.spec, got, tc.out)
		}
	}
}

func TestEnable(t *testing.T) {
	// Enable decides once per process; bad specs are checked in the
	// children of TestHit_KillsAtTheNthHit.
	if err := failpoint.Enable(""); err != nil {
		t.Fatal(err)
	}
	if err := failpoint.Enable("apply"); err == nil {
		t.Fatal("a second Enable succeeded")
	}
	failpoint.Hit(failpoint.Apply) // off: returns
	var b bytes.Buffer
	if w := failpoint.Writer(failpoint.BackupCopy, &b); w != &b {
		t.Fatal("Writer wrapped the writer with failpoints off")
	}
}

// BenchmarkHit_Off is the cost of a point when failpoints are off.
func BenchmarkHit_Off(b *testing.B) {
	failpoint.Enable("")
	for b.Loop() {
		failpoint.Hit(failpoint.ImportBatch)
	}
}

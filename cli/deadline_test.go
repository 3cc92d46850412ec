package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
)

// TestInterrupt_CostlyExpr: Ctrl-C stops a command whose $expr costs
// seconds on every document within a fraction of a second, in the middle
// of an evaluation, for count, find, aggregate and diagnose. (Before,
// scans checked for it every 1,024 documents and ran on.)
func TestInterrupt_CostlyExpr(t *testing.T) {
	if args := os.Getenv("OMGDB_TEST_COSTLY"); args != "" {
		os.Exit(Main(strings.Split(args, "\x1f"), strings.NewReader(""), os.Stdout, os.Stderr))
	}
	path := filepath.Join(t.TempDir(), "app.omgdb")
	docs := make([]string, 30)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id":%d,"name":"doc %d"}`, i, i)
	}
	storetest.Create(t, path, map[string][]string{"c": docs})
	costly := `{"$gt":[{"$reduce":{"input":{"$range":[0,1000000]},"initialValue":0,` +
		`"in":{"$add":["$$value",{"$strLenBytes":"$name"},{"$abs":-1},{"$mod":["$$this",7]}]}}},0]}`
	for _, args := range [][]string{
		{"count", path, "c", `{"$expr":` + costly + `}`},
		{"find", path, "c", `{"$expr":` + costly + `}`},
		{"aggregate", path, "c", `[{"$group":{"_id":` + costly + `}}]`},
		{"diagnose", path, "c", `{"$expr":` + costly + `}`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInterrupt_CostlyExpr$")
		cmd.Env = append(os.Environ(), "OMGDB_TEST_COSTLY="+strings.Join(args, "\x1f"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		time.Sleep(500 * time.Millisecond) // past interruptAfter: Ctrl-C cancels
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if took := time.Since(sent); took > time.Second {
				t.Errorf("%s: ended %v after Ctrl-C", args[0], took.Round(time.Millisecond))
			}
			if err == nil {
				t.Errorf("%s: exited 0 after Ctrl-C: %s", args[0], out.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%s: still running 10 s after Ctrl-C", args[0])
		}
	}
}

package store_test

import (
	"os"
	"testing"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestMain lets the test binary run as the child process of the crash and
// fault tests (crashtest.Main returns at once otherwise).
func TestMain(m *testing.M) {
	crashtest.Main(map[string]crashtest.Workload{
		"writer":    crashWriter,
		"faults":    faultChild,
		"compactor": compactChild,
		"sortfault": sortFaultChild,
	})
	crashtest.ChildrenExitAtOnce()
	os.Exit(m.Run())
}

package changes_test

import (
	"os"
	"testing"

	"github.com/omgdb/omgdb/internal/crashtest"
)

func TestMain(m *testing.M) {
	crashtest.ChildrenExitAtOnce()
	os.Exit(m.Run())
}

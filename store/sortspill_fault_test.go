package store_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/faults"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestFault_SortSpillFails: a sort whose temporary files hit a full disk
// (RLIMIT_FSIZE below the size of one run) fails with an I/O error that
// names the temporary files and says what to do, returns no document,
// leaves no file behind, and leaves the store as it was.
func TestFault_SortSpillFails(t *testing.T) {
	if !faults.Supported() {
		t.Skip("fault injection needs Linux on amd64 or arm64")
	}
	dir := t.TempDir()
	path, spillDir := filepath.Join(dir, "s.omgdb"), filepath.Join(dir, "spill")
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for i := range 300 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"k":%d,"pad":"%s"}`, i, (i*37)%300, strings.Repeat("p", 400)))
	}
	storetest.Insert(t, db, "c", docs...)
	db.Close()
	before := dumpOf(t, path)
	if err := os.Mkdir(spillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := crashtest.Complete("sortfault", []string{path, spillDir})
	if err != nil {
		t.Fatal(err)
	}
	report := strings.Join(o.Lines, "\n")
	for _, want := range []string{"docs 0", "kind io", "temporary files", "file too large", "hint free space in the temporary directory"} {
		if !strings.Contains(report, want) {
			t.Errorf("the child's report lacks %q:\n%s", want, report)
		}
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Errorf("%d temporary files left behind", len(left))
	}
	if after := dumpOf(t, path); string(after) != string(before) {
		t.Error("the store changed")
	}
}

// sortFaultChild sorts collection c of the store args[0], spilling to
// args[1] under a file-size limit below one run, and reports: ready, then
// "docs <n>" (documents returned), "kind <kind>", "error <message>" and
// "hint <hint>".
func sortFaultChild(w io.Writer, args []string) error {
	db, err := store.Open(args[0], nil)
	if err != nil {
		return err
	}
	defer db.Close()
	say := func(format string, a ...any) { io.WriteString(w, fmt.Sprintf(format, a...)+"\n") }
	say("ready")
	if err := faults.LimitFileSize(16 << 10); err != nil {
		return err
	}
	s, err := query.CompileSort(value.MustParse(`{"k":1}`))
	if err != nil {
		return err
	}
	var n int
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		src := c.Find(context.Background(), store.Query{Sort: s, MaxSortBytes: 64 << 10, SpillDir: args[1]})
		defer src.Close()
		for src.Next() {
			n++
		}
		return src.Err()
	})
	say("docs %d", n)
	say("kind %s", errs.KindOf(err))
	say("error %v", err)
	say("hint %s", errs.HintOf(err))
	return nil
}

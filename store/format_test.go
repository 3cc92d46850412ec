package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// testdata/format1.omgdb was written by omgdb before format 2 (by the
// `import` and `create-index` of the code of 25 November 2026): one
// collection c with an index on n.
const format1Dump = `{"collection":"c"}
{"collection":"c","document":{"_id":1,"n":5,"d":2.5,"at":{"$date":1747785600000},"bin":{"$binary":"AAEC"},"tags":["a","b"],"big":9007199254740993}}
{"collection":"c","document":{"_id":2,"n":-7,"d":{"$numberDouble":"NaN"},"o":{"x":null}}}
{"collection":"c","document":{"_id":"three","n":1e+300}}
{"collection":"c","index":{"name":"n_1","kind":"btree","spec":{"fields":[{"path":"n"}]}}}
`

func copyFormat1(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/format1.omgdb")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.omgdb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dumpDB returns the dump of an open store.
func dumpDB(t *testing.T, db *store.DB) string {
	t.Helper()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestOpen_Format1ReadOnlyIsLeftAsItIs(t *testing.T) {
	path := copyFormat1(t)
	before, _ := os.ReadFile(path)
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if db.Format() != 1 {
		t.Errorf("format %d, want 1", db.Format())
	}
	if got := dumpDB(t, db); got != format1Dump {
		t.Errorf("dump of the format 1 store =\n%s\nwant\n%s", got, format1Dump)
	}
	db.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a read-only open changed the file")
	}
}

func TestOpen_Format1IsUpgradedForWriting(t *testing.T) {
	path := copyFormat1(t)
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if db.Format() != store.FormatVersion || store.FormatVersion != 2 {
		t.Errorf("format %d after a writable open, want 2", db.Format())
	}
	if got := dumpDB(t, db); got != format1Dump {
		t.Errorf("dump after the upgrade =\n%s\nwant\n%s", got, format1Dump)
	}
	// The old index keeps serving, and values of the new types go in.
	err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		_, err = c.Insert(value.MustParse(`{"_id":4,"n":{"$numberDecimal":"5.0"},"i":{"$numberInt":"5"}}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := query.CompileFilter(value.MustParse(`{"n":{"$numberInt":"5"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(findIDs(t, db, store.Query{Filter: f}, nil), " "); got != "1 4" {
		t.Errorf("find n = int 5 gives %s, want 1 4", got)
	}
	report, err := db.Verify(context.Background())
	if err != nil || !report.OK {
		t.Fatalf("verify after the upgrade: %v %+v", err, report)
	}
	db.Close()
	db, err = store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Format() != 2 {
		t.Errorf("reopened format %d, want 2", db.Format())
	}
	if got := dumpDB(t, db); !strings.Contains(got, `{"_id":4,"n":{"$numberDecimal":"5.0"},"i":{"$numberInt":"5"}}`) {
		t.Errorf("the new document did not keep its types:\n%s", got)
	}
}

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

// TestPaths_Confinement: no argument reaches a file outside the root,
// through .., absolute paths or symlinks; non-regular files are refused;
// a read-scope server creates nothing.
func TestPaths_Confinement(t *testing.T) {
	outside := t.TempDir()
	makeStore(t, filepath.Join(outside, "secret.omgdb"), map[string][]string{"s": {`{"_id":1,"secret":"x"}`}})
	f := newFixture(t, Config{})
	f.standardStore()
	os.Mkdir(filepath.Join(f.root, "sub"), 0o755)
	os.Symlink(filepath.Join(outside, "secret.omgdb"), filepath.Join(f.root, "link.omgdb"))
	os.Symlink(outside, filepath.Join(f.root, "sub", "out"))
	os.Symlink(filepath.Join(f.root, "app.omgdb"), filepath.Join(f.root, "sub", "in.omgdb"))
	os.Symlink("../app.omgdb", filepath.Join(f.root, "sub", "rel.omgdb"))
	if err := syscall.Mkfifo(filepath.Join(f.root, "fifo.omgdb"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, code, msg string }{
		{"../" + filepath.Base(outside) + "/secret.omgdb", CodePathDenied, "leaves the server root"},
		{filepath.Join(outside, "secret.omgdb"), CodePathDenied, "is outside the server root"},
		{"link.omgdb", CodePathDenied, "outside the server root"},
		{"sub/out/secret.omgdb", CodePathDenied, "outside the server root"},
		{"sub/../../x.omgdb", CodePathDenied, "leaves the server root"},
		{"sub", CodePathDenied, "is a directory"},
		{"fifo.omgdb", CodePathDenied, "is a FIFO"},
		{".", CodePathDenied, "root directory"},
		{"missing.omgdb", CodeNotFound, "store not found: missing.omgdb"},
		{"sub/in.omgdb", "", ""}, // symlinks that stay inside are fine
		{"sub/rel.omgdb", "", ""},
		{filepath.Join(f.root, "app.omgdb"), "", ""},
		{"./sub/../app.omgdb", "", ""},
	} {
		res := f.callTool("count", `{"path":`+quote(tc.path)+`,"collection":"users"}`)
		if got := errorCode(res); got != tc.code || !strings.Contains(resultText(res), tc.msg) {
			t.Errorf("path %s: code %q, text %q; want %q containing %q", tc.path, got, resultText(res), tc.code, tc.msg)
		}
		if strings.Contains(resultText(res), f.root) || !strings.Contains(tc.path, outside) && strings.Contains(resultText(res), outside) {
			t.Errorf("path %s: the message reveals an absolute path: %s", tc.path, resultText(res))
		}
	}
	mustNotExist(t, filepath.Join(f.root, "missing.omgdb"))
}

// TestPaths_NotFoundListsStores: a missing store's error lists the stores
// under the root (three levels deep, hidden directories skipped).
func TestPaths_NotFoundListsStores(t *testing.T) {
	f := newFixture(t, Config{})
	os.MkdirAll(filepath.Join(f.root, "data", "old"), 0o755)
	os.MkdirAll(filepath.Join(f.root, ".git"), 0o755)
	for _, p := range []string{"data/shop.omgdb", "data/old/crm.omgdb", ".git/hidden.omgdb"} {
		makeStore(t, filepath.Join(f.root, p), map[string][]string{"c": {`{"_id":1}`}})
	}
	res := f.callTool("describe", `{"path":"nothing.omgdb"}`)
	if want := "stores under the server root: data/old/crm.omgdb, data/shop.omgdb"; !strings.Contains(resultText(res), want) {
		t.Errorf("got %q, want it to contain %q", resultText(res), want)
	}
	res = f.callTool("describe", `{"path":"data/shp.omgdb"}`)
	if want := "did you mean data/shop.omgdb?"; !strings.Contains(resultText(res), want) {
		t.Errorf("got %q, want %q", resultText(res), want)
	}
}

// TestPaths_Pinned: with --store, path may be omitted or name that store;
// any other is refused.
func TestPaths_Pinned(t *testing.T) {
	dir := t.TempDir()
	pinned := filepath.Join(dir, "app.omgdb")
	makeStore(t, pinned, map[string][]string{"users": {`{"_id":1}`}})
	makeStore(t, filepath.Join(dir, "other.omgdb"), map[string][]string{"users": {`{"_id":1}`, `{"_id":2}`}})
	f := newFixture(t, Config{Store: pinned})
	for _, args := range []string{`{"collection":"users"}`, `{"path":` + quote(pinned) + `,"collection":"users"}`, `{"path":"app.omgdb","collection":"users"}`} {
		res := f.callTool("count", args)
		if sc := structured(t, res); sc["count"] != 1.0 {
			t.Errorf("%s: %v", args, sc)
		}
	}
	res := f.callTool("count", `{"path":`+quote(filepath.Join(dir, "other.omgdb"))+`,"collection":"users"}`)
	if errorCode(res) != CodePathDenied {
		t.Errorf("another store was not refused: %v", res)
	}
	for _, tl := range f.srv.tools {
		if tl.param("path").Required {
			t.Errorf("%s: path is required although the store is pinned", tl.Name)
		}
	}
}

// TestPaths_ReadScopeCreatesNothing: even a write tool allowed by
// read-write scope creates stores only with the .omgdb suffix, and reads
// never create one.
func TestPaths_CreateOnlyOnWrite(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	for _, tl := range []string{"describe", "find", "count"} {
		f.callTool(tl, `{"path":"new.omgdb","collection":"c"}`)
	}
	mustNotExist(t, filepath.Join(f.root, "new.omgdb"))
	if res := f.callTool("insert", `{"path":"new.txt","collection":"c","document":{}}`); errorCode(res) != CodeInvalidArgument {
		t.Errorf("insert into new.txt: %v", res)
	}
	mustNotExist(t, filepath.Join(f.root, "new.txt"))
	if res := f.callTool("insert", `{"path":"new.omgdb","collection":"c","document":{"$bad":1}}`); errorCode(res) != CodeInvalidArgument {
		t.Errorf("invalid document: %v", res)
	}
	mustNotExist(t, filepath.Join(f.root, "new.omgdb"))
	if res := f.callTool("insert", `{"path":"new.omgdb","collection":"c","document":{"a":1}}`); errorCode(res) != "" {
		t.Fatalf("insert into a new store: %v", res)
	}
	if res := f.callTool("count", `{"path":"new.omgdb","collection":"c"}`); structured(t, res)["count"] != 1.0 {
		t.Errorf("count after insert: %v", res)
	}
	if entries, _ := os.ReadDir(f.root); len(entries) != 1 || entries[0].Name() != "new.omgdb" {
		t.Errorf("the root holds %v, want only new.omgdb (no temporary file left)", entries)
	}
	db, err := store.Open(filepath.Join(f.root, "new.omgdb"), &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.MustVerify(t, db)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

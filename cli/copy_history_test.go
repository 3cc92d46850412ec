package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// historySource builds a store file with a varied journal, one change
// per step: inserts (an int, a long and a double _id, arrays, a null
// field), an import, a plan-update applied (a field unset: null against
// missing), a delete, create-index, an insert into a new collection and
// the rollback of it (which drops the collection again), and, when
// fileOnly is true, decimal128 values and an array of arrays (the test
// server can store neither). It returns the path and the change ids,
// oldest first.
func historySource(t *testing.T, fileOnly bool) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "src.omgdb")
	dec, nested := `"n":{"$numberDouble":"2.5"}`, `{"k":null}`
	if fileOnly {
		dec, nested = `"n":{"$numberDecimal":"1.10"}`, `["b"]`
	}
	mustRun(t, "insert", path, "users", `{"_id":1,"name":"ana","age":{"$numberInt":"30"},"tags":["a",`+nested+`,{"k":null}],"nick":null}`)
	mustRun(t, "insert", path, "users", `{"_id":{"$numberLong":"2"},"name":"bob","age":{"$numberLong":"9007199254740993"},"score":1.5}`)
	if code, _, stderr := runCLI(t, `{"_id":{"$numberDouble":"2.5"},"name":"cy",`+dec+`}`+"\n"+`{"_id":4,"name":"dee","tags":[]}`+"\n", "import", path, "users", "-"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	mustRun(t, "update", path, "users", `{"_id":1}`, `{"$set":{"age":31,"tags.0":"z"},"$unset":{"nick":""}}`, "--one")
	mustRun(t, "delete", path, "users", `{"_id":4}`, "--one")
	mustRun(t, "create-index", path, "users", "name")
	mustRun(t, "insert", path, "other", `{"_id":"x","v":[1,2]}`)
	hist := historyLines(t, path)
	mustRun(t, "rollback", path, hist[0]["change"].(string))
	mustRun(t, "update", path, "users", `{"_id":{"$numberLong":"2"}}`, `{"$set":{"score":{"$numberInt":"2"}}}`, "--one")
	hist = historyLines(t, path)
	ids := make([]string, len(hist))
	for i, h := range hist {
		ids[len(hist)-1-i] = h["change"].(string)
	}
	return path, ids
}

// historyLines reads `omgdb history`, newest first.
func historyLines(t *testing.T, store string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, "history", store)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("history line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// historyKey is what both engines' history says of a change alike.
func historyKey(h map[string]any) string {
	return fmt.Sprintf("%v %v %v ins=%v upd=%v del=%v note=%q time=%v actor=%v", h["change"], h["kind"], h["status"], h["inserted"], h["updated"], h["deleted"], h["note"], h["time"], h["actor"])
}

func historyKeys(t *testing.T, store string) []string {
	t.Helper()
	var out []string
	for _, h := range historyLines(t, store) {
		out = append(out, historyKey(h))
	}
	return out
}

// TestCopyHistory_RoundTripFerretDB copies a store file with a varied
// journal into the test server with --history and back: each side's
// history lists the same changes (ids, kinds, counts, notes, times,
// actors), find --at gives the same documents at every revision (a
// file's lsn n is the deployment's seq n: one change each), diff gives
// the same documents, the copy back's history and dump equal the
// original's, and rollback of a carried change works on the deployment.
func TestCopyHistory_RoundTripFerretDB(t *testing.T) {
	src, ids := historySource(t, false)
	uri := mongotest.Own(t).URI + "hist"
	sum := parseCopySummary(t, mustRun(t, "copy", src, uri, "--history"))
	if !sum.Verified || len(sum.Collections) != 1 || sum.Collections[0].Name != "users" {
		t.Fatalf("copy --history into MongoDB: %+v", sum)
	}
	want := historyKeys(t, src)
	if got := historyKeys(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history on the deployment:\n%s\nwant (as on the file):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for rev := 1; rev <= len(ids); rev++ {
		for _, coll := range []string{"users", "other"} {
			at := fmt.Sprint(rev)
			fc, fout, _ := runCLI(t, "", "find", src, coll, "--at", at, "--ejson", "canonical")
			mc, mout, _ := runCLI(t, "", "find", uri, coll, "--at", at, "--ejson", "canonical")
			if fc != mc || fout != mout {
				t.Errorf("find %s --at %s: the deployment gives exit %d\n%s\nthe file exit %d\n%s", coll, at, mc, mout, fc, fout)
			}
		}
	}
	// By change id and by time too.
	for _, id := range ids[:4] {
		if f, m := mustRun(t, "find", src, "users", "--at", id), mustRun(t, "find", uri, "users", "--at", id); f != m {
			t.Errorf("find --at %s: deployment\n%s\nfile\n%s", id, m, f)
		}
	}
	if f, m := diffDocs(mustRun(t, "diff", src, "2", "5")), diffDocs(mustRun(t, "diff", uri, "2", "5")); f != m || f == "" {
		t.Errorf("diff 2 5: deployment\n%s\nfile\n%s", m, f)
	}
	for _, rev := range []string{"3", ids[4]} {
		if f, m := mustRun(t, "count", src, "users", "--at", rev), mustRun(t, "count", uri, "users", "--at", rev); f != m {
			t.Errorf("count --at %s: deployment %s, file %s", rev, m, f)
		}
	}

	back := filepath.Join(t.TempDir(), "back.omgdb")
	sum = parseCopySummary(t, mustRun(t, "copy", uri, back, "--history"))
	if !sum.Verified {
		t.Fatalf("copy --history back: %+v", sum)
	}
	if got, want := mustRun(t, "dump", back), mustRun(t, "dump", src); got != want {
		t.Fatalf("dump after the round trip:\n%s\nwant:\n%s", got, want)
	}
	if got, want := mustRun(t, "history", back), mustRun(t, "history", src); got != want {
		t.Fatalf("history after the round trip:\n%s\nwant:\n%s", got, want)
	}
	if got, want := mustRun(t, "log", back), mustRun(t, "log", src); got != want {
		t.Errorf("log after the round trip:\n%s\nwant:\n%s", got, want)
	}
	mustRun(t, "verify", back)

	// Rollback of a carried change (the plan-update of _id 1) on the
	// deployment puts the before-image back, as on the file.
	mustRun(t, "rollback", uri, ids[3])
	mustRun(t, "rollback", src, ids[3])
	if f, m := mustRun(t, "find", src, "users", `{"_id":1}`), mustRun(t, "find", uri, "users", `{"_id":1}`); f != m || !strings.Contains(m, `"nick":null`) {
		t.Errorf("after rollback of the carried update: deployment %s, file %s", m, f)
	}
}

// diffDocs keeps diff's document lines, leaving out the summary (lsn on
// a file, seq on a deployment).
func diffDocs(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "{") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

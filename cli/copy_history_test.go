package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// looseKeys is historyKeys without the counts.
func looseKeys(t *testing.T, store string) []string {
	t.Helper()
	var out []string
	for _, h := range historyLines(t, store) {
		h["inserted"], h["updated"], h["deleted"] = nil, nil, nil
		out = append(out, historyKey(h))
	}
	return out
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
	t.Parallel()
	src, ids := historySource(t, false)
	mustRun(t, "snapshot", "create", src, "after-update", "--at", ids[3])
	mustRun(t, "snapshot", "create", src, "at-start", "--at", "0")
	uri := mongotest.Own(t).URI + "hist"
	out := mustRun(t, "copy", src, uri, "--history")
	if !strings.Contains(out, `"history":{"changes":9,"snapshots":2}`) {
		t.Errorf("copy --history's summary: %s", out)
	}
	sum := parseCopySummary(t, out)
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
	mustRun(t, "verify", uri)
	times := map[string]string{}
	for _, h := range historyLines(t, src) {
		times[h["change"].(string)] = h["time"].(string)
	}
	for _, id := range ids[:5] {
		for _, at := range []string{id, times[id]} {
			if f, m := mustRun(t, "find", src, "users", "--at", at), mustRun(t, "find", uri, "users", "--at", at); f != m {
				t.Errorf("find --at %s: deployment\n%s\nfile\n%s", at, m, f)
			}
		}
	}
	for _, snap := range []string{"after-update", "at-start"} {
		fc, f, _ := runCLI(t, "", "find", src, "users", "--at", snap)
		mc, m, _ := runCLI(t, "", "find", uri, "users", "--at", snap)
		if fc != mc || f != m {
			t.Errorf("find --at %s: deployment exit %d\n%s\nfile exit %d\n%s", snap, mc, m, fc, f)
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
	if got, want := snapshotNames(t, back), snapshotNames(t, src); got != want || got != "at-start lsn 0\nafter-update lsn 4\n" {
		t.Errorf("snapshots after the round trip: %q, want %q", got, want)
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
	// The carried create-index was run on the server at its place in the
	// journal, and its rollback drops the index, as on the file.
	if got := mustRun(t, "indexes", uri, "users"); !strings.Contains(got, `"name":"name_1"`) {
		t.Fatalf("indexes on the deployment: %s", got)
	}
	mustRun(t, "rollback", uri, ids[5])
	mustRun(t, "rollback", src, ids[5])
	for _, store := range []string{src, uri} {
		if got := mustRun(t, "indexes", store, "users"); strings.Contains(got, "name_1") {
			t.Errorf("indexes of %s after the rollback of the carried create-index: %s", store, got)
		}
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

// TestCopyHistory_BadInputFerretDB: each source or target that copy
// --history cannot take is refused with its exit code and a hint,
// before anything is written.
func TestCopyHistory_BadInputFerretDB(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	src, _ := historySource(t, false)
	dir := t.TempDir()

	c := mongotest.Client(t, s.URI)
	withData := s.URI + "withdata"
	mongotest.Insert(t, c, "withdata", "x", `{"_id":1}`) // around omgdb: no history
	withHistory := s.URI + "withhist"
	mustRun(t, "insert", withHistory, "x", `{"_id":1}`)
	mustRun(t, "drop", withHistory, "x")

	reverted := filepath.Join(dir, "reverted.omgdb")
	mustRun(t, "insert", reverted, "a", `{"_id":1}`)
	mustRun(t, "insert", reverted, "b", `{"_id":2}`)
	var plan struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "revert", reverted, "0")), &plan); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "apply", reverted, plan.Token)
	mustRun(t, "insert", reverted, "a", `{"_id":3}`)

	interrupted := s.URI + "interrupted"
	mustRun(t, "insert", interrupted, "a", `{"_id":1}`)
	if _, err := c.Database("interrupted").Collection("omgdb.changes").UpdateMany(context.Background(), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "applying"}}}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"target with documents", []string{"copy", src, withData, "--history"}, 69, "/withdata is not empty (1 collection(s)): copy --history replays the source's journal into an empty database"},
		{"target with history only", []string{"copy", src, withHistory, "--history"}, 69, "/withhist is not empty (0 collection(s) and omgdb history)"},
		{"resume onto another journal", []string{"copy", src, withHistory, "--history", "--resume"}, 69, "--resume: the target's journal holds change "},
		{"file target with history", []string{"copy", src, reverted, "--history"}, 69, reverted + " is not empty ("},
		{"with --collections", []string{"copy", src, s.URI + "n1", "--history", "--collections", "users"}, 64, "--history copies every collection: it cannot be given with --collections"},
		{"a change of two collections into MongoDB", []string{"copy", reverted, s.URI + "n2", "--history"}, 64, "change " + plan.Token + " (apply) of the source writes 2 collections (a, b): a change over MongoDB writes one"},
		{"interrupted change", []string{"copy", interrupted, filepath.Join(dir, "i.omgdb"), "--history"}, 69, "is applying: copy --history carries only finished changes"},
	}
	for _, tc := range cases {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "hint: ") || stdout != "" {
			t.Errorf("%s: exit %d, %q; want exit %d and %q with a hint", tc.name, code, stderr, tc.code, tc.stderr)
		}
	}
	// Nothing was written: the new databases and files are empty.
	for _, db := range []string{"n1", "n2"} {
		if names, err := c.Database(db).ListCollectionNames(context.Background(), bson.D{}); err != nil || len(names) > 0 {
			t.Errorf("a refused copy wrote into %s: %v %v", db, names, err)
		}
	}
	for _, f := range []string{"i.omgdb"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused copy left %s", f)
		}
	}
	if got := mustRun(t, "count", withData, "x"); got != "1\n" {
		t.Errorf("the refused target's collection: %q", got)
	}
}

// TestCopyHistory_FromFerretDB copies a deployment's journal into a
// store file: its changes (inserts, a plan applied, create-index made
// over MongoDB, a delete and its rollback, a drop and its rollback, a
// rename, a drop) come with their ids, kinds,
// counts, times and actors, find --at gives the same documents at each
// seq as the file at each lsn, history --id gives the same versions, and
// the documents written around omgdb (one in a journaled collection, a
// whole collection) come last as one change of kind copy per collection.
func TestCopyHistory_FromFerretDB(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	uri := s.URI + "msrc"
	mustRun(t, "insert", uri, "users", `{"_id":1,"a":[1,{"b":null}],"n":null}`)
	mustRun(t, "insert", uri, "users", `{"_id":2,"n":{"$numberLong":"9007199254740993"},"d":1.5}`)
	mustRun(t, "update", uri, "users", `{"_id":1}`, `{"$set":{"n":{"$numberInt":"7"}},"$unset":{"a":""}}`, "--one")
	mustRun(t, "create-index", uri, "users", "n")
	mustRun(t, "delete", uri, "users", `{"_id":2}`, "--one")
	mustRun(t, "rollback", uri, historyLines(t, uri)[0]["change"].(string))
	// Schema changes made over MongoDB: a drop and its rollback, a
	// rename, and a drop that stays.
	mustRun(t, "insert", uri, "tmp", `{"_id":1,"x":[1,2]}`)
	mustRun(t, "create-index", uri, "tmp", "x")
	mustRun(t, "drop", uri, "tmp")
	mustRun(t, "rollback", uri, historyLines(t, uri)[0]["change"].(string))
	restored := len(historyLines(t, uri)) // the seq of the drop's rollback
	mustRun(t, "rename", uri, "tmp", "tmp2")
	renamed := restored + 1
	mustRun(t, "drop", uri, "tmp2")
	c := mongotest.Client(t, s.URI)
	mongotest.Insert(t, c, "msrc", "users", `{"_id":3,"around":true}`)
	mongotest.Insert(t, c, "msrc", "raw", `{"_id":1}`)
	want, wantLoose := historyKeys(t, uri), looseKeys(t, uri)

	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	out := mustRun(t, "copy", uri, dst, "--history")
	if !strings.Contains(out, `"history":{"changes":12,"settled":2}`) || !parseCopySummary(t, out).Verified {
		t.Fatalf("copy --history from the deployment: %s", out)
	}
	// The same changes; the counts of the six document changes too (a
	// schema change over MongoDB counts no document; on a file, a
	// rename counts the documents it moved).
	got, gotLoose := historyKeys(t, dst), looseKeys(t, dst)
	if len(got) != len(want)+2 || strings.Join(gotLoose[2:], "\n") != strings.Join(wantLoose, "\n") ||
		strings.Join(got[len(got)-6:], "\n") != strings.Join(want[len(want)-6:], "\n") {
		t.Fatalf("history of the file:\n%s\nwant two copy changes, then (as on the deployment):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, h := range historyLines(t, dst)[:2] {
		coll := []string{"users", "raw"}[i] // newest first; raw was settled first
		if h["kind"] != "copy" || h["inserted"] != float64(1) || h["note"] != "copy: documents the journal does not account for" || fmt.Sprint(h["collections"]) != "["+coll+"]" {
			t.Errorf("change %d of the file: %v, want the copy of %s's document written around omgdb", i, h, coll)
		}
	}
	// The deployment sees the document written around omgdb at every
	// revision (it is in no change); the file from its copy change on.
	for rev := 1; rev <= 6; rev++ {
		at, journaled := fmt.Sprint(rev), `{"_id":{"$ne":3}}`
		if f, m := mustRun(t, "find", dst, "users", journaled, "--at", at, "--ejson", "canonical"), mustRun(t, "find", uri, "users", journaled, "--at", at, "--ejson", "canonical"); f != m {
			t.Errorf("find --at %s: file\n%s\ndeployment\n%s", at, f, m)
		}
	}
	for _, id := range []string{"1", "2"} {
		f := mustRun(t, "history", dst, "--id", id, "--coll", "users")
		m := strings.ReplaceAll(mustRun(t, "history", uri, "--id", id, "--coll", "users"), `"seq":`, `"lsn":`)
		if f != m || f == "" {
			t.Errorf("history --id %s: file\n%s\ndeployment\n%s", id, f, m)
		}
	}
	if got := mustRun(t, "indexes", dst, "users"); !strings.Contains(got, `"name":"n_1"`) {
		t.Errorf("indexes of the file: %s", got)
	}
	// The file follows the schema changes in time: the dropped
	// collection came back with its index, then moved, then went.
	for rev, coll := range map[int]string{restored: "tmp", renamed: "tmp2"} {
		if got := mustRun(t, "find", dst, coll, "--at", fmt.Sprint(rev)); got != `{"_id":1,"x":[1,2]}`+"\n" {
			t.Errorf("find %s --at %d on the file: %q", coll, rev, got)
		}
	}
	for _, coll := range []string{"tmp", "tmp2"} {
		if code, _, _ := runCLI(t, "", "find", dst, coll); code != 66 {
			t.Errorf("%s on the file: exit %d, want 66 (dropped)", coll, code)
		}
	}
	mustRun(t, "verify", dst)

	// Into another database of the deployment: the same history (its
	// schema changes run again there), the same documents, and the
	// drop's rollback, carried, left tmp's index.
	uri2 := s.URI + "mdst"
	out = mustRun(t, "copy", uri, uri2, "--history")
	if !strings.Contains(out, `"history":{"changes":12,"settled":2}`) {
		t.Fatalf("copy --history between databases: %s", out)
	}
	if got := historyKeys(t, uri2); len(got) != len(want)+2 || strings.Join(got[2:], "\n") != strings.Join(want, "\n") {
		t.Errorf("history of the other database:\n%s\nwant two copy changes, then:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := mustRun(t, "find", uri2, "users"), mustRun(t, "find", uri, "users"); got != want {
		t.Errorf("users in the other database:\n%s\nwant:\n%s", got, want)
	}
	mustRun(t, "verify", uri2)
	mustRun(t, "rollback", uri2, historyLines(t, uri)[0]["change"].(string)) // the drop of tmp2
	if got := mustRun(t, "find", uri2, "tmp2") + mustRun(t, "indexes", uri2, "tmp2"); !strings.Contains(got, `{"_id":1,"x":[1,2]}`) || !strings.Contains(got, `"name":"x_1"`) {
		t.Errorf("tmp2 after the rollback of its carried drop in the other database: %s", got)
	}
}

// TestCopyHistory_FileToFile carries a journal between two store files,
// with what the test server cannot hold (decimal128, arrays of arrays)
// and a dropped collection: dump, history, log and every revision equal.
func TestCopyHistory_FileToFile(t *testing.T) {
	t.Parallel()
	src, ids := historySource(t, true)
	mustRun(t, "insert", src, "gone", `{"_id":1,"x":{"$numberDecimal":"-0.0"}}`)
	mustRun(t, "create-index", src, "gone", "x")
	mustRun(t, "drop", src, "gone")
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	out := mustRun(t, "copy", src, dst, "--history")
	if !strings.Contains(out, fmt.Sprintf(`"history":{"changes":%d}`, len(ids)+3)) {
		t.Fatalf("copy --history: %s", out)
	}
	for _, cmd := range []string{"dump", "history", "log"} {
		if got, want := mustRun(t, cmd, dst), mustRun(t, cmd, src); got != want {
			t.Errorf("%s of the copy:\n%s\nwant:\n%s", cmd, got, want)
		}
	}
	for rev := 1; rev <= len(ids)+3; rev++ {
		for _, coll := range []string{"users", "gone"} {
			fc, fout, _ := runCLI(t, "", "find", src, coll, "--at", fmt.Sprint(rev), "--ejson", "canonical")
			tc, tout, _ := runCLI(t, "", "find", dst, coll, "--at", fmt.Sprint(rev), "--ejson", "canonical")
			if fc != tc || fout != tout {
				t.Errorf("find %s --at %d: copy exit %d\n%s\nsource exit %d\n%s", coll, rev, tc, tout, fc, fout)
			}
		}
	}
	if !strings.Contains(mustRun(t, "find", dst, "users", "--at", "3"), `{"$numberDecimal":"1.10"}`) {
		t.Error("the decimal is not in the copy's past")
	}
	mustRun(t, "verify", dst)
	// The drop rolls back on the copy as on the source.
	drop := historyLines(t, dst)[0]["change"].(string)
	mustRun(t, "rollback", dst, drop)
	if got := mustRun(t, "indexes", dst, "gone"); !strings.Contains(got, `"name":"x_1"`) {
		t.Errorf("indexes after the rollback of the carried drop: %s", got)
	}
}

// snapshotNames lists a store file's snapshots: name and lsn.
func snapshotNames(t *testing.T, store string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "snapshot", "list", store)), "\n") {
		var s struct {
			Name string `json:"name"`
			LSN  int    `json:"lsn"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("snapshot list line %q: %v", l, err)
		}
		fmt.Fprintf(&b, "%s lsn %d\n", s.Name, s.LSN)
	}
	return b.String()
}

// TestCopyHistory_PrunedFerretDB copies a store file whose journal was
// pruned (compact --history-before) into the test server and back: the
// target starts with the state at the cut (one change of kind copy per
// collection, pruned again at the end, so the target keeps the cut),
// then the kept changes: history equal, find --at each kept change
// equal, a revision before the cut refused, dump equal.
func TestCopyHistory_PrunedFerretDB(t *testing.T) {
	t.Parallel()
	src, ids := historySource(t, false)
	mustRun(t, "compact", src, "--history-before", "3", "--yes")
	kept := ids[3:]
	uri := mongotest.Own(t).URI + "pruned"
	out := mustRun(t, "copy", src, uri, "--history")
	if !strings.Contains(out, fmt.Sprintf(`"history":{"changes":%d,"cut":"lsn 3"}`, len(kept)+1)) || !parseCopySummary(t, out).Verified {
		t.Fatalf("copy --history of a pruned journal: %s", out)
	}
	want := historyKeys(t, src)
	if got := historyKeys(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(kept) {
		t.Fatalf("history on the deployment:\n%s\nwant (as on the file):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, id := range kept {
		fc, f, _ := runCLI(t, "", "find", src, "users", "--at", id, "--ejson", "canonical")
		mc, m, _ := runCLI(t, "", "find", uri, "users", "--at", id, "--ejson", "canonical")
		if fc != mc || f != m {
			t.Errorf("find --at %s: deployment exit %d\n%s\nfile exit %d\n%s", id, mc, m, fc, f)
		}
	}
	if f, m := mustRun(t, "find", src, "users", "--at", "3"), mustRun(t, "find", uri, "users", "--at", "1"); f != m || f == "" {
		t.Errorf("the state at the cut: deployment (seq 1)\n%s\nfile (lsn 3)\n%s", m, f)
	}
	for _, store := range []string{src, uri} {
		if code, _, stderr := runCLI(t, "", "find", store, "users", "--at", "0"); code != 66 || !strings.Contains(stderr, "before the history") {
			t.Errorf("find --at 0 on %s, before the cut: exit %d, %s", store, code, stderr)
		}
	}
	for _, back := range []string{uri, src} {
		dst := filepath.Join(t.TempDir(), "back.omgdb")
		out := mustRun(t, "copy", back, dst, "--history")
		if !strings.Contains(out, `"cut":"`) {
			t.Errorf("copy --history from %s: %s", back, out)
		}
		if got := historyKeys(t, dst); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("history of the copy from %s:\n%s\nwant:\n%s", back, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := mustRun(t, "dump", dst), mustRun(t, "dump", src); got != want {
			t.Errorf("dump of the copy from %s:\n%s\nwant:\n%s", back, got, want)
		}
		if code, _, _ := runCLI(t, "", "find", dst, "users", "--at", "0"); code != 66 {
			t.Errorf("the copy from %s does not keep the cut: find --at 0 exits %d", back, code)
		}
		mustRun(t, "verify", dst)
	}
}

// TestCopyHistory_SchemaFerretDB carries a file's drops and renames (one
// with --drop-target) into the test server, where they become MongoDB's
// own (the collection renamed aside or in place, so that rollback there
// brings back documents and indexes), and back: the file's history, log
// and dump after the round trip equal the original's.
func TestCopyHistory_SchemaFerretDB(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src.omgdb")
	mustRun(t, "insert", src, "a", `{"_id":1,"v":[1,null]}`)
	mustRun(t, "create-index", src, "a", "v")
	mustRun(t, "insert", src, "b", `{"_id":2,"w":{"$numberLong":"5"}}`)
	mustRun(t, "rename", src, "a", "c")
	mustRun(t, "insert", src, "d", `{"_id":3}`)
	mustRun(t, "rename", src, "b", "d", "--drop-target")
	mustRun(t, "insert", src, "e", `{"_id":4}`)
	mustRun(t, "create-index", src, "e", "x")
	mustRun(t, "drop", src, "e")
	hist := historyLines(t, src)
	uri := mongotest.Own(t).URI + "schema"
	if out := mustRun(t, "copy", src, uri, "--history"); !parseCopySummary(t, out).Verified {
		t.Fatalf("copy --history: %s", out)
	}
	if got, want := looseKeys(t, uri), looseKeys(t, src); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history on the deployment:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mustRun(t, "verify", uri)
	back := filepath.Join(t.TempDir(), "back.omgdb")
	mustRun(t, "copy", uri, back, "--history")
	for _, cmd := range []string{"dump", "history", "log"} {
		if got, want := mustRun(t, cmd, back), mustRun(t, cmd, src); got != want {
			t.Errorf("%s after the round trip:\n%s\nwant:\n%s", cmd, got, want)
		}
	}
	// Rollbacks on the deployment, newest first: the drop of e brings e
	// back with its index, the rename of b over d brings d back, the
	// rename of a brings a back.
	mustRun(t, "rollback", uri, hist[0]["change"].(string))
	if got := mustRun(t, "find", uri, "e") + mustRun(t, "indexes", uri, "e"); !strings.Contains(got, `{"_id":4}`) || !strings.Contains(got, `"name":"x_1"`) {
		t.Errorf("e after the rollback of its carried drop: %s", got)
	}
	mustRun(t, "rollback", uri, hist[3]["change"].(string))
	if got := mustRun(t, "find", uri, "d") + mustRun(t, "find", uri, "b"); got != `{"_id":3}`+"\n"+`{"_id":2,"w":5}`+"\n" {
		t.Errorf("b and d after the rollback of the carried rename: %q", got)
	}
	mustRun(t, "rollback", uri, hist[5]["change"].(string))
	if got := mustRun(t, "find", uri, "a") + mustRun(t, "indexes", uri, "a"); !strings.Contains(got, `{"_id":1,"v":[1,null]}`) || !strings.Contains(got, `"name":"v_1"`) {
		t.Errorf("a after the rollback of the carried rename: %s", got)
	}
}

// TestCopyHistory_RefusedValueFerretDB: a value of the history that the
// test server cannot store (an array of arrays) stops the copy at its
// change with exit 65, the server's reason and a hint; the changes
// before it are journaled whole, that one is not.
func TestCopyHistory_RefusedValueFerretDB(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src.omgdb")
	mustRun(t, "insert", src, "a", `{"_id":1}`)
	mustRun(t, "insert", src, "a", `{"_id":2,"m":[[1]]}`)
	uri := mongotest.Own(t).URI + "refused"
	code, _, stderr := runCLI(t, "", "copy", src, uri, "--history")
	if code != 65 || !strings.Contains(stderr, "refused a document of the change: ") || !strings.Contains(stderr, "nested arrays") ||
		!strings.Contains(stderr, "hint: the deployment cannot store a value of the source's history") || !strings.Contains(stderr, "1 change(s) carried in this run") {
		t.Fatalf("copy --history of a value the server cannot store: exit %d, %s", code, stderr)
	}
	if got := historyLines(t, uri); len(got) != 1 || got[0]["inserted"] != float64(1) {
		t.Errorf("history of the target: %v, want the first change only", got)
	}
}

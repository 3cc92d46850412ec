package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
)

// TestMongo_HistoryIDMatchesFile: `history --id` over MongoDB lists the
// versions of one document written through omgdb, newest first, as on a
// store file (the seq in place of the lsn): the same writes made on both
// give the same operations and documents, type for type; a write made
// around omgdb (the deployment's fixture, inserted by the driver) is no
// version; an _id the journal never wrote is not found (exit 66).
func TestMongo_HistoryIDMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	writes := [][]string{
		{"insert", "users", `{"_id":9,"n":{"$numberInt":"1"},"tags":["a",null],"l":{"$numberLong":"5"}}`},
		{"update", "users", `{"_id":9}`, `{"$inc":{"n":{"$numberLong":"2"}},"$unset":{"l":""}}`},
		{"update", "users", `{"_id":1}`, `{"$set":{"age":30.5}}`},
		{"delete", "users", `{"_id":9}`},
	}
	for _, w := range writes {
		for _, store := range []string{file, uri} {
			args := append([]string{w[0], store}, w[1:]...)
			if code, _, stderr := runCLI(t, "", args...); code != 0 {
				t.Fatalf("omgdb %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
	}
	// strip leaves what both stores share: op, collection, actor, doc (a
	// change's kind over MongoDB is the journal's, apply for a one-step
	// update or delete, as history prints it there).
	strip := func(out string) string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			for _, k := range []string{"lsn", "seq", "change", "time", "kind"} {
				delete(m, k)
			}
			js, _ := json.Marshal(m)
			lines = append(lines, string(js))
		}
		return strings.Join(lines, "\n")
	}
	for _, args := range [][]string{
		{"--id", "9"},
		{"--id", "9", "--coll", "users", "--limit", "2"},
		{"--id", "9", "--ejson", "canonical"},
	} {
		fcode, fout, ferr := runCLI(t, "", append([]string{"history", file}, args...)...)
		mcode, mout, merr := runCLI(t, "", append([]string{"history", uri}, args...)...)
		if fcode != 0 || mcode != 0 || strip(fout) != strip(mout) {
			t.Errorf("history %v:\n file  exit %d: %s %s\n mongo exit %d: %s %s", args, fcode, fout, ferr, mcode, mout, merr)
		}
	}
	_, out, _ := runCLI(t, "", "history", uri, "--id", "9")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.Contains(lines[0], `"op":"delete"`) || !strings.Contains(lines[0], `"doc":null`) ||
		!strings.Contains(lines[2], `"op":"insert"`) || !strings.Contains(lines[0], `"seq":`) {
		t.Errorf("history --id 9 over MongoDB:\n%s", out)
	}
	// The fixture's document 1 was inserted around omgdb: only the update
	// made through omgdb is a version.
	code, out, stderr := runCLI(t, "", "history", uri, "--id", "1", "--coll", "users")
	if code != 0 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, `"age":30.5`) {
		t.Errorf("history --id 1 over MongoDB: exit %d\n%s%s", code, out, stderr)
	}
	for _, args := range [][]string{{"--id", "42"}, {"--id", "9", "--coll", "other"}} {
		code, _, stderr := runCLI(t, "", append([]string{"history", uri}, args...)...)
		if code != cli.ExitNotFound || !strings.Contains(stderr, "no history for _id") || !strings.Contains(stderr, "hint: ") {
			t.Errorf("history %v over MongoDB: exit %d, %q; want 66", args, code, stderr)
		}
	}
}

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// modeSeed is what each import-mode case starts from: ints, longs and
// doubles, arrays (empty too), null and missing fields, a nested document.
const modeSeed = `{"_id":1,"k":"a","n":1,"arr":[1,2],"z":null}
{"_id":2,"k":"b","n":{"$numberLong":"5"},"o":{"p":1}}
{"_id":3,"k":"c","n":2.5}
{"_id":4,"k":"b","n":0,"arr":[]}
`

var summaryChange = regexp.MustCompile(`"change":"([0-9a-f]{24})"`)

// TestMongo_ImportModesMatchFile runs import --mode upsert, merge and
// delete, with and without --upsertFields, on a store file and on the
// deployment, both seeded alike: the same summary, exit code and
// documents, type for type. Then rollback of the deployment's change
// must bring back exactly the seeded documents.
func TestMongo_ImportModesMatchFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.ndjson")
	if err := os.WriteFile(seed, []byte(modeSeed), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, input string
		flags       []string
		code        int
	}{
		{"upsert_by_id", `{"_id":1,"k":"A","n":{"$numberLong":"1"}}` + "\n" + `{"_id":9,"k":"new","a":[null]}` + "\n" + `{"_id":3,"k":"c","n":2.5}`, []string{"--mode", "upsert"}, 0},
		{"upsert_removes_fields", `{"_id":2}` + "\n" + `{"_id":4,"arr":null}`, []string{"--mode", "upsert"}, 0},
		{"merge_by_id", `{"_id":2,"z":null,"n":7}` + "\n" + `{"_id":1,"arr":[]}` + "\n" + `{"_id":10,"x":1.5}`, []string{"--mode", "merge"}, 0},
		{"delete_by_id", `{"_id":1}` + "\n" + `{"_id":3,"ignored":true}` + "\n" + `{"_id":99}`, []string{"--mode", "delete"}, 0},
		{"upsert_fields_implied", `{"k":"c","m":1}` + "\n" + `{"_id":20,"k":"zz"}`, []string{"--upsertFields", "k"}, 0},
		{"upsert_fields_first_match", `{"k":"b","n":8}`, []string{"--upsertFields", "k"}, 0},
		{"upsert_fields_long_matches_int", `{"n":5,"tag":"five"}`, []string{"--upsertFields", "n", "--mode", "merge"}, 0},
		{"upsert_fields_dotted", `{"o":{"p":1},"q":1}`, []string{"--upsertFields", "o.p", "--mode", "merge"}, 0},
		{"delete_by_fields", `{"k":"b"}` + "\n" + `{"k":"nope"}` + "\n" + `{"other":1}`, []string{"--mode", "delete", "--upsertFields", "k"}, 0},
		{"id_is_immutable_abort", `{"_id":9,"k":"x"}` + "\n" + `{"k":"a","_id":77}` + "\n" + `{"_id":11}`, []string{"--upsertFields", "k"}, cli.ExitData},
		{"id_is_immutable_skip", `{"_id":9,"k":"x"}` + "\n" + `{"k":"a","_id":77}` + "\n" + `{"_id":11}`, []string{"--upsertFields", "k", "--on-error", "skip"}, 0},
		{"bad_line_abort", `{"_id":1,"v":1}` + "\n" + `{"_id":2,}` + "\n" + `{"_id":3,"v":3}`, []string{"--mode", "merge"}, cli.ExitData},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name+".ndjson")
			if err := os.WriteFile(in, []byte(c.input+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			file, uri := filepath.Join(t.TempDir(), "app.omgdb"), fmt.Sprintf("%smodes%d", srv.URI, i)
			var outs [2]string
			for j, store := range []string{file, uri} {
				if code, _, stderr := runCLI(t, "", "import", store, "items", seed); code != 0 {
					t.Fatalf("seed %s: %d %s", store, code, stderr)
				}
				code, out, stderr := runCLI(t, "", append([]string{"import", store, "items", in}, c.flags...)...)
				if code != c.code || code != 0 && !strings.Contains(stderr, "hint: ") {
					t.Errorf("%s: exit %d, want %d: %s", store, code, c.code, stderr)
				}
				outs[j] = out
			}
			m := summaryChange.FindStringSubmatch(outs[1])
			if norm := func(s string) string { return summaryChange.ReplaceAllString(s, `"change":"ID"`) }; norm(outs[0]) != norm(outs[1]) {
				t.Errorf("summaries differ:\nfile:  %s\nmongo: %s", outs[0], outs[1])
			}
			if f, g := dumpOrNone(t, file, "items"), dumpOrNone(t, uri, "items"); f != g {
				t.Errorf("documents differ:\nfile:\n%s\nmongo:\n%s", f, g)
			}
			if m == nil {
				t.Fatalf("no change in the summary: %s", outs[1])
			}
			if code, out, stderr := runCLI(t, "", "rollback", uri, m[1]); code != 0 || !strings.Contains(out, `"conflicts":[]`) {
				t.Fatalf("rollback: exit %d %s%s", code, out, stderr)
			}
			seedOnly := filepath.Join(t.TempDir(), "seed.omgdb")
			runCLI(t, "", "import", seedOnly, "items", seed)
			if want, got := dumpOrNone(t, seedOnly, "items"), dumpOrNone(t, uri, "items"); got != want {
				t.Errorf("after the rollback:\n%s\nwant exactly the seed:\n%s", got, want)
			}
		})
	}
}

// TestMongo_ImportModesRefusals: what an import cannot do over MongoDB
// (FerretDB) is refused with its reason, and writes nothing.
func TestMongo_ImportModesRefusals(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	uri := srv.URI + "refusals"
	if code, _, stderr := runCLI(t, modeSeed, "import", uri, "items"); code != 0 {
		t.Fatal(stderr)
	}
	cases := []struct {
		name, stdin string
		args        []string
		code        int
		msg         string
	}{
		{"atomic_insert", `{"_id":7}`, []string{"--atomic"}, cli.ExitUsage, "--atomic needs a multi-document transaction, and mongodb://127.0.0.1"},
		{"atomic_upsert", `{"_id":1}`, []string{"--atomic", "--mode", "upsert"}, cli.ExitUsage, "it is a standalone server (its hello names no replica set, and it is no mongos), as FerretDB is"},
		{"drop_merge", `{"_id":7}`, []string{"--drop", "--mode", "merge"}, cli.ExitUsage, "--drop works over MongoDB with --mode insert only"},
		{"matched_twice_by_id", `{"_id":1,"v":1}` + "\n" + `{"_id":1,"v":2}`, []string{"--mode", "upsert"}, cli.ExitData, "line 2: the document matches (by _id) a document that an earlier document of this import writes"},
		{"inserted_twice_by_fields", `{"_id":30,"k":"q"}` + "\n" + `{"_id":31,"k":"q"}`, []string{"--upsertFields", "k"}, cli.ExitData, "line 2: the document matches (by k) a document that an earlier document of this import writes"},
		{"bad_line_before_anything", `{"_id":1,}`, []string{"--mode", "merge"}, cli.ExitData, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := dumpOrNone(t, uri, "items")
			code, _, stderr := runCLI(t, c.stdin, append([]string{"import", uri, "items"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.msg) || !strings.Contains(stderr, "hint: ") {
				t.Errorf("exit %d, want %d with %q: %s", code, c.code, c.msg, stderr)
			}
			if c.code == cli.ExitUsage || strings.HasPrefix(c.name, "bad_line") {
				if got := dumpOrNone(t, uri, "items"); got != before {
					t.Errorf("documents changed:\n%s\nwant\n%s", got, before)
				}
			}
		})
	}
}

// TestMongo_ImportDropMatchesFile: import --drop over MongoDB drops the
// collection (a change of its own, the collection kept aside) before its
// first batch, then imports: the same documents and summary as on a file
// (which makes both one change), its indexes gone with it; rolling back
// the import, then the drop, brings back exactly the seed and its index.
// An import whose first line is bad drops all the same, as on a file (and
// as mongoimport, which drops first), and --drop into a missing
// collection drops nothing.
func TestMongo_ImportDropMatchesFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	dir := t.TempDir()
	seed, in, bad := filepath.Join(dir, "seed.ndjson"), filepath.Join(dir, "in.ndjson"), filepath.Join(dir, "bad.ndjson")
	for path, body := range map[string]string{seed: modeSeed, in: `{"_id":2,"n":{"$numberInt":"9"}}` + "\n" + `{"_id":8,"a":[null,{"$numberLong":"3"}]}` + "\n", bad: `{"_id":1,}` + "\n"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file, uri := filepath.Join(t.TempDir(), "app.omgdb"), srv.URI+"dropping"
	var outs [2]string
	for j, store := range []string{file, uri} {
		if code, _, stderr := runCLI(t, "", "import", store, "items", seed); code != 0 {
			t.Fatalf("seed %s: %d %s", store, code, stderr)
		}
		if code, _, stderr := runCLI(t, "", "create-index", store, "items", "k"); code != 0 {
			t.Fatalf("index %s: %d %s", store, code, stderr)
		}
		// A bad first line: nothing imported, and the collection dropped
		// all the same, on both (mongoimport drops first too).
		code, out, stderr := runCLI(t, "", "import", store, "items", bad, "--drop")
		if code != cli.ExitData || !strings.Contains(stderr, "--drop dropped the collection first (4 documents") || !strings.Contains(out, `"dropped":4`) {
			t.Fatalf("bad import --drop into %s: exit %d %s%s", store, code, out, stderr)
		}
		if got := strings.TrimSpace(dumpOrNone(t, store, "items")); got != "" && got != "none" {
			t.Fatalf("after a failed import --drop, %s holds:\n%s", store, got)
		}
		if j == 1 { // roll that drop back, to drop the seed again below
			id := regexp.MustCompile(`"drop_change":"([0-9a-f]{24})"`).FindStringSubmatch(out)[1]
			if code, out, stderr := runCLI(t, "", "rollback", store, id); code != 0 {
				t.Fatalf("rollback of the drop: exit %d %s%s", code, out, stderr)
			}
		} else if code, _, stderr := runCLI(t, "", "import", store, "items", seed); code != 0 {
			t.Fatalf("seed again %s: %d %s", store, code, stderr)
		}
		code, out, stderr = runCLI(t, "", "import", store, "items", in, "--drop")
		if code != 0 {
			t.Fatalf("import --drop into %s: exit %d %s", store, code, stderr)
		}
		outs[j] = out
	}
	norm := regexp.MustCompile(`,"drop_change":"[0-9a-f]{24}"`)
	if f, g := summaryChange.ReplaceAllString(outs[0], `"change":"ID"`), summaryChange.ReplaceAllString(norm.ReplaceAllString(outs[1], ""), `"change":"ID"`); f != g {
		t.Errorf("summaries differ:\nfile:  %s\nmongo: %s", f, g)
	}
	if !strings.Contains(outs[1], `"dropped":4`) || !strings.Contains(outs[1], `"drop_change":"`) {
		t.Errorf("the summary does not say what was dropped: %s", outs[1])
	}
	if f, g := dumpOrNone(t, file, "items"), dumpOrNone(t, uri, "items"); f != g {
		t.Errorf("documents differ:\nfile:\n%s\nmongo:\n%s", f, g)
	}
	if _, out, _ := runCLI(t, "", "indexes", uri, "items"); strings.Contains(out, "k_1") {
		t.Errorf("the dropped collection's index is still there: %s", out)
	}
	// Roll back the import, then the drop.
	dropChange := regexp.MustCompile(`"drop_change":"([0-9a-f]{24})"`).FindStringSubmatch(outs[1])[1]
	for _, id := range []string{summaryChange.FindStringSubmatch(outs[1])[1], dropChange} {
		if code, out, stderr := runCLI(t, "", "rollback", uri, id); code != 0 {
			t.Fatalf("rollback %s: exit %d %s%s", id, code, out, stderr)
		}
	}
	seedOnly := filepath.Join(t.TempDir(), "seed.omgdb")
	runCLI(t, "", "import", seedOnly, "items", seed)
	if want, got := dumpOrNone(t, seedOnly, "items"), dumpOrNone(t, uri, "items"); got != want {
		t.Errorf("after both rollbacks:\n%s\nwant exactly the seed:\n%s", got, want)
	}
	if _, out, _ := runCLI(t, "", "indexes", uri, "items"); !strings.Contains(out, "k_1") {
		t.Errorf("the index did not come back: %s", out)
	}
	// Into a missing collection: nothing to drop.
	code, out, stderr := runCLI(t, "", "import", uri, "fresh", in, "--drop")
	if code != 0 || strings.Contains(out, "dropped") || strings.Contains(out, "drop_change") {
		t.Errorf("import --drop into a missing collection: exit %d %s%s", code, out, stderr)
	}
}

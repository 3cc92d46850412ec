package cli_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// pastSteps are the changes made, in order, on both stores by
// pastStores; snapshot sN names the state after the first N of them.
var pastSteps = [][]string{
	{"plan-update", "STORE", "users", `{"city":"Paris"}`, `{"$set":{"tier":"gold"}}`},
	{"insert", "STORE", "users", `{"_id":5,"name":"eve","age":{"$numberLong":"41"},"tags":["a"],"city":null}`},
	{"plan-delete", "STORE", "users", `{"_id":2}`},
	// int + long gives a long; a missing age becomes the long.
	{"plan-update", "STORE", "users", `{}`, `{"$inc":{"age":{"$numberLong":"1"}}}`},
	{"plan-update", "STORE", "users", `{"_id":3}`, `{"$unset":{"city":""},"$set":{"age":2.5}}`},
	{"plan-update", "STORE", "other", `{"_id":1}`, `{"$set":{"v":1}}`, "--upsert"},
}

// runOK runs the CLI and fails the test unless it exits 0.
func runOK(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(t, stdin, args...)
	if code != 0 {
		t.Fatalf("omgdb %s: exit %d: %s%s", strings.Join(args, " "), code, out, stderr)
	}
	return out
}

// pastStores makes a store file and a deployment that hold mongoUsers,
// then applies pastSteps on both, naming each state sN with a snapshot.
func pastStores(t *testing.T) (file, uri string) { return pastStoresWith(t, pastSteps) }

// pastStoresWith is pastStores with other steps.
func pastStoresWith(t *testing.T, steps [][]string) (file, uri string) {
	file, uri = mongoStores(t)
	for _, store := range []string{file, uri} {
		runOK(t, "", "snapshot", "create", store, "s0")
		for i, step := range steps {
			a := append([]string(nil), step...)
			a[1] = store
			if a[0] == "insert" {
				runOK(t, "", a...)
			} else {
				planAndApply(t, store, a)
			}
			runOK(t, "", "snapshot", "create", store, "s"+string(rune('1'+i)))
		}
	}
	return file, uri
}

// TestMongo_AtMatchesFile applies the same changes on a store file and on
// the deployment, then reads both at each snapshot: find, count, distinct
// and aggregate with --at give the same output, byte for byte, and at s0
// the deployment gives back the documents as they were before any change.
func TestMongo_AtMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := pastStores(t)
	reads := [][]string{
		{"find", "STORE", "users", "{}", "--ejson", "canonical"},
		{"find", "STORE", "users", `{"age":{"$gte":30}}`, "--sort", `{"age":-1}`, "--project", `{"name":1,"age":1}`, "--ejson", "canonical"},
		{"find", "STORE", "users", `{"city":null}`, "--project", `{"_id":1}`},
		{"find", "STORE", "users", `{"tags":"a"}`, "--skip", "1", "--limit", "1"},
		{"count", "STORE", "users", `{"tier":"gold"}`},
		{"count", "STORE", "users"},
		{"distinct", "STORE", "users", "tags"},
		{"distinct", "STORE", "users", "age", "--ejson", "canonical"},
		{"aggregate", "STORE", "users", `[{"$group":{"_id":"$city","n":{"$sum":1}}},{"$sort":{"_id":1}}]`},
		// With a collation: omgdb's collator at a revision, on both.
		{"find", "STORE", "users", `{"name":{"$in":["ANA","EVE"]}}`, "--sort", `{"city":-1}`, "--collation", `{"locale":"en","strength":2}`},
		{"count", "STORE", "users", `{"city":"PARIS"}`, "--collation", `{"locale":"fr","strength":1}`},
		{"distinct", "STORE", "users", "city", `{"name":{"$gt":"B"}}`, "--collation", `{"locale":"en","strength":2}`},
		{"aggregate", "STORE", "users", `[{"$match":{"tier":"GOLD"}},{"$group":{"_id":"$city","n":{"$sum":1}}}]`, "--collation", `{"locale":"en","strength":2}`},
	}
	for snap := 0; snap <= len(pastSteps); snap++ {
		at := "s" + string(rune('0'+snap))
		for _, r := range reads {
			a := append(append([]string(nil), r...), "--at", at)
			var got [2]string
			for i, store := range []string{file, uri} {
				a[1] = store
				code, out, stderr := runCLI(t, "", a...)
				got[i] = strings.ReplaceAll(out+stderr, store, "STORE") + fmt.Sprint(" exit ", code)
			}
			if got[0] != got[1] {
				t.Errorf("%s --at %s:\n file  %s\n mongo %s", strings.Join(r, " "), at, got[0], got[1])
			}
		}
	}
	// The values themselves, on the deployment.
	want := map[string]string{
		"s0": `{"_id":1,"name":"ana","age":30,"tags":["a","b"],"city":"Paris"}` + "\n" +
			`{"_id":2,"name":"bob","age":25,"tags":["b"],"city":"Lyon"}` + "\n" +
			`{"_id":3,"name":"cy","age":35,"tags":[],"city":"Paris"}` + "\n" +
			`{"_id":4,"name":"dee","score":9007199254740993}` + "\n",
		"s3": `{"_id":1,"name":"ana","age":30,"tags":["a","b"],"city":"Paris","tier":"gold"}` + "\n" +
			`{"_id":3,"name":"cy","age":35,"tags":[],"city":"Paris","tier":"gold"}` + "\n" +
			`{"_id":4,"name":"dee","score":9007199254740993}` + "\n" +
			`{"_id":5,"name":"eve","age":41,"tags":["a"],"city":null}` + "\n",
	}
	for at, w := range want {
		if got := runOK(t, "", "find", uri, "users", "--at", at); got != w {
			t.Errorf("find --at %s:\n%s want\n%s", at, got, w)
		}
	}
	if got := runOK(t, "", "find", uri, "users", `{"_id":4}`, "--at", "s4", "--ejson", "canonical"); got != `{"_id":{"$numberInt":"4"},"name":"dee","score":{"$numberLong":"9007199254740993"},"age":{"$numberLong":"1"}}`+"\n" {
		t.Errorf("the long $inc made at s4: %s", got)
	}
	// The collection an upsert created after s5 did not exist at s5 on
	// either store (the messages differ: an lsn, a seq).
	for _, store := range []string{file, uri} {
		code, _, stderr := runCLI(t, "", "count", store, "other", "--at", "s5")
		if code != 66 || !strings.Contains(stderr, "collection `other` did not exist at revision s5") {
			t.Errorf("other at s5 on %s: exit %d %s", store, code, stderr)
		}
	}
	if got := runOK(t, "", "find", uri, "other", "--at", "s6"); got != `{"_id":1,"v":1}`+"\n" {
		t.Errorf("other at s6: %s", got)
	}
}

// TestMongo_AtRevisions resolves each kind of revision over MongoDB: a
// change id (the state right after it), a seq, a time, now; and refuses
// what it cannot read.
func TestMongo_AtRevisions(t *testing.T) {
	t.Parallel()
	_, uri := pastStores(t)
	log := runOK(t, "", "log", uri)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != len(pastSteps) {
		t.Fatalf("log has %d records, want %d:\n%s", len(lines), len(pastSteps), log)
	}
	type logRec struct {
		Seq    int64  `json:"seq"`
		Change string `json:"change"`
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Ops    []struct {
			Op, Coll string
			ID       any `json:"id"`
		} `json:"ops"`
	}
	var recs []logRec
	for _, l := range lines {
		var rec logRec
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		recs = append(recs, rec)
	}
	wantOps := []string{"update users 1,update users 3", "insert users 5", "delete users 2", "update users 1,update users 3,update users 4,update users 5", "update users 3", "insert other 1"}
	for i, r := range recs {
		var ops []string
		for _, op := range r.Ops {
			ops = append(ops, op.Op+" "+op.Coll+" "+jsonText(op.ID))
		}
		if r.Seq != int64(i+1) || r.Status != "applied" || strings.Join(ops, ",") != wantOps[i] {
			t.Errorf("log record %d: seq %d status %s ops %v, want seq %d applied %s", i, r.Seq, r.Status, ops, i+1, wantOps[i])
		}
	}
	if got := runOK(t, "", "log", uri, "--since", "5", "--limit", "1"); !strings.Contains(got, `"seq":5,`) || strings.Count(got, "\n") != 1 {
		t.Errorf("log --since 5 --limit 1: %s", got)
	}
	s3 := runOK(t, "", "find", uri, "users", "--at", "s3")
	for _, at := range []string{recs[2].Change, "3"} {
		if got := runOK(t, "", "find", uri, "users", "--at", at); got != s3 {
			t.Errorf("find --at %s:\n%s want (s3)\n%s", at, got, s3)
		}
	}
	now := runOK(t, "", "find", uri, "users")
	for _, at := range []string{"now", "2999-01-01T00:00:00Z"} {
		if got := runOK(t, "", "find", uri, "users", "--at", at); got != now {
			t.Errorf("find --at %s:\n%s want (now)\n%s", at, got, now)
		}
	}
	s0 := runOK(t, "", "find", uri, "users", "--at", "s0")
	if got := runOK(t, "", "find", uri, "users", "--at", "2000-01-01"); got != s0 {
		t.Errorf("find --at 2000-01-01:\n%s want (s0)\n%s", got, s0)
	}
	refusals := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"find", uri, "users", "--at", "s9"}, 66, `unknown revision "s9" (did you mean`},
		{[]string{"find", uri, "users", "--at", "99"}, 66, "past the end of the journal (last seq 6)"},
		{[]string{"find", uri, "users", "--at", "0123456789abcdef01234567"}, 66, "no change 0123456789abcdef01234567"},
		{[]string{"find", uri, "nope", "--at", "s1"}, 66, "collection `nope` not found"},
		{[]string{"diff", uri, "s3", "s1"}, 64, "revision s3 (seq 3) is after revision s1 (seq 1)"},
		{[]string{"find", uri, "users", "--at", "s1", "--hint", "_id_"}, 64, "--hint does not work over MongoDB yet"},
	}
	for _, r := range refusals {
		code, out, stderr := runCLI(t, "", r.args...)
		if code != r.code || out != "" || !strings.Contains(stderr, r.msg) {
			t.Errorf("omgdb %s: exit %d %q %q, want exit %d with %q", strings.Join(r.args[3:], " "), code, out, stderr, r.code, r.msg)
		}
	}
	// A change after the revision whose writer still holds its lease: the
	// documents it is writing are not settled, so a read before it (or of
	// it) is refused; once the lease expired (interrupted), the revisions
	// before it read as before (its items marked applied say what it
	// wrote); now is still read.
	before := map[string]string{}
	for _, at := range []string{"s1", "s4", "4"} {
		before[at] = runOK(t, "", "find", uri, "users", "--at", at)
	}
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app")).Database("app").Collection("omgdb.changes")
	if _, err := c.UpdateOne(t.Context(), map[string]any{"seq": int64(4)}, map[string]any{"$set": map[string]any{"status": "applying", "lease_until": time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"s1", "s4", "4"} {
		code, _, stderr := runCLI(t, "", "find", uri, "users", "--at", at)
		if code != 69 || !strings.Contains(stderr, "is being applied by another omgdb (its lease runs until") {
			t.Errorf("find --at %s with a change being applied after it: exit %d %s", at, code, stderr)
		}
	}
	if _, err := c.UpdateOne(t.Context(), map[string]any{"seq": int64(4)}, map[string]any{"$set": map[string]any{"lease_until": time.Now().Add(-time.Second)}}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"s1", "s4", "4"} {
		if got := runOK(t, "", "find", uri, "users", "--at", at); got != before[at] {
			t.Errorf("find --at %s across the interrupted change:\n%s want\n%s", at, got, before[at])
		}
	}
	if got := runOK(t, "", "find", uri, "users", "--at", "s5"); got != now {
		t.Errorf("find --at s5 (after the applying change):\n%s want\n%s", got, now)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMongo_DiffMatchesFile compares revisions on both stores: the
// documents that differ, with their field-level diffs, are the same
// byte for byte (the summaries name an lsn on a file, a seq here).
func TestMongo_DiffMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := pastStores(t)
	cases := [][]string{
		{"diff", "STORE", "s0"},
		{"diff", "STORE", "s0", "s3"},
		{"diff", "STORE", "s1", "s4", "--coll", "users", "--ejson", "canonical"},
		{"diff", "STORE", "s3", "s3"},
		{"diff", "STORE", "s2", "s5", "--text"},
	}
	for _, c := range cases {
		var got [2]string
		for i, store := range []string{file, uri} {
			a := append([]string(nil), c...)
			a[1] = store
			out := runOK(t, "", a...)
			if c[len(c)-1] == "--text" { // the first line names an lsn or a seq
				out = out[strings.Index(out, "\n")+1:]
			}
			got[i] = out
		}
		if got[0] != got[1] {
			t.Errorf("%s:\n file  %s\n mongo %s", strings.Join(c, " "), got[0], got[1])
		}
	}
	_, out, stderr := runCLI(t, "", "diff", uri, "s2", "s3")
	if want := `{"collection":"users","_id":2,"change":"deleted","before":{"_id":2,"name":"bob","age":25,"tags":["b"],"city":"Lyon"},"after":null}` + "\n"; out != want || stderr != "seq 2 -> 3: 0 inserted, 1 deleted, 0 updated\n" {
		t.Errorf("diff s2 s3: %q %q", out, stderr)
	}
	var res struct {
		From, To struct {
			Spec, Kind, Change string
			Seq                int64
		}
		Inserted, Deleted, Updated int
		Documents                  []map[string]any
	}
	if err := json.Unmarshal([]byte(runOK(t, "", "diff", uri, "s0", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.From.Kind != "snapshot" || res.From.Seq != 0 || res.To.Kind != "now" || res.To.Seq != 6 || len(res.To.Change) != 24 ||
		res.Inserted != 2 || res.Deleted != 1 || res.Updated != 3 || len(res.Documents) != 6 {
		t.Errorf("diff s0 --json: %+v", res)
	}
}

// TestMongo_RevertMatchesFile plans a revert to each snapshot on both
// stores: the same plan, and once applied the same documents, which are
// those of the snapshot.
func TestMongo_RevertMatchesFile(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"s1", "s3", "s4"} {
		t.Run(at, func(t *testing.T) {
			// The changes since touch users only: the revert needs no --coll.
			file, uri := pastStoresWith(t, pastSteps[:5])
			runOK(t, "", "plan-delete", uri, "users", "{}") // a plan, not applied: no change
			want := runOK(t, "", "find", uri, "users", "--at", at, "--ejson", "canonical")
			fplan := planFields(t, planAndApply(t, file, []string{"revert", "STORE", at}))
			mplan := planFields(t, planAndApply(t, uri, []string{"revert", "STORE", at}))
			if !reflect.DeepEqual(fplan, mplan) {
				t.Errorf("plans differ:\n file  %v\n mongo %v", fplan, mplan)
			}
			if f, m := dump(t, file), dump(t, uri); f != m || m != want {
				t.Errorf("after the revert:\n file:\n%s mongo:\n%s want:\n%s", f, m, want)
			}
		})
	}
	_, uri := pastStores(t)
	code, _, stderr := runCLI(t, "", "revert", uri, "s0")
	if code != 64 || !strings.Contains(stderr, "wrote 2 collections (other, users): over MongoDB a revert plans one collection") {
		t.Errorf("revert of two collections: exit %d %s", code, stderr)
	}
	planAndApply(t, uri, []string{"revert", "STORE", "s0", "--coll", "other"})
	if got := runOK(t, "", "count", uri, "other"); got != "0\n" {
		t.Errorf("other after its revert to s0: %s", got)
	}
	code, _, stderr = runCLI(t, "", "revert", "x.omgdb", "s0", "--coll", "users")
	if code != 64 || !strings.Contains(stderr, "--coll of revert works over MongoDB only") {
		t.Errorf("revert --coll on a file: exit %d %s", code, stderr)
	}
	// Nothing to revert: the plan says so and writes nothing.
	out := runOK(t, "", "revert", uri, "s6", "--coll", "users")
	if !strings.Contains(out, `"matched":0,"modified":0`) || !strings.Contains(out, "changes nothing") {
		t.Errorf("revert to now: %s", out)
	}
}

// TestMongo_Snapshots lists and deletes snapshots over MongoDB, and
// refuses bad names, taken names and unknown ones.
func TestMongo_Snapshots(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	auto := runOK(t, "", "snapshot", "create", uri)
	if !strings.HasPrefix(auto, `{"name":"snap-0","seq":0,"created":`) {
		t.Errorf("snapshot create without a name: %s", auto)
	}
	if again := runOK(t, "", "snapshot", "create", uri); again != auto {
		t.Errorf("snap-0 again: %s, want %s", again, auto)
	}
	tok := planAndApply(t, uri, []string{"plan-delete", "STORE", "users", `{"_id":1}`})
	var p struct{ Token string }
	json.Unmarshal([]byte(tok), &p)
	named := runOK(t, "", "snapshot", "create", uri, "after-delete")
	if !strings.HasPrefix(named, `{"name":"after-delete","change":"`+p.Token+`","seq":1,`) {
		t.Errorf("snapshot create after-delete: %s", named)
	}
	back := runOK(t, "", "snapshot", "create", uri, "back", "--at", "snap-0")
	if !strings.HasPrefix(back, `{"name":"back","seq":0,`) {
		t.Errorf("snapshot create --at snap-0: %s", back)
	}
	list := runOK(t, "", "snapshot", "list", uri)
	if want := back + auto + named; list != want {
		t.Errorf("snapshot list:\n%s want\n%s", list, want)
	}
	refusals := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"snapshot", "create", uri, "back"}, 69, "snapshot back already exists"},
		{[]string{"snapshot", "create", uri, "9lives"}, 65, `invalid snapshot name "9lives"`},
		{[]string{"snapshot", "create", uri, "x", "--at", "nope"}, 66, `unknown revision "nope"`},
		{[]string{"snapshot", "delete", uri, "bak"}, 66, "no snapshot bak (did you mean `back`?)"},
	}
	for _, r := range refusals {
		code, out, stderr := runCLI(t, "", r.args...)
		if code != r.code || out != "" || !strings.Contains(stderr, r.msg) {
			t.Errorf("omgdb %s: exit %d %q %q, want exit %d with %q", strings.Join(r.args, " "), code, out, stderr, r.code, r.msg)
		}
	}
	if got := runOK(t, "", "snapshot", "delete", uri, "back"); got != back {
		t.Errorf("snapshot delete back: %s, want %s", got, back)
	}
	if list := runOK(t, "", "snapshot", "list", uri); list != auto+named {
		t.Errorf("snapshot list after the delete:\n%s", list)
	}
	if got := runOK(t, "", "count", uri, "users", "--at", "snap-0"); got != "4\n" {
		t.Errorf("count --at snap-0: %s", got)
	}
}

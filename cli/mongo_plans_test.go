package cli_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/value"
)

// aggTarget is the target collection of the plan-aggregate cases: an
// int, a long, a double, null against missing, an array.
var aggTarget = []string{
	`{"_id":"Lyon","n":{"$numberLong":"7"},"keep":true}`,
	`{"_id":"Nice","n":1.5,"tags":["x"]}`,
	`{"_id":"Paris","n":2,"note":null}`,
}

// withTarget adds the aggTarget documents as collection "totals" of both
// stores.
func withTarget(t *testing.T, file, uri string, docs []string) {
	t.Helper()
	if code, _, stderr := runCLI(t, strings.Join(docs, "\n"), "insert", file, "totals", "-"); code != 0 {
		t.Fatalf("insert into the file: exit %d: %s", code, stderr)
	}
	mongotest.Insert(t, mongotest.Client(t, strings.TrimSuffix(uri, "app")), "app", "totals", docs...)
}

// TestMongo_PlanAggregateMatchesFile plans and applies the same pipeline
// ending in $out or $merge on a store file and on the deployment: the
// plans must say the same (matched, modified, the samples, whether the
// target is created) and the target must then hold the same documents,
// type for type; a rollback gives the target back exactly, $out's
// deletions included.
func TestMongo_PlanAggregateMatchesFile(t *testing.T) {
	t.Parallel()
	group := `{"$group":{"_id":"$city","n":{"$sum":1}}}`
	// A $merge needs a value in its on fields: the users with a city.
	mgroup := `{"$match":{"city":{"$exists":true}}},` + group
	cases := []struct {
		name     string
		target   bool // the target exists, holding aggTarget
		pipeline string
	}{
		{"out_new", false, `[` + group + `,{"$out":"totals"}]`},
		// Lyon updated (a long 7 becomes an int 1), Nice deleted, Paris
		// updated, missing city (null) inserted.
		{"out_replace", true, `[` + group + `,{"$out":"totals"}]`},
		{"out_db_form", true, `[{"$match":{"city":"Paris"}},` + group + `,{"$out":{"db":"app","coll":"totals"}}]`},
		{"merge_default", true, `[` + mgroup + `,{"$merge":"totals"}]`},
		{"merge_replace_discard", true, `[` + mgroup + `,{"$merge":{"into":"totals","whenMatched":"replace","whenNotMatched":"discard"}}]`},
		{"merge_keep_insert", true, `[` + mgroup + `,{"$merge":{"into":"totals","whenMatched":"keepExisting","whenNotMatched":"insert"}}]`},
		{"merge_keep_insert_new", true, `[{"$group":{"_id":"$name","n":{"$sum":1}}},{"$merge":{"into":"totals","whenMatched":"keepExisting"}}]`},
		{"merge_pipeline_let", true, `[` + mgroup + `,{"$merge":{"into":"totals","let":{"add":"$n","src":"$_id"},"whenMatched":[{"$set":{"n":{"$add":["$n","$$add"]},"seen":"$$src"}}]}}]`},
		{"merge_pipeline_upsert", true, `[{"$match":{"age":{"$gte":30}}},{"$unset":["tags","city","name"]},{"$merge":{"into":"totals","whenMatched":[{"$set":{"hit":true}}],"whenNotMatched":"insert"}}]`},
		{"merge_new_target", false, `[{"$match":{"tags":"b"}},{"$merge":{"into":"fresh"}}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file, uri := mongoStoresWith(t, mongoUsers)
			if c.target {
				withTarget(t, file, uri, aggTarget)
			}
			target := "totals"
			if strings.Contains(c.pipeline, `"fresh"`) {
				target = "fresh"
			}
			before := [2]string{}
			if c.target {
				before = [2]string{dumpColl(t, file, target), dumpColl(t, uri, target)}
			}
			args := []string{"plan-aggregate", "STORE", "users", c.pipeline}
			fout, mout := planAndApply(t, file, args), planAndApply(t, uri, args)
			f, m := planFields(t, fout), planFields(t, mout)
			if !reflect.DeepEqual(f, m) {
				t.Errorf("plans differ:\n file  %v\n mongo %v", f, m)
			}
			if !strings.Contains(mout, `"next_valid_actions":["apply","show","discard"]`) || !strings.Contains(mout, `"kind":"aggregate"`) {
				t.Errorf("plan over MongoDB: %s", mout)
			}
			if fd, md := dumpColl(t, file, target), dumpColl(t, uri, target); fd != md || fd == "" {
				t.Errorf("after apply:\n file:\n%s mongo:\n%s", fd, md)
			}
			if m["modified"] == 0.0 {
				return // nothing written, nothing to roll back
			}
			_, hist, _ := runCLI(t, "", "history", uri, "--limit", "1")
			var h struct{ Change string }
			if err := json.Unmarshal([]byte(hist), &h); err != nil || h.Change == "" {
				t.Fatalf("history: %q (%v)", hist, err)
			}
			if code, out, stderr := runCLI(t, "", "rollback", uri, h.Change); code != 0 {
				t.Fatalf("rollback: exit %d %s%s", code, out, stderr)
			}
			if c.target {
				if got := dumpColl(t, uri, target); got != before[1] || before[0] != before[1] {
					t.Errorf("after rollback:\n%s\nwant:\n%s", got, before[1])
				}
			} else if code, out, _ := runCLI(t, "", "count", uri, target); code != cli.ExitNotFound {
				t.Errorf("after rollback the new target holds %q (exit %d), want it gone (exit 66), as on a file", out, code)
			}
		})
	}
}

// TestMongo_PlanAggregateOutEmpty plans a $out of no document into a
// missing collection: the plan says it creates the collection, and apply
// creates it, empty, as on a store file.
func TestMongo_PlanAggregateOutEmpty(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	args := []string{"plan-aggregate", "STORE", "users", `[{"$match":{"age":{"$gt":99}}},{"$out":"empty"}]`}
	fout, mout := planAndApply(t, file, args), planAndApply(t, uri, args)
	if f, m := planFields(t, fout), planFields(t, mout); !reflect.DeepEqual(f, m) || m["creates_collection"] != true {
		t.Errorf("plans differ or do not create:\n file  %v\n mongo %v", f, m)
	}
	for _, s := range []string{file, uri} {
		if code, out, stderr := runCLI(t, "", "count", s, "empty"); code != 0 || out != "0\n" {
			t.Errorf("count of the created target on %s: exit %d %q %s", s, code, out, stderr)
		}
	}
}

// TestMongo_PlanAggregateErrors gives each store the same wrong
// pipelines: the same error and exit code, and nothing planned or
// written over MongoDB.
func TestMongo_PlanAggregateErrors(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	withTarget(t, file, uri, aggTarget)
	cases := []struct {
		name, pipeline string
		code           int
		want           string
	}{
		{"not_last", `[{"$out":"x"},{"$match":{}}]`, cli.ExitData, "must end in $out or $merge"},
		{"not_array", `{"$out":"x"}`, cli.ExitData, "takes a pipeline"},
		{"merge_bad_field", `[{"$merge":{"into":"x","wheMatched":"merge"}}]`, cli.ExitData, "unknown field wheMatched"},
		{"merge_bad_mode", `[{"$merge":{"into":"x","whenMatched":"upsert"}}]`, cli.ExitData, "whenMatched must be"},
		{"let_without_pipeline", `[{"$merge":{"into":"x","let":{"a":1}}}]`, cli.ExitData, "'let' serves a whenMatched pipeline"},
		{"bad_stage", `[{"$matc":{}},{"$out":"x"}]`, cli.ExitData, "$matc"},
		{"matched_fail", `[{"$group":{"_id":"$city"}},{"$merge":{"into":"totals","whenMatched":"fail"}}]`, cli.ExitConflict, `whenMatched is "fail"`},
		{"not_matched_fail", `[{"$group":{"_id":"$name"}},{"$merge":{"into":"totals","whenNotMatched":"fail"}}]`, cli.ExitConflict, `whenNotMatched is "fail"`},
		{"on_without_index", `[{"$group":{"_id":"$city","n":{"$sum":1}}},{"$merge":{"into":"totals","on":"n"}}]`, cli.ExitData, "cannot find a unique index on [n]"},
		{"on_missing", `[{"$unset":"city"},{"$merge":{"into":"fresh","on":"city"}}]`, cli.ExitData, "cannot be missing, null or an array"},
		{"out_twice", `[{"$set":{"_id":1}},{"$out":"x"}]`, cli.ExitConflict, "returns _id 1 twice"},
		{"missing_source", `[{"$out":"x"}]`, cli.ExitNotFound, "not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "users"
			if c.name == "missing_source" {
				src = "usres"
			}
			var got [2]string
			for i, s := range []string{file, uri} {
				code, out, stderr := runCLI(t, "", "plan-aggregate", s, src, c.pipeline)
				if code != c.code || out != "" || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "hint: ") {
					t.Errorf("%s: exit %d, out %q, stderr %q; want %d with %q and a hint", s, code, out, stderr, c.code, c.want)
				}
				got[i] = strings.SplitN(stderr, "\n", 2)[0]
				got[i] = strings.ReplaceAll(got[i], s, "STORE")
			}
			if c.name != "missing_source" && got[0] != got[1] {
				t.Errorf("messages differ:\n file  %s\n mongo %s", got[0], got[1])
			}
		})
	}
	// omgdb's and the server's collections are refused before anything
	// is sent, whatever the pipeline.
	for _, target := range []string{"omgdb.changes", "system.views"} {
		code, _, stderr := runCLI(t, "", "plan-aggregate", uri, "users", `[{"$out":"`+target+`"}]`)
		if code != cli.ExitData || !strings.Contains(stderr, "is not one omgdb writes") {
			t.Errorf("$out into %s: exit %d %q", target, code, stderr)
		}
	}
	if code, out, _ := runCLI(t, "", "plans", uri, "--all"); code != 0 || out != "" {
		t.Errorf("plans after the refusals: exit %d %q, want none", code, out)
	}
}

// TestMongo_PlanAggregateMergeOn merges on a field that a unique index
// covers, on both stores.
func TestMongo_PlanAggregateMergeOn(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	withTarget(t, file, uri, []string{`{"_id":10,"city":"Paris","n":0}`, `{"_id":11,"city":"Rome","n":0}`})
	if code, _, stderr := runCLI(t, "", "create-index", file, "totals", "city", "--unique"); code != 0 {
		t.Fatal(stderr)
	}
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	ix := mongo.IndexModel{Keys: bson.D{{Key: "city", Value: 1}}, Options: options.Index().SetUnique(true)}
	if _, err := c.Database("app").Collection("totals").Indexes().CreateOne(context.Background(), ix); err != nil {
		t.Fatal(err)
	}
	args := []string{"plan-aggregate", "STORE", "users", `[{"$match":{"_id":{"$in":[1,2]}}},{"$unset":["_id","tags","name"]},{"$merge":{"into":"totals","on":"city","whenMatched":"merge","whenNotMatched":"discard"}}]`}
	fout, mout := planAndApply(t, file, args), planAndApply(t, uri, args)
	if f, m := planFields(t, fout), planFields(t, mout); !reflect.DeepEqual(f, m) {
		t.Errorf("plans differ:\n file  %v\n mongo %v", f, m)
	}
	want := `{"_id":10,"city":"Paris","n":0,"age":30}` + "\n" + `{"_id":11,"city":"Rome","n":0}` + "\n"
	for _, s := range []string{file, uri} {
		if code, out, _ := runCLI(t, "", "find", s, "totals"); code != 0 || out != want {
			t.Errorf("%s: %q, want %q", s, out, want)
		}
	}
}

// planLine is a line of `omgdb plans`.
type planLine struct {
	Token, Kind, Collection, Status, Source string
	Filter, Update, Pipeline                any
	Matched, Modified                       int64
}

func decodePlans(t *testing.T, out string) []planLine {
	t.Helper()
	var ps []planLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var p planLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("plans line %q: %v", l, err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestMongo_Plans lists, shows and discards plans over MongoDB as on a
// store file: pending plans oldest first with what was planned, --all
// with applied, discarded and expired ones, show with each document's
// images and changed fields, and the refusals of discard and apply.
func TestMongo_Plans(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	var toks [2][]string
	for i, s := range []string{file, uri} {
		toks[i] = []string{
			mongoPlan(t, "plan-update", s, "users", `{"city":"Paris"}`, `{"$inc":{"age":{"$numberLong":"1"}},"$set":{"tags.$[t]":"B"}}`, "--array-filters", `[{"t":"b"}]`),
			mongoPlan(t, "plan-delete", s, "users", `{"score":{"$exists":true}}`),
			mongoPlan(t, "plan-aggregate", s, "users", `[{"$group":{"_id":"$city"}},{"$out":"cities"}]`),
			mongoPlan(t, "plan-update", s, "users", `{"_id":2}`, `{"$set":{"x":null}}`, "--expiry", "1ms"),
		}
	}
	time.Sleep(5 * time.Millisecond) // the last plan expires (not a timing assertion: 1 ms expiry, checked after)
	var lists [2][]planLine
	for i, s := range []string{file, uri} {
		code, out, stderr := runCLI(t, "", "plans", s)
		if code != 0 {
			t.Fatalf("plans %s: exit %d %s", s, code, stderr)
		}
		lists[i] = decodePlans(t, out)
		for j := range lists[i] {
			lists[i][j].Token = strings.Replace(lists[i][j].Token, toks[i][j], "T", 1)
		}
	}
	if !reflect.DeepEqual(lists[0], lists[1]) || len(lists[1]) != 3 || lists[1][2].Source != "users" || lists[1][0].Filter == nil || lists[1][2].Pipeline == nil {
		t.Errorf("pending plans differ or are wrong:\n file  %+v\n mongo %+v", lists[0], lists[1])
	}
	// show: the same documents, images and field diffs as on the file.
	for _, tk := range []int{0, 1, 2} {
		var shown [2]string
		for i, s := range []string{file, uri} {
			code, out, stderr := runCLI(t, "", "plans", "show", s, toks[i][tk])
			if code != 0 || out == "" || stderr != "" {
				t.Fatalf("plans show %s: exit %d %q %s", s, code, out, stderr)
			}
			shown[i] = out
		}
		if shown[0] != shown[1] {
			t.Errorf("plans show of plan %d:\n file:\n%s mongo:\n%s", tk, shown[0], shown[1])
		}
		_, diff, _ := runCLI(t, "", "plans", "show", uri, toks[1][tk], "--diff")
		if !strings.Contains(diff, toks[1][tk]) || strings.Count(diff, "\n") < 2 {
			t.Errorf("plans show --diff: %q", diff)
		}
	}
	// The expired plan: listed as expired with --all, refused by apply
	// and by discard with the file's message.
	for i, s := range []string{file, uri} {
		for _, cmd := range [][]string{{"apply", s, toks[i][3]}, {"plans", "discard", s, toks[i][3]}} {
			code, _, stderr := runCLI(t, "", cmd...)
			if code != cli.ExitConflict || !strings.Contains(stderr, "plan "+toks[i][3]+" expired at ") {
				t.Errorf("%v: exit %d %q", cmd, code, stderr)
			}
		}
	}
	// discard: printed with its new status; its token can no longer be
	// applied; discarding twice or an applied plan is refused.
	for i, s := range []string{file, uri} {
		code, out, stderr := runCLI(t, "", "plans", "discard", s, toks[i][1])
		if code != 0 || !strings.Contains(out, `"status":"discarded"`) || !strings.Contains(out, `"token":"`+toks[i][1]+`"`) {
			t.Errorf("discard on %s: exit %d %q %s", s, code, out, stderr)
		}
		code, _, stderr = runCLI(t, "", "apply", s, toks[i][1])
		if code != cli.ExitConflict || !strings.Contains(stderr, "was discarded at") {
			t.Errorf("apply of a discarded plan on %s: exit %d %q", s, code, stderr)
		}
		code, _, stderr = runCLI(t, "", "plans", "discard", s, toks[i][1])
		if code != cli.ExitConflict || !strings.Contains(stderr, "was discarded at") {
			t.Errorf("second discard on %s: exit %d %q", s, code, stderr)
		}
		if code, out, stderr := runCLI(t, "", "apply", s, toks[i][0]); code != 0 {
			t.Fatalf("apply on %s: exit %d %s%s", s, code, out, stderr)
		}
		code, _, stderr = runCLI(t, "", "plans", "discard", s, toks[i][0])
		if code != cli.ExitConflict || !strings.Contains(stderr, "was already applied at") {
			t.Errorf("discard of an applied plan on %s: exit %d %q", s, code, stderr)
		}
	}
	code, out, _ := runCLI(t, "", "plans", uri, "--all")
	all := decodePlans(t, out)
	statuses := []string{}
	for _, p := range all {
		statuses = append(statuses, p.Kind+" "+p.Status)
	}
	want := []string{"update applied", "delete discarded", "aggregate pending", "update expired"}
	if code != 0 || !reflect.DeepEqual(statuses, want) {
		t.Errorf("plans --all: %q, want %q", statuses, want)
	}
	// A plan being applied (claimed) cannot be discarded.
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	oid, _ := bson.ObjectIDFromHex(toks[1][2])
	if _, err := c.Database("app").Collection("omgdb.plans").UpdateOne(context.Background(), bson.M{"_id": oid}, bson.M{"$set": bson.M{"status": "applying"}}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "plans", "discard", uri, toks[1][2])
	if code != cli.ExitConflict || !strings.Contains(stderr, "is being applied") {
		t.Errorf("discard of an applying plan: exit %d %q", code, stderr)
	}
	for _, bad := range [][]string{{"plans", "show", uri, "xyz"}, {"plans", "discard", uri, "665f1c2e9b1d4a0c8e7f6a5b"}} {
		code, _, stderr := runCLI(t, "", bad...)
		if code == 0 || !strings.Contains(stderr, "hint: ") {
			t.Errorf("%v: exit %d %q", bad, code, stderr)
		}
	}
}

// TestMongo_ShellAggregateWriteMatchesFile runs the shell's aggregate
// ending in $out or $merge on a store file and on the deployment: the
// same output (change ids aside), the same errors and exit codes, the
// same target documents, and each printed change rolls back.
func TestMongo_ShellAggregateWriteMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	statements := []string{
		`db.users.aggregate([{$match: {city: {$exists: true}}}, {$group: {_id: '$city', n: {$sum: NumberLong(1)}}}, {$out: 'by_city'}]).toArray()`,
		`db.users.aggregate([{$match: {_id: {$lte: 2}}}, {$unset: ['tags', 'name']}, {$merge: {into: 'by_city', whenMatched: 'merge'}}])`,
		`db.users.aggregate([{$group: {_id: '$city'}}, {$merge: {into: 'by_city', whenMatched: 'keepExisting', whenNotMatched: 'discard'}}])`,
		`db.users.aggregate([{$group: {_id: '$city'}}, {$merge: {into: 'by_city', whenMatched: 'fail'}}])`,
		`db.users.aggregate([{$out: 'by_city'}, {$match: {}}])`,
	}
	var printed []string
	for _, code := range statements {
		fcode, fout, ferr := runCLI(t, "", "shell", file, "--eval", code)
		mcode, mout, merr := runCLI(t, "", "shell", uri, "--eval", code)
		printed = append(printed, regexp.MustCompile(`// change ([0-9a-f]{24})`).FindAllString(mout, -1)...)
		norm := func(s, store string) string {
			return strings.ReplaceAll(regexp.MustCompile(`[0-9a-f]{24}`).ReplaceAllString(s, "ID"), store, "STORE")
		}
		errLine := func(s string) string { return strings.SplitN(s, "\nhint: ", 2)[0] }
		if mcode != fcode || norm(mout, uri) != norm(fout, file) || errLine(merr) != errLine(ferr) {
			t.Errorf("shell --eval %s:\n file  exit %d: %q %q\n mongo exit %d: %q %q", code, fcode, fout, ferr, mcode, mout, merr)
		}
	}
	want := `{"_id":1,"age":{"$numberInt":"30"},"city":"Paris"}` + "\n" +
		`{"_id":2,"age":{"$numberInt":"25"},"city":"Lyon"}` + "\n" +
		`{"_id":"Lyon","n":{"$numberLong":"1"}}` + "\n" +
		`{"_id":"Paris","n":{"$numberLong":"2"}}` + "\n"
	if f, m := dumpColl(t, file, "by_city"), dumpColl(t, uri, "by_city"); f != m || canonical(t, m) != canonical(t, want) {
		t.Errorf("by_city:\n file:\n%s mongo:\n%s want:\n%s", f, m, want)
	}
	if len(printed) != 2 {
		t.Fatalf("change notes printed over MongoDB: %q, want 2", printed)
	}
	for i := len(printed) - 1; i >= 0; i-- {
		id := strings.TrimPrefix(printed[i], "// change ")
		if code, out, stderr := runCLI(t, "", "rollback", uri, id); code != 0 {
			t.Fatalf("rollback %s: exit %d %s%s", id, code, out, stderr)
		}
	}
	// The first $out created by_city: rolled back, it is gone, as on a file.
	if code, out, _ := runCLI(t, "", "count", uri, "by_city"); code != cli.ExitNotFound {
		t.Errorf("by_city after the rollbacks: %q (exit %d), want it gone (exit 66)", out, code)
	}
}

// canonical parses NDJSON of canonical Extended JSON and prints it again,
// so that two texts compare by value and type.
func canonical(t *testing.T, ndjson string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(ndjson), "\n") {
		v, err := value.ParseInput([]byte(l))
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		b.Write(value.AppendJSON(nil, v))
		b.WriteByte('\n')
	}
	return b.String()
}

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// mongoDiagUsers mix int, long and double ages, null against missing,
// arrays and a long past 2^53.
var mongoDiagUsers = []string{
	`{"_id":1,"name":"ana","age":30,"tags":["a","b"],"city":"Paris"}`,
	`{"_id":2,"name":"bob","age":{"$numberLong":"25"},"tags":["b"],"city":"Lyon"}`,
	`{"_id":3,"name":"cy","age":35.5,"tags":[],"city":null}`,
	`{"_id":4,"name":"dee","score":{"$numberLong":"9007199254740993"}}`,
}

// TestMongo_DiagnoseMatchesFile diagnoses each filter on the store file
// and on the MongoDB database (every count a pipeline on the server): the
// output must be the file's, byte for byte, plus the bound.
func TestMongo_DiagnoseMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStoresWith(t, mongoDiagUsers)
	cases := []struct {
		filter string
		extra  []string
		check  string // a part the output must have
	}{
		{`{"age":"30","city":"Paris"}`, nil, `"kind":"type_mismatch","predicate":0,"message":"` + "`age`" + ` holds long or double or int values, not string; written as {\"age\":30} it matches 1 document(s)","fix":{"age":30,"city":"Paris"},"would_match":1`},
		{`{"Age":30}`, nil, "did you mean `age`?); the filter with `age` matches 1"},
		{`{"name":{"$regex":"^AN"}}`, nil, `"kind":"regex_case"`},
		{`{"tags":{"$in":[["a","b"]]}}`, nil, `"matches":1`},
		{`{"tags":{"$in":[["b"]]},"name":"bob"}`, nil, `"alone":1,"with_previous":1`},
		{`{"city":null}`, nil, `"alone":2`},
		{`{"city":{"$exists":false},"age":{"$gte":25}}`, nil, `"predicates":[{"predicate":{"city":{"$exists":false}},"alone":1,"with_previous":1,"without_this":3},{"predicate":{"age":{"$gte":25}},"alone":3,"with_previous":0,"without_this":1}]`},
		{`{"score":{"$gt":{"$numberLong":"9007199254740992"}},"tags":"b"}`, nil, `without it, 1 match`},
		{`{"age":{"$gte":25},"tags":"b"}`, nil, `"matches":2`},
		{`{"age":{"$gte":25}}`, []string{"--limit", "2"}, `"examined":2,"matches":2`},
		{`{}`, nil, `"verdict":"the filter matches 4 document(s)"`},
	}
	for _, c := range cases {
		args := append([]string{"diagnose", file, "users", c.filter}, c.extra...)
		fcode, fout, ferr := runCLI(t, "", args...)
		args[1] = uri
		mcode, mout, merr := runCLI(t, "", args...)
		bound := `,"bound":100000}`
		if len(c.extra) > 0 {
			bound = `,"bound":2}`
		}
		if fcode != 0 || mcode != 0 || !strings.HasSuffix(mout, bound+"\n") {
			t.Errorf("diagnose %s: file exit %d %s, mongo exit %d %s %s", c.filter, fcode, ferr, mcode, mout, merr)
			continue
		}
		if got := strings.Replace(mout, bound, "}", 1); got != fout {
			t.Errorf("diagnose %s:\n file  %s mongo %s", c.filter, fout, mout)
		}
		if !strings.Contains(mout, c.check) {
			t.Errorf("diagnose %s: %s\nlacks %s", c.filter, mout, c.check)
		}
	}
}

// TestMongo_Explain explains on the server: the file's shape, the plan
// marked as the server's, the server's own answer kept, and what FerretDB
// cannot give (statistics) said in a note.
func TestMongo_Explain(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	cases := []struct {
		args []string
		want map[string]string // field: its JSON
	}{
		{[]string{`{"age":{"$gte":30}}`, "--sort", `{"name":1}`, "--skip", "1", "--limit", "2"}, map[string]string{
			"collection": `"users"`, "filter": `{"age":{"$gte":30}}`, "sort": `{"name":1}`, "skip": `1`, "limit": `2`,
			"planner": `"server"`, "winningPlan": `{"stage":"COLLSCAN","direction":"forward"}`, "sortBy": `"memory"`, "rejectedPlans": `[]`,
			"notes": `["the server planned in SQLite (FerretDB): the stage is read from its plan lines, kept in serverExplain"]`}},
		{[]string{`{"age":30}`, "--count", "--execute"}, map[string]string{
			"filter": `{"age":30}`, "count": `true`, "winningPlan": `{"stage":"COLLSCAN","direction":"forward"}`,
			"notes": `["the server planned in SQLite (FerretDB): the stage is read from its plan lines, kept in serverExplain","the server gave no execution statistics (executionStats): nothing was counted"]`}},
		{[]string{}, map[string]string{"filter": `{}`}},
	}
	for _, c := range cases {
		args := append([]string{"explain", uri, "users"}, c.args...)
		code, stdout, stderr := runCLI(t, "", args...)
		var got map[string]json.RawMessage
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
			continue
		}
		for k, want := range c.want {
			if string(got[k]) != want {
				t.Errorf("%s: %s = %s, want %s", strings.Join(args, " "), k, got[k], want)
			}
		}
		var server struct {
			QueryPlanner struct{ Plan []string }
			Command      any
		}
		json.Unmarshal(got["serverExplain"], &server)
		if len(server.QueryPlanner.Plan) == 0 || !strings.Contains(server.QueryPlanner.Plan[0], "SCAN") || server.Command != nil {
			t.Errorf("%s: serverExplain %s, want FerretDB's plan lines without the command", strings.Join(args, " "), got["serverExplain"])
		}
	}
}

// TestMongo_ExplainDiagnoseErrors: a bad filter gets the file's error
// before anything is sent, a missing collection a did-you-mean, and the
// flags that do not work over MongoDB a usage error.
func TestMongo_ExplainDiagnoseErrors(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	for _, args := range [][]string{
		{"explain", "STORE", "users", `{"age":{"$gtt":1}}`},
		{"explain", "STORE", "users", "{}", "--sort", `{"a":"up"}`},
		{"diagnose", "STORE", "users", `{"$where":"1"}`},
		{"diagnose", "STORE", "users", `{"$text":{"$search":"x"}}`},
		{"diagnose", "STORE", "users", `{"a":1}`, "--limit", "-1"},
		{"explain", "STORE", "usrs", "{}"},
		{"diagnose", "STORE", "usrs", "{}"},
	} {
		fa := append([]string(nil), args...)
		fa[1] = file
		fcode, _, fstderr := runCLI(t, "", fa...)
		ma := append([]string(nil), args...)
		ma[1] = uri
		mcode, mstdout, mstderr := runCLI(t, "", ma...)
		if fcode == 0 || mcode != fcode || mstdout != "" || !strings.Contains(mstderr, "hint: ") {
			t.Errorf("omgdb %s:\n file  exit %d: %q\n mongo exit %d: %q (stdout %q)", strings.Join(args, " "), fcode, fstderr, mcode, mstderr, mstdout)
		}
		if !strings.Contains(args[2], "usrs") && mstderr != fstderr {
			t.Errorf("omgdb %s: mongo %q, file %q", strings.Join(args, " "), mstderr, fstderr)
		}
	}
	args := []string{"explain", uri, "users", "{}", "--hint", "_id_"}
	if code, stdout, stderr := runCLI(t, "", args...); code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, "does not work over MongoDB yet") {
		t.Errorf("omgdb %s: exit %d, stdout %q, stderr %q; want 64", strings.Join(args, " "), code, stdout, stderr)
	}
}

// TestMongo_SuggestIndexesMatchesFile: the file's suggestions (keys,
// estimates, gains, reasons) from counts on the server, with the mongosh
// statement that creates each and the server's existing index named.
func TestMongo_SuggestIndexesMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStoresWith(t, mongoDiagUsers)
	type sugg struct {
		Documents   int64
		Current     map[string]any
		Suggestions []map[string]any
		Notes       []string
	}
	run := func(store string, args ...string) sugg {
		t.Helper()
		var s sugg
		out := mustRun(t, append([]string{"suggest-indexes", store, "users"}, args...)...)
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, args := range [][]string{
		{`{"city":"Paris","age":{"$gte":25}}`, "--sort", `{"name":1}`},
		{`{"name":"bob"}`},
		{`{"tags":"b","age":{"$lt":{"$numberLong":"31"}}}`},
		{`{"city":null}`},
		{`{"$or":[{"a":1},{"b":2}]}`},
	} {
		f, m := run(file, args...), run(uri, args...)
		if len(f.Suggestions) != len(m.Suggestions) || f.Documents != m.Documents || f.Current["docs_examined"] != m.Current["docs_examined"] ||
			f.Current["sort_in_memory"] != m.Current["sort_in_memory"] {
			t.Errorf("%v:\n file  %+v\n mongo %+v", args, f, m)
			continue
		}
		for i := range f.Suggestions {
			for _, k := range []string{"key", "docs_examined", "sort_in_memory", "gain", "reason"} {
				if fj, mj := fmt.Sprint(f.Suggestions[i][k]), fmt.Sprint(m.Suggestions[i][k]); fj != mj {
					t.Errorf("%v suggestion %d %s: file %s, mongo %s", args, i, k, fj, mj)
				}
			}
			if c, _ := m.Suggestions[i]["command"].(string); !strings.HasPrefix(c, `db.getCollection("users").createIndex({`) {
				t.Errorf("%v: command %q", args, c)
			}
		}
		if !strings.Contains(strings.Join(m.Notes, "\n"), "current is the server's plan") {
			t.Errorf("%v: notes %q", args, m.Notes)
		}
	}
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	if _, err := c.Database("app").Collection("users").Indexes().CreateOne(context.Background(),
		mongo.IndexModel{Keys: bson.D{{Key: "name", Value: -1}}}); err != nil {
		t.Fatal(err)
	}
	if m := run(uri, `{"name":"bob"}`); m.Suggestions[0]["existing"] != "name_-1" {
		t.Errorf("the existing index is not named: %+v", m.Suggestions)
	}
}

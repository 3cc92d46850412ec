package cli_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
)

// TestMongo_Collation: --collation over MongoDB is checked by omgdb's
// parser before anything is sent (a bad one is exit 65 even with no
// server), then sent; FerretDB, which has no collations, refuses it and
// omgdb says so (exit 64) without printing or storing anything.
// {"locale":"simple"} is no collation and runs.
func TestMongo_Collation(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	const en = `{"locale":"en","strength":2}`
	cmds := [][]string{
		{"find", uri, "users", "{}", "--collation", en},
		{"count", uri, "users", "--collation", en},
		{"distinct", uri, "users", "name", "--collation", en},
		{"aggregate", uri, "users", `[{"$sort":{"name":1}}]`, "--collation", en},
		{"plan-update", uri, "users", `{"name":"ANA"}`, `{"$set":{"x":1}}`, "--collation", en},
		{"plan-delete", uri, "users", `{"name":"ANA"}`, "--collation", en},
		{"explain", uri, "users", `{"name":"ANA"}`, "--collation", en},
		{"explain", uri, "users", `{"name":"ANA"}`, "--count", "--execute", "--collation", en},
	}
	for _, args := range cmds {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, "does not support collations: it answered NotImplemented") ||
			!strings.Contains(stderr, "hint: leave the collation out") {
			t.Errorf("omgdb %s: exit %d, stdout %q, stderr %q; want FerretDB's refusal, exit 64", strings.Join(args, " "), code, stdout, stderr)
		}
		bad := append([]string(nil), args...)
		bad[1], bad[len(bad)-1] = "mongodb://127.0.0.1:1/app", `{"locale":"en","strenght":2}`
		code, _, stderr = runCLI(t, "", bad...)
		if code != cli.ExitData || !strings.Contains(stderr, "invalid collation: unknown field `strenght`") || strings.Contains(stderr, "127.0.0.1:1") {
			t.Errorf("omgdb %s: exit %d, %q; want omgdb's own error before connecting", strings.Join(bad, " "), code, stderr)
		}
	}
	// A read at a revision runs in omgdb's own engine, with omgdb's own
	// collator: the collation works there even on FerretDB.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"find", uri, "users", `{"name":"ANA"}`, "--project", `{"name":1}`}, `{"_id":1,"name":"ana"}` + "\n"},
		{[]string{"count", uri, "users", `{"city":"PARIS"}`}, "2\n"},
		{[]string{"distinct", uri, "users", "city", `{"name":{"$in":["ANA","BOB"]}}`}, `"Lyon"` + "\n" + `"Paris"` + "\n"},
		{[]string{"aggregate", uri, "users", `[{"$match":{"name":{"$gte":"B"}}},{"$count":"n"}]`}, `{"n":3}` + "\n"},
	} {
		args := append(c.args, "--at", "now", "--collation", en)
		if got := runOK(t, "", args...); got != c.want {
			t.Errorf("omgdb %s: %q, want %q", strings.Join(args, " "), got, c.want)
		}
		// Without the collation, strings compare by code point.
		if got := runOK(t, "", append(c.args, "--at", "now")...); got == c.want {
			t.Errorf("omgdb %s --at now without the collation: %q, the collated answer", strings.Join(c.args, " "), got)
		}
	}
	code, _, stderr := runCLI(t, "", "count", uri, "users", "--at", "now", "--collation", `{"locale":"en","strenght":2}`)
	if code != cli.ExitData || !strings.Contains(stderr, "invalid collation: unknown field `strenght`") {
		t.Errorf("--at with a bad collation: exit %d, %q", code, stderr)
	}
	for _, js := range []string{
		"db.users.find().collation({locale: 'en', strength: 2}).toArray()",
		"db.users.findOne({}, {}, {collation: {locale: 'en'}})",
		"db.users.countDocuments({}, {collation: {locale: 'en'}})",
		"db.users.distinct('name', {}, {collation: {locale: 'en'}})",
		"db.users.aggregate([], {collation: {locale: 'en'}}).toArray()",
	} {
		code, stdout, stderr := runCLI(t, "", "shell", uri, "--eval", js)
		if code != cli.ExitUsage || !strings.Contains(stderr, "does not support collations: it answered NotImplemented") {
			t.Errorf("shell %s: exit %d, %q %q; want FerretDB's refusal, exit 64", js, code, stdout, stderr)
		}
	}
	code, _, stderr = runCLI(t, "", "shell", uri, "--eval", "db.users.countDocuments({}, {collation: {locale: 'en', strenght: 1}})")
	if code != cli.ExitData || !strings.Contains(stderr, "invalid collation: unknown field `strenght`") {
		t.Errorf("shell with a bad collation: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCLI(t, "", "shell", uri, "--eval", "db.users.countDocuments({}, {collation: {locale: 'simple'}})"); code != 0 || out == "" || out == "0\n" {
		t.Errorf("shell count with the simple collation: exit %d %q %s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "", "history", uri); code != 0 || out != "" {
		t.Errorf("history after refused plans: %q", out)
	}
	if code, out, stderr := runCLI(t, "", "count", uri, "users", "--collation", `{"locale":"simple"}`); code != 0 || out == "" || out == "0\n" {
		t.Errorf("count with the simple collation: exit %d %q %s", code, out, stderr)
	}
}

package cli_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
)

// TestMongo_ShellExplainStats: the shell's explain forms give the
// server's plan in the file's shape, db.stats() the file's fields the
// server has, and what does not apply is refused before anything is
// sent.
func TestMongo_ShellExplainStats(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	cases := []struct {
		code string
		want []string // parts of the printed result
	}{
		{`db.users.find({age: {$gte: 30}}).sort({name: 1}).limit(2).explain()`, []string{
			`collection: 'users'`, `filter: { age: { $gte: 30 } }`, `sort: { name: 1 }`, `limit: 2`, `planner: 'server'`,
			`winningPlan: { stage: 'COLLSCAN', direction: 'forward' }`, `sortBy: 'memory'`, `serverExplain: {`}},
		{`db.users.find({city: 'Paris'}).explain('executionStats')`, []string{`the server gave no execution statistics`}},
		{`db.users.explain().find({tags: 'b'}, {name: 1})`, []string{`filter: { tags: 'b' }`, `planner: 'server'`}},
		{`db.stats()`, []string{`collections: 1`, `objects: 4`, `db: '` + uri + `'`}},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, "", "shell", uri, "--eval", c.code)
		if code != 0 {
			t.Errorf("shell --eval %s: exit %d, stderr %q", c.code, code, stderr)
			continue
		}
		for _, part := range c.want {
			if !strings.Contains(out, part) {
				t.Errorf("shell --eval %s:\n%s\nlacks %q", c.code, out, part)
			}
		}
		if strings.Contains(c.code, "explain()") && strings.Contains(out, "execution statistics") {
			t.Errorf("shell --eval %s: explain() ran the query: %s", c.code, out)
		}
		if strings.Contains(out, "fileSize") {
			t.Errorf("shell --eval %s: a deployment has no fileSize: %s", c.code, out)
		}
	}
	for _, c := range []struct {
		code string
		exit int
		msg  string
	}{
		{`db.users.find({age: {$gtt: 1}}).explain()`, cli.ExitData, "$gtt"},
		{`db.users.find().collation({locale: 'en'}).explain()`, cli.ExitUsage, "does not support collations: it answered NotImplemented"},
		{`db.users.find().collation({locale: 'en', strenght: 2}).explain()`, cli.ExitData, "invalid collation: unknown field `strenght`"},
		{`db.users.aggregate([]).explain()`, cli.ExitUsage, "explain of an aggregate is not offered"},
		{`db.usrs.find().explain()`, cli.ExitNotFound, "did you mean `users`?"},
	} {
		code, out, stderr := runCLI(t, "", "shell", uri, "--eval", c.code)
		if code != c.exit || out != "" || !strings.Contains(stderr, c.msg) {
			t.Errorf("shell --eval %s: exit %d, stdout %q, stderr %q; want %d and %q", c.code, code, out, stderr, c.exit, c.msg)
		}
	}
}

package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTimeout_HugeStringRegex: a regular expression over one string of
// almost 16 MiB answers LIMIT_EXCEEDED within the timeout plus 100 ms
// plus what a cheap read of the same documents takes, in
// a filter's $regex, a $regexMatch, a $regexFind and a $regexFindAll, for
// find, count and aggregate. Before, Go's regexp ran each match to its
// end: about 3 s for (a?){8}z over 16 MiB on this machine, whatever the deadline.
func TestTimeout_HugeStringRegex(t *testing.T) {
	const timeout = 300 * time.Millisecond
	f := newFixture(t, Config{Scope: ScopeRead, Timeout: timeout})
	path := filepath.Join(f.root, "huge.omgdb")
	makeStore(t, path, map[string][]string{"notes": {
		`{"_id":1,"title":"short"}`,
		`{"_id":2,"title":"` + strings.Repeat("a", 16<<20-64) + `"}`,
	}})
	const re = `(a?){8}z`
	coll := `"path":"huge.omgdb","collection":"notes"`
	calls := []struct{ tool, args string }{
		{"find", `{` + coll + `,"filter":{"title":{"$regex":"` + re + `"}}}`},
		{"count", `{` + coll + `,"filter":{"title":{"$regex":"` + re + `","$options":"i"}}}`},
		{"count", `{` + coll + `,"filter":{"title":{"$in":[{"$regex":"` + re + `"}]}}}`},
		{"find", `{` + coll + `,"filter":{"$expr":{"$regexMatch":{"input":"$title","regex":"` + re + `"}}}}`},
		{"aggregate", `{` + coll + `,"pipeline":[{"$match":{"title":{"$regex":"` + re + `"}}}]}`},
		{"aggregate", `{` + coll + `,"pipeline":[{"$project":{"m":{"$regexFind":{"input":"$title","regex":"` + re + `"}}}}]}`},
		{"aggregate", `{` + coll + `,"pipeline":[{"$project":{"m":{"$regexFindAll":{"input":"$title","regex":"` + re + `"}}}}]}`},
	}
	// What reading the huge document costs, whatever the deadline: a
	// cheap filter over the same documents (the slowest of three).
	var read time.Duration
	for range 3 {
		start := time.Now()
		f.callTool("count", `{`+coll+`,"filter":{"title":"x"}}`)
		read = max(read, time.Since(start))
	}
	for _, c := range calls {
		if took, ok := f.withinTimeoutPlus(c.tool, c.args, CodeLimitExceeded, read); !ok {
			t.Errorf("%s %.90s…: answered after %v, over the %v timeout plus %v plus the %v a read of the documents takes", c.tool, c.args, took.Round(time.Millisecond), timeout, slack, read.Round(time.Millisecond))
		}
	}
	// The short document alone still matches: the deadline is the only
	// reason the calls above fail.
	res := f.callTool("count", fmt.Sprintf(`{%s,"filter":{"_id":1,"title":{"$regex":"^sh"}}}`, coll))
	if sc := structured(t, res); sc["count"] != float64(1) {
		t.Fatalf("count of the short note: %s", resultText(res))
	}
}

// TestTimeout_HugeStringRegexUpdates: the plan tools stop at the deadline
// while they apply an update to a matched document, not only while they
// match: a pipeline update's $regexMatch, a $pull condition, an array
// filter and a $merge whenMatched pipeline over strings of 4 MiB and 2 MiB
// (one document holds both; each match takes 0.6-1.5 s without the
// deadline, and reading the document stays well within the slack even
// under the race detector). Before,
// the update itself ignored the deadline (about 7 s against 300 ms).
func TestTimeout_HugeStringRegexUpdates(t *testing.T) {
	const timeout = 300 * time.Millisecond
	f := newFixture(t, Config{Scope: ScopeReadWrite, Timeout: timeout})
	path := filepath.Join(f.root, "huge.omgdb")
	huge := strings.Repeat("a", 4<<20)
	makeStore(t, path, map[string][]string{"notes": {
		`{"_id":1,"title":"short","tags":["x"]}`,
		`{"_id":2,"title":"` + huge + `","tags":["` + huge[:2<<20] + `"]}`,
	}})
	const re = `(a?){8}z`
	coll := `"path":"huge.omgdb","collection":"notes"`
	calls := []struct{ tool, args string }{
		{"plan_update", `{` + coll + `,"filter":{"_id":2},"update":[{"$set":{"m":{"$regexMatch":{"input":"$title","regex":"` + re + `"}}}}]}`},
		{"plan_update", `{` + coll + `,"filter":{"_id":2},"update":{"$pull":{"tags":{"$regex":"` + re + `"}}}}`},
		{"plan_update", `{` + coll + `,"filter":{"_id":2},"update":{"$set":{"tags.$[t]":"y"}},"array_filters":[{"t":{"$regex":"` + re + `"}}]}`},
		{"plan_aggregate", `{` + coll + `,"pipeline":[{"$match":{"_id":2}},{"$project":{"_id":1}},{"$merge":{"into":"notes","whenMatched":[{"$set":{"m":{"$regexMatch":{"input":"$title","regex":"` + re + `"}}}}]}}]}`},
	}
	for _, c := range calls {
		if took, ok := f.withinTimeout(c.tool, c.args, CodeLimitExceeded); !ok {
			t.Errorf("%s %.120s…: answered after %v, over the %v timeout plus %v", c.tool, c.args, took.Round(time.Millisecond), timeout, slack)
		}
	}
	// On the short document the same updates succeed: the deadline is the
	// only reason the calls above fail.
	res := f.callTool("plan_update", `{`+coll+`,"filter":{"_id":1},"update":{"$pull":{"tags":{"$regex":"`+re+`"}}}}`)
	if sc := structured(t, res); sc["matched"] != float64(1) {
		t.Fatalf("plan_update of the short note: %s", resultText(res))
	}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/omgdb/omgdb/query/value"
)

// bigStore makes app.omgdb with collection c of n documents {_id, k: _id%3},
// without an index on k.
func (f *fixture) bigStore(n int) {
	f.t.Helper()
	makeStore(f.t, filepath.Join(f.root, "app.omgdb"), map[string][]string{"c": manyDocs(n, "")})
}

// TestFind_MatchedAtLeast: a full page on a large collection without an
// index counts on through findCountAhead more matches only, and then says
// matched {"at_least": N} and which bound stopped it; a count that ends
// within the bound, and the count of a find without a filter, stay exact
// integers.
func TestFind_MatchedAtLeast(t *testing.T) {
	f := newFixture(t, Config{})
	f.bigStore(20000) // 6,667 documents have k 1
	schema := f.srv.known["find"].Output
	for _, tc := range []struct {
		name, args string
		want       any
		countCap   bool
	}{
		{"bounded", `"filter":{"k":1},"limit":10`, map[string]any{"at_least": 1010.0}, true},
		{"bounded, second page", `"filter":{"k":1},"limit":10,"skip":10`, map[string]any{"at_least": 1020.0}, true},
		{"bounded, projected", `"filter":{"k":1},"limit":10,"project":{"k":1}`, map[string]any{"at_least": 1010.0}, true},
		{"exact within the bound", `"filter":{"k":1,"_id":{"$lt":900}},"limit":10`, 300.0, false},
		{"no filter", `"limit":10`, 20000.0, false},
		{"skip past the matches", `"filter":{"k":1,"_id":{"$lt":900}},"skip":400`, 300.0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"c",`+tc.args+`}`))
			if !equalJSON(sc["matched"], tc.want) {
				t.Errorf("matched = %v, want %v", sc["matched"], tc.want)
			}
			limits, _ := sc["applied_limits"].(map[string]any)
			if got := limits["count"] != nil; got != tc.countCap || got && limits["count"] != float64(findCountAhead) {
				t.Errorf("applied_limits = %v", sc["applied_limits"])
			}
			if err := validateSchema(schema, sc); err != nil {
				t.Errorf("result does not match the output schema: %v", err)
			}
		})
	}
	sc := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"c","filter":{"k":1},"limit":3,"project":{"_id":1}}`))
	if join(docIDs(t, sc)) != "1,4,7" {
		t.Errorf("first page %v", docIDs(t, sc))
	}
	next := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"c","filter":{"k":1},"limit":3,"project":{"_id":1},"cursor":"`+sc["cursor"].(string)+`"}`))
	if join(docIDs(t, next)) != "10,13,16" || !equalJSON(next["matched"], map[string]any{"at_least": 1006.0}) {
		t.Errorf("the cursor's page: %v matched %v", docIDs(t, next), next["matched"])
	}
}

// TestFind_MatchedByIndex: when an index covers the filter, a full page
// gives the exact count, from the index entries.
func TestFind_MatchedByIndex(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.bigStore(5000) // 1,667 documents have k 1: more than a page and findCountAhead
	if code := errorCode(f.callTool("create_index", `{"path":"app.omgdb","collection":"c","fields":"k"}`)); code != "" {
		t.Fatalf("create_index: %s", code)
	}
	sc := structured(t, f.callTool("find", `{"path":"app.omgdb","collection":"c","filter":{"k":1},"limit":10}`))
	if sc["matched"] != 1667.0 || sc["returned"] != 10.0 {
		t.Errorf("matched %v, returned %v; want 1667 and 10", sc["matched"], sc["returned"])
	}
	if limits, _ := sc["applied_limits"].(map[string]any); limits["count"] != nil {
		t.Errorf("an exact count says applied_limits %v", limits)
	}
}

// errCounter counts how often the store asks whether the call is over: a
// scan asks once per document it reads (a covered count once per 4,096
// index keys), so the count bounds the documents read.
type errCounter struct {
	context.Context
	n atomic.Int64
}

func (c *errCounter) Err() error {
	c.n.Add(1)
	return c.Context.Err()
}

// TestFind_OneScan: a full page of a find without an index reads the page
// and findCountAhead more matches, in one scan, never the whole
// collection: a second scan to count every match would read all 60,000
// documents.
func TestFind_OneScan(t *testing.T) {
	f := newFixture(t, Config{})
	f.bigStore(60000)
	find := f.srv.known["find"]
	args, err := find.checkArgs(value.MustParse(`{"path":"app.omgdb","collection":"c","filter":{"k":1},"limit":10}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &errCounter{Context: context.Background()}
	out, err := find.Run(ctx, &call{srv: f.srv, sess: f.sess, tool: find, args: args})
	if err != nil {
		t.Fatal(err)
	}
	if m := out.matched; !m.atLeast || m.n != 10+findCountAhead {
		t.Errorf("matched %+v, want at least %d", m, 10+findCountAhead)
	}
	// The page and the count read about 3 × 1,010 documents (the filter
	// matches one in three): as many asks, far from the 60,000 of a
	// second, whole scan.
	if n := ctx.n.Load(); n > 3100 {
		t.Errorf("the store asked %d times whether the call was over (once per document scanned): the find read more than one bounded scan", n)
	}
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

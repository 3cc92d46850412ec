package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
)

// TestMongo_CompactHistoryBefore: compact --history-before --yes over
// MongoDB prunes the journal up to the revision (a file's compact also
// rewrites the file; a deployment reclaims its own space): history keeps
// only the later changes, a revision before the cut is refused, the
// state at the cut still reads; without --yes, and compact alone, are
// refused before anything is sent.
func TestMongo_CompactHistoryBefore(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	for _, w := range [][]string{
		{"update", uri, "users", `{"_id":1}`, `{"$set":{"v":{"$numberLong":"1"}}}`},
		{"snapshot", "create", uri, "cut"},
		{"update", uri, "users", `{"_id":2}`, `{"$set":{"v":null}}`},
	} {
		if code, _, stderr := runCLI(t, "", w...); code != 0 {
			t.Fatalf("omgdb %s: exit %d %s", strings.Join(w, " "), code, stderr)
		}
	}
	for _, args := range [][]string{
		{"compact", uri, "--history-before", "cut"},
		{"compact", uri},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != cli.ExitUsage || !strings.Contains(stderr, "hint: ") {
			t.Errorf("omgdb %s: exit %d %s, want 64", strings.Join(args, " "), code, stderr)
		}
	}
	_, before, _ := runCLI(t, "", "find", uri, "users", "--at", "cut")
	code, out, stderr := runCLI(t, "", "compact", uri, "--history-before", "cut", "--yes")
	var res struct {
		Seq int64 `json:"history_starts_at_seq"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || !strings.Contains(out, `"changes_pruned":1`) || !strings.Contains(out, `"items_pruned":1`) || res.Seq != 1 {
		t.Fatalf("compact --history-before: exit %d %s%s", code, out, stderr)
	}
	if _, hist, _ := runCLI(t, "", "history", uri); strings.Count(hist, "\n") != 1 {
		t.Errorf("history after the prune:\n%s", hist)
	}
	if _, after, _ := runCLI(t, "", "find", uri, "users", "--at", "cut"); after != before {
		t.Errorf("at the cut after the prune:\n%s\nwant:\n%s", after, before)
	}
	if code, _, stderr := runCLI(t, "", "find", uri, "users", "--at", "0"); code != cli.ExitNotFound || !strings.Contains(stderr, "before the history kept") {
		t.Errorf("a revision before the cut: exit %d %s", code, stderr)
	}
}

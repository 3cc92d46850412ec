package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// crashHistorySource is a store file with 40 changes: inserts, updates
// and deletes in two collections, and a rollback.
func crashHistorySource(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "src.omgdb")
	for i := 0; i < 16; i++ {
		mustRun(t, "insert", path, []string{"a", "b"}[i%2], fmt.Sprintf(`{"_id":%d,"v":{"$numberLong":"%d"},"tags":[%d,null]}`, i, i*7, i))
	}
	for i := 0; i < 16; i++ {
		mustRun(t, "update", path, []string{"a", "b"}[i%2], fmt.Sprintf(`{"_id":%d}`, i), `{"$inc":{"v":1},"$set":{"w":1.5}}`, "--one")
	}
	for i := 0; i < 6; i++ {
		mustRun(t, "delete", path, []string{"a", "b"}[i%2], fmt.Sprintf(`{"_id":%d}`, i), "--one")
	}
	last := historyLines(t, path)[0]["change"].(string)
	mustRun(t, "rollback", path, last)
	mustRun(t, "insert", path, "a", `{"_id":100,"s":"last"}`)
	return path
}

// findAll prints the documents of a and b, types canonical (dump does
// not run over MongoDB).
func findAll(t *testing.T, store string) string {
	t.Helper()
	return mustRun(t, "find", store, "a", "--ejson", "canonical") + mustRun(t, "find", store, "b", "--ejson", "canonical")
}

// byID reads find's canonical lines by _id.
func byID(t *testing.T, lines string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		if l == "" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("find line %q: %v", l, err)
		}
		out[string(m["_id"])] = l
	}
	return out
}

// checkCarriedState fails unless each document the target holds, after
// a kill that left n changes in its journal, is as the source had it
// after change n, or after change n+1 (a document of the change being
// carried at the kill): a journaled change has all its documents.
func checkCarriedState(t *testing.T, src, dst string, n, total int) {
	t.Helper()
	for _, coll := range []string{"a", "b"} {
		at := func(rev int) map[string]string {
			if rev == 0 {
				return map[string]string{}
			}
			code, out, _ := runCLI(t, "", "find", src, coll, "--at", fmt.Sprint(min(rev, total)), "--ejson", "canonical")
			if code != 0 {
				return map[string]string{} // the collection did not exist yet
			}
			return byID(t, out)
		}
		code, out, _ := runCLI(t, "", "find", dst, coll, "--ejson", "canonical")
		if code != 0 {
			out = ""
		}
		got, now, next := byID(t, out), at(n), at(n+1)
		for id := range merged(got, now, next) {
			if g := got[id]; g != now[id] && g != next[id] {
				t.Fatalf("after a kill with %d change(s) journaled, %s _id %s is %q: neither the source's state after change %d (%q) nor after change %d (%q)", n, coll, id, g, n, now[id], n+1, next[id])
			}
		}
	}
}

func merged(ms ...map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// historyPrefix fails unless the target's history (newest first) is the
// source's first changes, each listed alike but for its status (a
// change whose rollback is not carried yet is still applied).
func historyPrefix(t *testing.T, target string, want []map[string]any) int {
	t.Helper()
	code, out, stderr := runCLI(t, "", "history", target)
	if code != 0 {
		t.Fatalf("history of %s after a kill: exit %d: %s", target, code, stderr)
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return 0
	}
	got := strings.Split(out, "\n")
	n := len(got)
	for i, h := range historyLines(t, target) {
		w := want[len(want)-n+i]
		h["status"], w["status"] = nil, nil
		if historyKey(h) != historyKey(w) {
			t.Fatalf("history of %s after a kill, line %d: %s\nwant %s", target, i, historyKey(h), historyKey(w))
		}
	}
	return n
}

// TestCrash_KillCopyHistory kills `omgdb copy --history` with SIGKILL at
// random moments, into a store file at a commit (the change's record
// put, not committed) and into MongoDB at the point where a carried
// change's documents are written and its journal entry is not. After
// each kill the target's history is the source's first changes, each
// listed alike (no change half there: a store file's change is one
// transaction, and a deployment's entry is written after its
// documents), a store file opens and verifies clean, and `copy
// --history --resume` then finishes it: dump and history equal the
// source's.
func TestCrash_KillCopyHistory(t *testing.T) {
	t.Parallel()
	seed, s, _ := mongoCrashSetup(t)
	src := crashHistorySource(t)
	wantDump, wantHist := findAll(t, src), historyLines(t, src)
	wantKeys := historyKeys(t, src)
	dir := t.TempDir()
	cycles := 8
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		for _, into := range []string{"file", "mongo"} {
			dst := filepath.Join(dir, fmt.Sprintf("d%d.omgdb", c))
			k := crashtest.Kill{Workload: "cli", Delay: time.Duration(r.IntN(400000)) * time.Microsecond}
			if into == "file" && c%2 == 1 { // at a commit, the change's record put
				k.Failpoint, k.Delay = fmt.Sprintf("commit:%d", 1+r.IntN(len(wantHist))), time.Minute
			}
			if into == "mongo" {
				dst = s.URI + fmt.Sprintf("h%d", c)
				k.Delay = time.Duration(r.IntN(1500000)) * time.Microsecond
				if c%2 == 1 {
					k.Failpoint, k.Delay = fmt.Sprintf("carry-docs:%d", 1+r.IntN(len(wantHist))), time.Minute
				}
			}
			k.Args = []string{"", "copy", src, dst, "--history"}
			o, err := crashtest.Run(k)
			completed := o != nil && o.Exited && o.ExitCode == 0
			if err != nil && !completed {
				t.Fatalf("cycle %d into %s: %v", c, into, err)
			}
			n := 0
			if _, err := os.Stat(dst); into == "mongo" || err == nil {
				if into == "file" {
					openVerified(t, dst, "copy --history").Close()
				}
				n = historyPrefix(t, dst, wantHist)
				checkCarriedState(t, src, dst, n, len(wantHist))
			}
			switch {
			case completed:
				outcomes[into+": completed"]++
			case n == 0:
				outcomes[into+": killed before the first change"]++
			default:
				outcomes[into+": killed after some changes"]++
			}
			if code, _, stderr := runCLI(t, "", "copy", src, dst, "--history", "--resume"); code != 0 {
				t.Fatalf("cycle %d into %s: resume after %d change(s): exit %d: %s", c, into, n, code, stderr)
			}
			if got := findAll(t, dst); got != wantDump {
				t.Fatalf("cycle %d into %s: dump after the resume differs from the source's:\n%s", c, into, got)
			}
			if got := historyKeys(t, dst); strings.Join(got, "\n") != strings.Join(wantKeys, "\n") {
				t.Fatalf("cycle %d into %s: history after the resume:\n%s\nwant:\n%s", c, into, strings.Join(got, "\n"), strings.Join(wantKeys, "\n"))
			}
			// The first change created the collection, also when a kill
			// came after it had: before it, there is no collection.
			if code, _, _ := runCLI(t, "", "find", dst, "a", "--at", "0"); code != 66 {
				t.Fatalf("cycle %d into %s: find a --at 0 after the resume: exit %d, want 66 (no collection yet)", c, into, code)
			}
		}
	}
	t.Logf("%d copies --history killed or completed (%d changes each): %v; every target's history was a prefix of the source's, and a resume completed it with dump and history equal", 2*cycles, len(wantHist), outcomes)
}

package store_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

var (
	crashCycles = flag.Int("crash.cycles", 0, "kill cycles of TestCrash_KillWriter (default 200, 30 with -short, or $OMGDB_CRASH_CYCLES)")
	crashSeed   = flag.Uint64("crash.seed", 0, "seed of the crash tests' random choices (default: from the clock)")
)

// crashEpoch is how many cycles share one store before a fresh one is
// started, which keeps the per-cycle check cheap and makes kills during
// the creation of a store part of the mix.
const crashEpoch = 25

func crashCycleCount() int {
	if *crashCycles > 0 {
		return *crashCycles
	}
	if n, err := strconv.Atoi(os.Getenv("OMGDB_CRASH_CYCLES")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 30
	}
	return 200
}

// testSeed returns the seed of a randomised run: -crash.seed when given,
// a fresh one when OMGDB_RANDOM_SEED=1 (for long hunts), and otherwise a
// fixed one, so that the default suite is repeatable.
func testSeed(t *testing.T) uint64 {
	seed := *crashSeed
	switch {
	case seed != 0:
	case os.Getenv("OMGDB_RANDOM_SEED") == "1":
		seed = uint64(time.Now().UnixNano())
	default:
		seed = 20261122
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	return seed
}

// crashStats are the figures a crash run reports.
type crashStats struct {
	cycles, early, ackedTxns, ackedWrites, docsChecked int64
	inFlightCommitted, inFlightLost                    int64
	lost, failedOpens                                  int64
}

// TestCrash_KillWriter kills a writer with SIGKILL at random moments, many
// times, and after each kill reopens the store and checks it: it opens,
// Verify finds nothing wrong (pages, checksums, counts, and a journal that
// accounts for every document), and its contents are exactly the
// acknowledged transactions, plus at most the one that was in flight when
// the kill came, whole or not at all.
func TestCrash_KillWriter(t *testing.T) {
	cycles, seed := crashCycleCount(), testSeed(t)
	dir := t.TempDir()
	var st crashStats
	var state *crashState
	var path string
	start := time.Now()
	for c := 0; c < cycles && !t.Failed(); c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		if c%crashEpoch == 0 {
			os.Remove(path)
			path, state = filepath.Join(dir, fmt.Sprintf("crash-%d.omgdb", c/crashEpoch)), newCrashState()
		}
		k := crashtest.Kill{Workload: "writer", Args: []string{path, fmt.Sprint(seed), fmt.Sprint(c*100000 + 1)}, Delay: crashDelay(r)}
		if c%crashEpoch == 0 && r.IntN(2) == 0 {
			k.Early, k.Delay = true, time.Duration(r.IntN(40000))*time.Microsecond
			st.early++
		}
		o, err := crashtest.Run(k)
		if err != nil {
			if o != nil && !o.Ready {
				st.failedOpens++ // the writer could not open the store after the last kill
			}
			t.Fatalf("cycle %d: %v", c, err)
		}
		state = checkCrashCycle(t, c, path, state, o.Lines, &st)
		st.cycles++
	}
	t.Logf("crash: %d cycles (%d killed while opening or creating the store) in %s", st.cycles, st.early, time.Since(start).Round(time.Millisecond))
	t.Logf("crash: %d acknowledged transactions (%d document writes) checked, %d document states compared", st.ackedTxns, st.ackedWrites, st.docsChecked)
	t.Logf("crash: in-flight transaction at the kill: %d committed whole, %d not at all", st.inFlightCommitted, st.inFlightLost)
	t.Logf("crash: acknowledged writes lost: %d, failed opens: %d", st.lost, st.failedOpens)
}

// crashDelay draws how long after "ready" the writer is killed.
func crashDelay(r *rand.Rand) time.Duration {
	switch r.IntN(10) {
	case 0, 1, 2:
		return time.Duration(r.IntN(3000)) * time.Microsecond
	case 3:
		return 25*time.Millisecond + time.Duration(r.IntN(100))*time.Millisecond
	}
	return time.Duration(r.IntN(25000)) * time.Microsecond
}

// checkCrashCycle checks the store after a kill and returns its state.
func checkCrashCycle(t *testing.T, cycle int, path string, before *crashState, lines []string, st *crashStats) *crashState {
	t.Helper()
	acked, pending, err := parseCrashLines(lines)
	if err != nil {
		t.Fatalf("cycle %d: %v", cycle, err)
	}
	want := before.clone()
	for _, op := range acked {
		st.ackedTxns++
		st.ackedWrites += op.apply(want)
	}
	if _, err := os.Stat(path); os.IsNotExist(err) && len(acked) == 0 {
		return want // killed before the file was created
	}
	got, err := readCrashState(path)
	if err != nil {
		st.failedOpens++
		t.Fatalf("cycle %d: %v", cycle, err)
	}
	st.docsChecked += got.size()
	if got.equal(want) {
		if pending != nil && pending.writes() > 0 {
			st.inFlightLost++
		}
		return got
	}
	if pending != nil {
		withPending := want.clone()
		pending.apply(withPending)
		if got.equal(withPending) {
			st.inFlightCommitted++
			return got
		}
	}
	lost := got.missingFrom(want, pending)
	st.lost += int64(len(lost))
	t.Fatalf("cycle %d: the store after the kill is neither the acknowledged state nor it plus the in-flight %v:\n%s\nlost acknowledged documents: %v",
		cycle, pending, got.diff(want), lost)
	return nil
}

// crashState is the expected or actual content of a crash store.
type crashState struct {
	docs    map[string]map[string]string // collection -> _id -> canonical JSON
	records int64                        // journal records
}

func newCrashState() *crashState { return &crashState{docs: map[string]map[string]string{}} }

func (s *crashState) clone() *crashState {
	c := &crashState{docs: map[string]map[string]string{}, records: s.records}
	for coll, docs := range s.docs {
		c.docs[coll] = map[string]string{}
		for id, js := range docs {
			c.docs[coll][id] = js
		}
	}
	return c
}

func (s *crashState) put(coll string, doc query.Value) {
	if s.docs[coll] == nil {
		s.docs[coll] = map[string]string{}
	}
	s.docs[coll][doc.Get("_id").Str()] = string(query.AppendJSON(nil, doc))
}

func (s *crashState) size() (n int64) {
	for _, docs := range s.docs {
		n += int64(len(docs))
	}
	return n
}

func (s *crashState) equal(o *crashState) bool {
	if s.records != o.records || s.size() != o.size() {
		return false
	}
	for coll, docs := range s.docs {
		for id, js := range docs {
			if o.docs[coll][id] != js {
				return false
			}
		}
	}
	return true
}

// missingFrom lists the documents of want that s lacks or holds
// differently, leaving out those the in-flight operation touches.
func (s *crashState) missingFrom(want *crashState, pending *crashOp) []string {
	touched := map[string]bool{}
	if pending != nil {
		p := newCrashState()
		pending.apply(p)
		for coll, docs := range p.docs {
			for id := range docs {
				touched[coll+"/"+id] = true
			}
		}
	}
	var lost []string
	for coll, docs := range want.docs {
		for id, js := range docs {
			if s.docs[coll][id] != js && !touched[coll+"/"+id] {
				lost = append(lost, coll+"/"+id)
			}
		}
	}
	sort.Strings(lost)
	return lost
}

func (s *crashState) diff(want *crashState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "journal records: got %d, want %d\n", s.records, want.records)
	for coll, docs := range s.docs {
		for id, js := range docs {
			if w, ok := want.docs[coll][id]; !ok {
				fmt.Fprintf(&b, "unexpected %s/%s\n", coll, id)
			} else if w != js {
				fmt.Fprintf(&b, "changed %s/%s: got %.80s, want %.80s\n", coll, id, js, w)
			}
		}
	}
	return b.String()
}

// readCrashState opens the store read-only, as the next reader would,
// verifies it and reads everything.
func readCrashState(path string) (*crashState, error) {
	db, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open after kill: %w", err)
	}
	defer db.Close()
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK {
		return nil, fmt.Errorf("verify after kill: %v %v", err, rep.Problems)
	}
	s := newCrashState()
	s.records = rep.JournalRecords
	err = db.View(func(tx *store.Tx) error {
		for _, name := range tx.Collections() {
			c, err := tx.Collection(name)
			if err != nil {
				return err
			}
			cur, n := c.Scan(), int64(0)
			for ; cur.Next(); n++ {
				s.put(name, cur.Doc())
			}
			if err := cur.Err(); err != nil {
				return err
			}
			if c.Count() != n {
				return fmt.Errorf("collection %s: count record %d, documents %d", name, c.Count(), n)
			}
		}
		return nil
	})
	return s, err
}

// crashOp is an acknowledged or in-flight transaction of the workload.
type crashOp struct {
	kind     string
	txn      int64
	args     []int64 // as printed after begin
	from, to int64   // an import batch: documents [from, to)
}

func (op *crashOp) String() string {
	return fmt.Sprintf("%s %d %v [%d,%d)", op.kind, op.txn, op.args, op.from, op.to)
}

// writes returns how many documents the operation writes.
func (op *crashOp) writes() int64 {
	switch op.kind {
	case "single":
		return 1
	case "import":
		return op.to - op.from
	case "update", "delete":
		return op.args[1]
	}
	return op.args[0]
}

// apply applies the operation to s and returns the documents it wrote.
func (op *crashOp) apply(s *crashState) int64 {
	switch op.kind {
	case "single":
		s.put("single", crashDoc("single", op.txn, 0, 1, 0))
	case "multi", "load":
		coll := map[string]string{"multi": "multi", "load": "loaded"}[op.kind]
		for i := int64(0); i < op.args[0]; i++ {
			s.put(coll, crashDoc(coll, op.txn, i, op.args[0], 0))
		}
	case "import":
		if op.from == op.to {
			return 0 // an empty last batch commits nothing
		}
		for i := op.from; i < op.to; i++ {
			s.put("imp", crashDoc("imp", op.txn, i, op.args[0], 0))
		}
	case "update":
		for i := int64(0); i < op.args[1]; i++ {
			s.put("multi", crashDoc("multi", op.args[0], i, op.args[1], op.txn))
		}
	case "delete":
		for i := int64(0); i < op.args[1]; i++ {
			delete(s.docs["multi"], crashID(op.args[0], i))
		}
	}
	s.records++
	return op.writes()
}

// parseCrashLines turns the child's lines into the acknowledged
// transactions, in order, and the one in flight at the kill, if any.
func parseCrashLines(lines []string) (acked []crashOp, pending *crashOp, err error) {
	var cur *crashOp
	var done int64 // documents of the current import acknowledged
	for _, line := range lines {
		f := strings.Fields(line)
		nums := make([]int64, 0, len(f))
		for _, s := range f[1:] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil && f[0] != "begin" {
				return nil, nil, fmt.Errorf("bad line %q", line)
			}
			nums = append(nums, n)
		}
		switch {
		case f[0] == "begin" && len(f) >= 3:
			cur, done = &crashOp{kind: f[1], txn: nums[1], args: nums[2:]}, 0
		case f[0] == "ack" && cur != nil && len(nums) >= 1 && nums[0] == cur.txn:
			if cur.kind != "import" {
				acked, cur = append(acked, *cur), nil
				continue
			}
			if len(nums) != 2 || nums[1] < done {
				return nil, nil, fmt.Errorf("bad import ack %q", line)
			}
			if nums[1] > done {
				b := *cur
				b.from, b.to, done = done, nums[1], nums[1]
				acked = append(acked, b)
			}
		default:
			return nil, nil, fmt.Errorf("unexpected line %q", line)
		}
	}
	if cur != nil {
		p := *cur
		if p.kind == "import" {
			if done == p.args[0] {
				return acked, nil, nil
			}
			p.from, p.to = done, min(done+p.args[1], p.args[0])
		}
		pending = &p
	}
	return acked, pending, nil
}

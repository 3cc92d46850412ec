package store_test

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

var (
	crashCycles = flag.Int("crash.cycles", 0, "kill cycles of TestCrash_KillWriter (default 200, 40 with -race, 30 with -short, or $OMGDB_CRASH_CYCLES)")
	crashSeed   = flag.Uint64("crash.seed", 0, "seed of the crash tests' random choices (default: from the clock)")
	crashPoint  = flag.String("crash.point", "", "aim every cycle of TestCrash_KillWriter at this failpoint (or timing); default: one drawn per cycle")
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
	if raceEnabled {
		// The race-instrumented child is several times slower to reach
		// its failpoint, and the checks too.
		return 40
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
	applies, rollbacks, backups                        int64 // acknowledged
	oneSteps, renames                                  int64 // acknowledged one-step writes and renames of the changes package
	backupTemps                                        int64 // temporary files left by killed backups
	sorts, spillLeft                                   int64 // sorts acknowledged; temporary files left by sorts (must stay 0)
	points                                             map[string]*pointStats
}

// pointStats are the figures of the cycles that aimed at one point.
type pointStats struct {
	cycles, fired, notReached int64
	committed, notAtAll       int64            // the in-flight transaction at the kill
	kinds                     map[string]int64 // "<kind> whole" or "<kind> none": the in-flight operations
}

// crashTiming is the kill at a random moment; the others are failpoints.
const crashTiming = "timing"

var crashPoints = append([]string{crashTiming}, failpoint.Points...)

// beforeCommit are the failpoints inside a write transaction: the one in
// flight when they fire must not be in the store.
var beforeCommit = map[string]bool{failpoint.Commit: true, failpoint.ImportBatch: true, failpoint.Apply: true, failpoint.Rollback: true}

// failpointTimeout is how long a cycle waits for its failpoint to fire
// before killing the child anyway (counted as not reached).
const failpointTimeout = 4 * time.Second

// TestCrash_KillWriter kills a writer with SIGKILL many times, at random
// moments or at the nth hit of a named failpoint, and after each kill
// reopens the store and checks it: it opens, Verify finds nothing wrong
// (pages, checksums, counts, and a journal that accounts for every
// document), and its contents are exactly the acknowledged transactions,
// plus at most the one that was in flight when the kill came, whole or
// not at all: documents, journal records, plans and the history of
// applies and rollbacks. A failpoint before a commit must leave the
// transaction out; a backup must hold the store as it was when it ran.
func TestCrash_KillWriter(t *testing.T) {
	cycles, seed := crashCycleCount(), testSeed(t)
	if p := *crashPoint; p != "" && !slices.Contains(crashPoints, p) {
		t.Fatalf("-crash.point=%s: not one of %v", p, crashPoints)
	}
	dir := t.TempDir()
	st := crashStats{points: map[string]*pointStats{}}
	for _, p := range crashPoints {
		st.points[p] = &pointStats{kinds: map[string]int64{}}
	}
	var state *crashState
	var path string
	start := time.Now()
	for c := 0; c < cycles && !t.Failed(); c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		if c%crashEpoch == 0 {
			os.Remove(path)
			path, state = filepath.Join(dir, fmt.Sprintf("crash-%d.omgdb", c/crashEpoch)), newCrashState()
		}
		point := crashPoints[c%len(crashPoints)] // each target in turn
		if *crashPoint != "" {
			point = *crashPoint
		}
		k := crashtest.Kill{Workload: "writer", Delay: crashDelay(r)}
		if c%crashEpoch == 0 && r.IntN(2) == 0 {
			point, k.Early, k.Delay = crashTiming, true, time.Duration(r.IntN(40000))*time.Microsecond
			st.early++
		}
		if point != crashTiming {
			k.Failpoint, k.Delay = fmt.Sprintf("%s:%d", point, failpointCount(r, point)), failpointTimeout
		}
		k.Args = []string{path, fmt.Sprint(seed), fmt.Sprint(c*100000 + 1), strings.TrimSuffix(point, crashTiming)}
		label := fmt.Sprintf("%d (%s)", c, cmp.Or(k.Failpoint, point))
		o, err := crashtest.Run(k)
		if err != nil {
			if o != nil && !o.Ready {
				st.failedOpens++ // the writer could not open the store after the last kill
			}
			t.Fatalf("cycle %s: %v", label, err)
		}
		ps := st.points[point]
		ps.cycles++
		if o.Fired {
			ps.fired++
		} else if point != crashTiming {
			ps.notReached++
		}
		var pending *crashOp
		state, pending = checkCrashCycle(t, label, path, state, o.Lines, &st)
		if pending != nil {
			switch {
			case pending.kind == "compact" || pending.kind == "sort": // leave the same data either way
				ps.kinds[pending.kind]++
			case pending.committed:
				ps.kinds[pending.kind+" whole"]++
				ps.committed++
				st.inFlightCommitted++
			default:
				ps.kinds[pending.kind+" none"]++
				ps.notAtAll++
				st.inFlightLost++
			}
			if o.Fired && beforeCommit[point] && pending.committed {
				t.Fatalf("cycle %d: killed at failpoint %s, before the commit of %v, yet the store holds it", c, k.Failpoint, pending)
			}
			if o.Fired && point == failpoint.BackupCopy && pending.kind == "backup" && pending.committed {
				t.Fatalf("cycle %d: killed in the middle of a backup's copy, yet the backup exists", c)
			}
		}
		st.cycles++
	}
	reportCrash(t, &st, time.Since(start))
}

// failpointCount draws at which hit of the point the child is killed:
// points hit once per document or key are drawn from wider ranges.
func failpointCount(r *rand.Rand, point string) int {
	switch point {
	case failpoint.Commit:
		return 1 + r.IntN(20)
	case failpoint.ImportBatch:
		return 1 + r.IntN(400)
	case failpoint.Apply, failpoint.Rollback:
		return 1 + r.IntN(60)
	case failpoint.CompactCopy:
		return 1 + r.IntN(1500)
	}
	return 1 + r.IntN(30) // backup-copy: 32 KiB writes; spill-write: runs of a sort
}

// crashKindCounts lists counts by key, in key order.
func crashKindCounts(m map[string]int64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s %d, ", k, m[k])
	}
	return strings.TrimSuffix(b.String(), ", ")
}

func reportCrash(t *testing.T, st *crashStats, took time.Duration) {
	t.Logf("crash: %d cycles (%d killed while opening or creating the store) in %s", st.cycles, st.early, took.Round(time.Millisecond))
	for _, p := range crashPoints {
		ps := st.points[p]
		t.Logf("crash: %-12s %4d cycles, killed at the point %4d, not reached %d; in flight: %d committed whole, %d not at all",
			p, ps.cycles, ps.fired, ps.notReached, ps.committed, ps.notAtAll)
		t.Logf("crash: %-12s in flight: %s", "", crashKindCounts(ps.kinds))
	}
	t.Logf("crash: %d acknowledged transactions (%d document writes) checked, %d document states compared", st.ackedTxns, st.ackedWrites, st.docsChecked)
	t.Logf("crash: acknowledged applies %d, rollbacks %d, backups %d (each backup compared with the store as it was); temporary files left by killed backups: %d; sorts spilled to disk %d, temporary files they left: %d", st.applies, st.rollbacks, st.backups, st.backupTemps, st.sorts, st.spillLeft)
	t.Logf("crash: acknowledged one-step updates and deletes %d, collection renames %d", st.oneSteps, st.renames)
	t.Logf("crash: in-flight operation at the kill (compactions aside): %d committed whole, %d not at all", st.inFlightCommitted, st.inFlightLost)
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

// checkCrashCycle checks the store after a kill and returns its state and
// the operation in flight at the kill, if any, saying whether it
// committed.
func checkCrashCycle(t *testing.T, cycle string, path string, before *crashState, lines []string, st *crashStats) (*crashState, *crashOp) {
	t.Helper()
	acked, pending, err := parseCrashLines(lines)
	if err != nil {
		t.Fatalf("cycle %s: %v", cycle, err)
	}
	want := before.clone()
	for _, op := range acked {
		st.ackedTxns++
		switch op.kind {
		case "apply":
			st.applies++
		case "rollback":
			st.rollbacks++
		case "backup":
			st.backups++
			checkCrashBackup(t, cycle, path, &op, want, true)
		case "sort":
			st.sorts++
		case "update1", "delete1":
			st.oneSteps++
		case "rename":
			st.renames++
		}
		n, err := op.apply(want)
		if err != nil {
			t.Fatalf("cycle %s: %v", cycle, err)
		}
		st.ackedWrites += n
	}
	st.backupTemps += removeBackupTemps(t, path)
	if left, _ := os.ReadDir(crashSpillDir(path)); len(left) > 0 {
		st.spillLeft += int64(len(left))
		t.Fatalf("cycle %s: %d temporary sort files left behind (%s…): a spilled sort must leave none, killed or not", cycle, len(left), left[0].Name())
	}
	if pending != nil && pending.kind == "backup" {
		pending.committed = checkCrashBackup(t, cycle, path, pending, want, false)
	}
	if _, err := os.Stat(path); os.IsNotExist(err) && len(acked) == 0 {
		return want, pending // killed before the file was created
	}
	got, err := readCrashState(path)
	if err != nil {
		st.failedOpens++
		t.Fatalf("cycle %s: %v", cycle, err)
	}
	st.docsChecked += got.size()
	if pending != nil && pending.kind == "plan" {
		pending.token = newPlan(got, want) // the plan's token was not acknowledged
	}
	if got.equal(want) {
		return want, pending
	}
	if pending != nil {
		withPending := want.clone()
		if _, err := pending.apply(withPending); err == nil && got.equal(withPending) {
			pending.committed = true
			return withPending, pending
		}
	}
	lost := got.missingFrom(want, pending)
	st.lost += int64(len(lost))
	t.Fatalf("cycle %s: the store after the kill is neither the acknowledged state nor it plus the in-flight %v:\n%s\nlost acknowledged documents: %v",
		cycle, pending, got.diff(want), lost)
	return nil, nil
}

// newPlan returns the token of the one plan got has and want lacks, if
// any: a plan saved but not acknowledged.
func newPlan(got, want *crashState) string {
	var extra []string
	for token := range got.plans {
		if want.plans[token] == nil {
			extra = append(extra, token)
		}
	}
	if len(extra) == 1 {
		return extra[0]
	}
	return ""
}

// checkCrashBackup checks the backup a backup operation made, which must
// hold the store as it was then (want), and removes it. An acknowledged
// backup must exist; one in flight may. It reports whether it existed.
func checkCrashBackup(t *testing.T, cycle string, path string, op *crashOp, want *crashState, acked bool) bool {
	out := crashBackupPath(path, op.txn)
	if _, err := os.Stat(out); err != nil {
		if acked {
			t.Fatalf("cycle %s: acknowledged backup %s is missing: %v", cycle, out, err)
		}
		return false
	}
	got, err := readCrashState(out)
	if err != nil {
		t.Fatalf("cycle %s: backup %s: %v", cycle, out, err)
	}
	if !got.equal(want) {
		t.Fatalf("cycle %s: backup %s does not hold the store as it was:\n%s", cycle, out, got.diff(want))
	}
	os.Remove(out)
	return true
}

// removeBackupTemps removes the temporary files of killed backups and
// returns how many there were.
func removeBackupTemps(t *testing.T, path string) int64 {
	temps, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".crash-backup-*.backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range temps {
		os.Remove(f)
	}
	return int64(len(temps))
}

// crashState is the expected or actual content of a crash store.
type crashState struct {
	docs    map[string]map[string]string // collection -> _id -> canonical JSON
	records int64                        // journal records
	plans   map[string]*crashPlan        // by token
}

// crashPlan is a plan of the workload. A store read back gives only the
// status: pending, applied, or rolled back.
type crashPlan struct {
	status        string
	group, n, txn int64
	del           bool
	before        map[string]string // the group's documents before the apply
}

func newCrashState() *crashState {
	return &crashState{docs: map[string]map[string]string{}, plans: map[string]*crashPlan{}}
}

func (s *crashState) clone() *crashState {
	c := &crashState{docs: map[string]map[string]string{}, records: s.records, plans: map[string]*crashPlan{}}
	for coll, docs := range s.docs {
		c.docs[coll] = maps.Clone(docs)
	}
	for token, p := range s.plans {
		cp := *p
		c.plans[token] = &cp // before is never changed once set
	}
	return c
}

func (s *crashState) put(coll string, doc value.Value) {
	if s.docs[coll] == nil {
		s.docs[coll] = map[string]string{}
	}
	s.docs[coll][doc.Get("_id").Str()] = string(value.AppendJSON(nil, doc))
}

func (s *crashState) size() (n int64) {
	for _, docs := range s.docs {
		n += int64(len(docs))
	}
	return n
}

func (s *crashState) equal(o *crashState) bool {
	if s.records != o.records || s.size() != o.size() || len(s.plans) != len(o.plans) {
		return false
	}
	for coll, docs := range s.docs {
		for id, js := range docs {
			if o.docs[coll][id] != js {
				return false
			}
		}
	}
	for token, p := range s.plans {
		if q := o.plans[token]; q == nil || q.status != p.status {
			return false
		}
	}
	return true
}

// missingFrom lists the documents of want that s lacks or holds
// differently, leaving out those the in-flight operation touches.
func (s *crashState) missingFrom(want *crashState, pending *crashOp) []string {
	with := want.clone()
	if pending != nil {
		pending.apply(with)
	}
	var lost []string
	for coll, docs := range want.docs {
		for id, js := range docs {
			if s.docs[coll][id] != js && with.docs[coll][id] == js {
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
	for coll, docs := range want.docs {
		for id := range docs {
			if _, ok := s.docs[coll][id]; !ok {
				fmt.Fprintf(&b, "missing %s/%s\n", coll, id)
			}
		}
	}
	for _, token := range slices.Sorted(maps.Keys(want.plans)) {
		if p := s.plans[token]; p == nil || p.status != want.plans[token].status {
			fmt.Fprintf(&b, "plan %s: got %v, want %s\n", token, p, want.plans[token].status)
		}
	}
	for token, p := range s.plans {
		if want.plans[token] == nil {
			fmt.Fprintf(&b, "unexpected plan %s, %s\n", token, p.status)
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
	if err != nil {
		return nil, err
	}
	return s, readCrashPlans(db, s)
}

// readCrashPlans reads the plans' statuses and checks that they agree
// with the history: a plan is applied iff the history lists its apply,
// and that apply is rolled back iff the history lists exactly one
// rollback of it.
func readCrashPlans(db *store.DB, s *crashState) error {
	ctx := context.Background()
	hist, err := changes.History(ctx, db, nil)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	applies, rollbacks := map[string]*changes.Change{}, map[string][]string{}
	for i := range hist {
		switch h := &hist[i]; h.Kind {
		case "apply":
			applies[h.ID] = h
		case "rollback":
			rollbacks[h.RollbackOf] = append(rollbacks[h.RollbackOf], h.ID)
		}
	}
	plans, err := changes.Plans(ctx, db, true)
	if err != nil {
		return fmt.Errorf("plans: %w", err)
	}
	for _, p := range plans {
		h := applies[p.Token]
		delete(applies, p.Token)
		switch {
		case p.Status == changes.StatusPending && h == nil:
			s.plans[p.Token] = &crashPlan{status: "pending"}
		case p.Status != changes.StatusApplied || h == nil:
			return fmt.Errorf("plan %s is %s, and the history lists its apply: %v", p.Token, p.Status, h != nil)
		case h.RolledBackBy == "" && len(rollbacks[p.Token]) == 0:
			s.plans[p.Token] = &crashPlan{status: "applied"}
		case len(rollbacks[p.Token]) == 1 && rollbacks[p.Token][0] == h.RolledBackBy:
			s.plans[p.Token] = &crashPlan{status: "rolled back"}
		default:
			return fmt.Errorf("apply %s: rolled back by %q, rollbacks of it in the history %v", p.Token, h.RolledBackBy, rollbacks[p.Token])
		}
	}
	if len(applies) > 0 {
		return fmt.Errorf("the history lists applies of no applied plan: %v", slices.Collect(maps.Keys(applies)))
	}
	return nil
}

// crashOp is an acknowledged or in-flight transaction of the workload.
type crashOp struct {
	kind      string
	txn       int64
	args      []int64 // the numbers printed after begin
	token     string  // of a plan, an apply or a rollback
	del       bool    // a plan that deletes
	from, to  int64   // an import batch: documents [from, to)
	committed bool    // the in-flight operation is in the store
}

func (op *crashOp) String() string {
	return fmt.Sprintf("%s %d %v %s [%d,%d)", op.kind, op.txn, op.args, op.token, op.from, op.to)
}

// apply applies the operation to s and returns the documents it wrote.
func (op *crashOp) apply(s *crashState) (int64, error) {
	var n int64
	switch op.kind {
	case "single":
		s.put("single", crashDoc("single", op.txn, 0, 1, 0))
		n = 1
	case "multi", "load":
		coll := map[string]string{"multi": "multi", "load": "loaded"}[op.kind]
		for i := int64(0); i < op.args[0]; i++ {
			s.put(coll, crashDoc(coll, op.txn, i, op.args[0], 0))
		}
		n = op.args[0]
	case "import":
		if op.from == op.to {
			return 0, nil // an empty last batch commits nothing
		}
		for i := op.from; i < op.to; i++ {
			s.put("imp", crashDoc("imp", op.txn, i, op.args[0], 0))
		}
		n = op.to - op.from
	case "update", "delete", "update1", "delete1":
		for i := int64(0); i < op.args[1]; i++ {
			if strings.HasPrefix(op.kind, "delete") {
				delete(s.docs["multi"], crashID(op.args[0], i))
			} else {
				s.put("multi", crashDoc("multi", op.args[0], i, op.args[1], op.txn))
			}
		}
		n = op.args[1]
	case "rename":
		s.docs["moved"], n = s.docs["loaded"], int64(len(s.docs["loaded"]))
		delete(s.docs, "loaded")
	case "plan":
		if op.token != "" { // unknown when the kill came before its ack
			s.plans[op.token] = &crashPlan{status: "pending", group: op.args[0], n: op.args[1], txn: op.txn, del: op.del}
		}
		return 0, nil // a plan is not a change: no journal record
	case "apply", "rollback":
		return op.applyPlan(s)
	default: // compact, backup, sort
		return 0, nil
	}
	s.records++
	return n, nil
}

// applyPlan applies or rolls back a plan in s.
func (op *crashOp) applyPlan(s *crashState) (int64, error) {
	p := s.plans[op.token]
	if want := map[string]string{"apply": "pending", "rollback": "applied"}[op.kind]; p == nil || p.status != want {
		return 0, fmt.Errorf("%v: no %s plan %s", op, want, op.token)
	}
	multi := s.docs["multi"]
	if multi == nil {
		multi = map[string]string{}
		s.docs["multi"] = multi
	}
	if op.kind == "apply" {
		p.before = map[string]string{}
		for i := int64(0); i < p.n; i++ {
			id := crashID(p.group, i)
			if js, ok := multi[id]; ok {
				p.before[id] = js
			}
			if p.del {
				delete(multi, id)
			} else {
				s.put("multi", crashDoc("multi", p.group, i, p.n, p.txn))
			}
		}
		p.status = "applied"
	} else {
		for i := int64(0); i < p.n; i++ {
			delete(multi, crashID(p.group, i))
		}
		maps.Copy(multi, p.before)
		p.status = "rolled back"
	}
	s.records++
	return p.n, nil
}

package store_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The crash workload writes to four collections, in transactions numbered
// by the parent (txn): "single" (one document per transaction), "multi"
// (2 to 40 documents per transaction, later updated or deleted as a
// group, by the store or by a plan applied and rolled back through the
// changes package), "imp" (imports in batches) and "loaded" (loads of
// dumps); it also compacts the store and backs it up. Every document is a
// function of its transaction, its position i, the number of documents n
// of its transaction, and the transaction v that last updated it, so the
// parent can rebuild the expected store exactly.
//
// The child prints, each in one write:
//
//	begin <kind> <txn> <args…>   before a transaction starts
//	ack <txn>                    after it committed (Update returned nil)
//	ack <txn> <lines>            after each committed batch of an import
//	ack <txn> <token>            after a plan was saved
//
// Kinds and their arguments: single; multi <n>; import <m> <batch>;
// load <n>; update <group> <n>; delete <group> <n> (by hand in the
// store); update1 and delete1 (the same by a one-step write of the changes
// package); rename (of "loaded" to "moved", replacing it);
// plan <group> <n> <u|d>
// (a plan to set v to txn in every document of the group, or to delete
// them); apply <token> (the plan just saved, under the same txn);
// rollback <token> (of an applied plan); compact; backup (to
// crash-backup-<txn>.omgdb beside the store); sort (a sorted find of
// "multi" that spills to temporary files in crashSpillDir, with a budget
// of crashSortBudget: it writes nothing to the store, and a kill must
// leave no temporary file behind).

// crashDoc returns document i of transaction txn of n documents in coll,
// last updated by transaction v (0: never). About one in 25 documents
// outside "single" carries 6 to 16 KiB of hex, so it is stored compressed
// and often spans overflow pages.
func crashDoc(coll string, txn, i, n, v int64) value.Value {
	r := rand.New(rand.NewPCG(uint64(txn), uint64(i)))
	pad := make([]byte, r.IntN(32))
	if coll != "single" && r.IntN(25) == 0 {
		pad = make([]byte, 3000+r.IntN(5000))
	}
	for j := range pad {
		pad[j] = byte(r.Uint32())
	}
	f := []value.Field{
		{Key: "_id", Value: value.StringValue(crashID(txn, i))},
		{Key: "txn", Value: value.LongValue(txn)},
		{Key: "i", Value: value.LongValue(i)},
		{Key: "n", Value: value.LongValue(n)},
	}
	if v != 0 || coll == "multi" {
		// Present from the start in "multi", so that a plan's $set of v
		// leaves the fields in this order.
		f = append(f, value.Field{Key: "v", Value: value.LongValue(v)})
	}
	f = append(f, value.Field{Key: "pad", Value: value.StringValue(hex.EncodeToString(pad))})
	return value.ObjectValue(f)
}

func crashID(txn, i int64) string {
	return "T" + strconv.FormatInt(txn, 10) + "-" + strconv.FormatInt(i, 10)
}

// crashChild is the writer child's state.
type crashChild struct {
	path   string
	db     *store.DB
	r      *rand.Rand
	focus  string              // the failpoint of the cycle: its operation is done more often
	groups map[int64]int64     // the groups of "multi" free to update, delete or plan: txn -> n
	plans  map[string][2]int64 // applied plans not rolled back: token -> group, n
	say    func(string, ...any)
}

// crashWriter is the child: args are the store path, a seed, the first
// transaction number and the failpoint of the cycle ("" for none).
func crashWriter(w io.Writer, args []string) error {
	seed, _ := strconv.ParseUint(args[1], 10, 64)
	txn, _ := strconv.ParseInt(args[2], 10, 64)
	c := &crashChild{path: args[0], r: rand.New(rand.NewPCG(seed, uint64(txn))), focus: args[3]}
	c.say = func(format string, a ...any) { io.WriteString(w, fmt.Sprintf(format, a...)+"\n") }
	if err := c.open(); err != nil {
		return err
	}
	if err := c.load(); err != nil {
		return err
	}
	c.say("ready")
	for ; ; txn++ {
		if err := c.step(txn); err != nil {
			return err
		}
	}
}

func (c *crashChild) open() (err error) {
	c.db, err = store.Open(c.path, &store.Options{Create: true, Timeout: 10 * time.Second, Actor: "crash"})
	return err
}

// load finds the groups of "multi" and the applied plans not rolled back,
// whose groups are kept for their rollback.
func (c *crashChild) load() error {
	var err error
	if c.groups, err = multiGroups(c.db); err != nil {
		return err
	}
	c.plans = map[string][2]int64{}
	hist, err := changes.History(context.Background(), c.db, nil)
	if err != nil {
		return err
	}
	undone := map[string]bool{}
	for _, h := range hist {
		undone[h.ID] = h.RolledBackBy != ""
	}
	plans, err := changes.Plans(context.Background(), c.db, true)
	if err != nil {
		return err
	}
	for _, p := range plans {
		var g, n int64
		fmt.Sscan(p.Note, &g, &n)
		if p.Status == changes.StatusApplied && !undone[p.Token] {
			c.plans[p.Token] = [2]int64{g, n}
			delete(c.groups, g)
		}
	}
	return nil
}

// multiGroups returns the transactions whose documents are in "multi",
// with their sizes.
func multiGroups(db *store.DB) (map[int64]int64, error) {
	groups := map[int64]int64{}
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("multi")
		if err != nil {
			return nil
		}
		cur := c.Scan()
		for cur.Next() {
			d := cur.Doc()
			groups[d.Get("txn").Long()] = d.Get("n").Long()
		}
		return cur.Err()
	})
	return groups, err
}

// focusKind is the operation a failpoint is in.
var focusKind = map[string]string{
	failpoint.ImportBatch: "import",
	failpoint.Apply:       "apply",
	failpoint.Rollback:    "rollback",
	failpoint.CompactCopy: "compact",
	failpoint.BackupCopy:  "backup",
	failpoint.SpillWrite:  "sort",
}

// crashKinds are the operations, each as often as it is listed.
var crashKinds = strings.Fields("single single single single multi multi multi multi multi " +
	"import import import load load rewrite rewrite rewrite apply apply apply rollback rollback compact backup sort rename")

func (c *crashChild) step(txn int64) error {
	kind := crashKinds[c.r.IntN(len(crashKinds))]
	if k := focusKind[c.focus]; k != "" && c.r.IntN(2) == 0 {
		kind = k
	}
	if kind == "rollback" && len(c.plans) == 0 {
		kind = "apply"
	}
	db, r, say := c.db, c.r, c.say
	switch kind {
	case "single":
		say("begin single %d", txn)
		return crashInsert(db, "single", txn, 1, say)
	case "multi":
		n := 2 + r.Int64N(39)
		say("begin multi %d %d", txn, n)
		c.groups[txn] = n
		return crashInsert(db, "multi", txn, n, say)
	case "import":
		m, b := 1+r.Int64N(300), 1+r.IntN(120)
		say("begin import %d %d %d", txn, m, b)
		return crashImport(db, txn, m, b, say)
	case "load":
		n := 1 + r.Int64N(60)
		say("begin load %d %d", txn, n)
		return crashLoad(db, txn, n, say)
	case "apply":
		return c.apply(txn)
	case "rollback":
		return c.rollback(txn)
	case "compact":
		return c.compact(txn)
	case "sort":
		say("begin sort %d", txn)
		if err := crashSort(db, crashSpillDir(c.path)); err != nil {
			return err
		}
		say("ack %d", txn)
		return nil
	case "rename":
		return c.rename(txn)
	case "backup":
		say("begin backup %d", txn)
		_, err := db.Backup(context.Background(), crashBackupPath(c.path, txn))
		if err == nil {
			say("ack %d", txn)
		}
		return err
	}
	g, n, ok := anyGroup(r, c.groups)
	if !ok {
		return nil
	}
	del, oneStep := r.IntN(2) == 0, r.IntN(2) == 0
	kind = map[bool]string{false: "update", true: "delete"}[del]
	if oneStep {
		kind += "1"
	}
	say("begin %s %d %d %d", kind, txn, g, n)
	if del {
		delete(c.groups, g)
	}
	if oneStep {
		return crashOneStep(db, txn, g, n, del, say)
	}
	return crashRewrite(db, txn, g, n, del, say)
}

// crashOneStep updates (v = txn) or deletes every document of group g
// with a one-step write of the changes package, as crashRewrite does by
// hand.
func crashOneStep(db *store.DB, txn, g, n int64, del bool, say func(string, ...any)) error {
	ctx := context.Background()
	filter := value.MustParse(fmt.Sprintf(`{"txn":{"$numberLong":"%d"}}`, g))
	var res *changes.WriteResult
	var err error
	if del {
		res, err = changes.Delete(ctx, db, "multi", filter, nil)
	} else {
		update := value.MustParse(fmt.Sprintf(`{"$set":{"v":{"$numberLong":"%d"}}}`, txn))
		res, err = changes.Update(ctx, db, "multi", filter, update, nil)
	}
	if err != nil {
		return err
	}
	if res.Modified+res.Deleted != n {
		return fmt.Errorf("one-step write of group %d: %+v, want %d documents", g, res, n)
	}
	say("ack %d", txn)
	return nil
}

// rename renames "loaded" to "moved", replacing it (DropTarget), when
// "loaded" exists.
func (c *crashChild) rename(txn int64) error {
	exists := false
	c.db.View(func(tx *store.Tx) error {
		_, err := tx.Collection("loaded")
		exists = err == nil
		return nil
	})
	if !exists {
		return nil
	}
	c.say("begin rename %d", txn)
	if _, err := changes.RenameCollection(context.Background(), c.db, "loaded", "moved", &changes.CollectionOptions{DropTarget: true}); err != nil {
		return err
	}
	c.say("ack %d", txn)
	return nil
}

// crashSortBudget is the memory a crash workload's sort may hold before
// it spills: a few documents.
const crashSortBudget = 2 << 10

// crashSpillDir is where the crash workload's sorts spill.
func crashSpillDir(store string) string { return filepath.Join(filepath.Dir(store), "spill") }

// crashSort sorts "multi" by pad, descending, through temporary files,
// and checks the order and the count.
func crashSort(db *store.DB, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s, err := query.CompileSort(value.MustParse(`{"pad":-1}`))
	if err != nil {
		return err
	}
	return db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("multi")
		if errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		src := c.Find(context.Background(), store.Query{Sort: s, MaxSortBytes: crashSortBudget, SpillDir: dir})
		defer src.Close()
		var n int64
		var last value.Value
		for src.Next() {
			if d := src.Doc(); n > 0 && s.Compare(last, d) > 0 {
				return fmt.Errorf("sort: %s before %s", value.JSON(last), value.JSON(d))
			} else {
				last = d
			}
			n++
		}
		if err := src.Err(); err != nil {
			return err
		}
		if n != c.Count() {
			return fmt.Errorf("sort returned %d of %d documents", n, c.Count())
		}
		return nil
	})
}

func crashBackupPath(store string, txn int64) string {
	return filepath.Join(filepath.Dir(store), fmt.Sprintf("crash-backup-%d.omgdb", txn))
}

// apply plans an update (v = txn) or a deletion of a group, then applies
// the plan; the group is then kept for the plan's rollback.
func (c *crashChild) apply(txn int64) error {
	g, n, ok := anyGroup(c.r, c.groups)
	if !ok {
		return nil
	}
	ctx, del := context.Background(), c.r.IntN(3) == 0
	filter := value.MustParse(fmt.Sprintf(`{"txn":{"$numberLong":"%d"}}`, g))
	opts := &changes.PlanOptions{Note: fmt.Sprintf("%d %d", g, n), Sample: -1}
	var res *changes.PlanResult
	var err error
	if del {
		c.say("begin plan %d %d %d d", txn, g, n)
		res, err = changes.PlanDelete(ctx, c.db, "multi", filter, opts)
	} else {
		c.say("begin plan %d %d %d u", txn, g, n)
		update := value.MustParse(fmt.Sprintf(`{"$set":{"v":{"$numberLong":"%d"}}}`, txn))
		res, err = changes.PlanUpdate(ctx, c.db, "multi", filter, update, opts)
	}
	if err != nil {
		return err
	}
	if res.Modified != n {
		return fmt.Errorf("plan of group %d: %d documents modified, want %d", g, res.Modified, n)
	}
	c.say("ack %d %s", txn, res.Token)
	delete(c.groups, g)
	c.say("begin apply %d %s", txn, res.Token)
	if _, err := changes.Apply(ctx, c.db, res.Token, nil); err != nil {
		return err
	}
	c.plans[res.Token] = [2]int64{g, n}
	c.say("ack %d", txn)
	return nil
}

// rollback rolls back an applied plan; its group is free again.
func (c *crashChild) rollback(txn int64) error {
	tokens := slices.Sorted(maps.Keys(c.plans))
	token := tokens[c.r.IntN(len(tokens))]
	c.say("begin rollback %d %s", txn, token)
	if _, err := changes.Rollback(context.Background(), c.db, token, nil); err != nil {
		return err
	}
	gn := c.plans[token]
	delete(c.plans, token)
	c.groups[gn[0]] = gn[1]
	c.say("ack %d", txn)
	return nil
}

// compact closes the store, compacts it and opens it again.
func (c *crashChild) compact(txn int64) error {
	c.say("begin compact %d", txn)
	if err := c.db.Close(); err != nil {
		return err
	}
	if _, err := store.Compact(context.Background(), c.path, nil); err != nil {
		return err
	}
	if err := c.open(); err != nil {
		return err
	}
	c.say("ack %d", txn)
	return nil
}

func anyGroup(r *rand.Rand, groups map[int64]int64) (int64, int64, bool) {
	if len(groups) == 0 {
		return 0, 0, false
	}
	skip := r.IntN(len(groups))
	for g, n := range groups {
		if skip == 0 {
			return g, n, true
		}
		skip--
	}
	return 0, 0, false
}

func crashInsert(db *store.DB, coll string, txn, n int64, say func(string, ...any)) error {
	err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			if _, err := c.Insert(crashDoc(coll, txn, i, n, 0)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		say("ack %d", txn)
	}
	return err
}

func crashNDJSON(coll string, txn, n int64, prefix string) string {
	var b strings.Builder
	if prefix != "" {
		b.WriteString(prefix + "}\n")
	}
	for i := int64(0); i < n; i++ {
		js := string(value.AppendJSON(nil, crashDoc(coll, txn, i, n, 0)))
		if prefix != "" {
			js = prefix + `,"document":` + js + "}"
		}
		b.WriteString(js + "\n")
	}
	return b.String()
}

func crashImport(db *store.DB, txn, m int64, batch int, say func(string, ...any)) error {
	_, err := db.Import(context.Background(), "imp", strings.NewReader(crashNDJSON("imp", txn, m, "")), &store.ImportOptions{
		BatchSize: batch,
		Progress:  func(lines, _ int64) { say("ack %d %d", txn, lines) },
	})
	return err
}

func crashLoad(db *store.DB, txn, n int64, say func(string, ...any)) error {
	_, err := db.Load(context.Background(), strings.NewReader(crashNDJSON("loaded", txn, n, `{"collection":"loaded"`)))
	if err == nil {
		say("ack %d", txn)
	}
	return err
}

// crashRewrite updates (v = txn) or deletes every document of group g.
func crashRewrite(db *store.DB, txn, g, n int64, del bool, say func(string, ...any)) error {
	err := db.Update(store.Change{Kind: "rewrite"}, func(tx *store.Tx) error {
		c, err := tx.Collection("multi")
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			id := value.StringValue(crashID(g, i))
			if del {
				err = c.Delete(id)
			} else {
				err = c.Replace(id, crashDoc("multi", g, i, n, txn))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		say("ack %d", txn)
	}
	return err
}

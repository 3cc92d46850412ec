package changes_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// state is every collection's documents at one revision, as canonical
// JSON lines in _id order, keyed by the JSON of the _id.
type state map[string][]docLine

type docLine struct{ id, json string }

func readState(t testing.TB, db *store.DB) state {
	t.Helper()
	st := state{}
	err := db.View(func(tx *store.Tx) error {
		for _, name := range tx.Collections() {
			c, _ := tx.Collection(name)
			lines := []docLine{}
			cur := c.Scan()
			for cur.Next() {
				lines = append(lines, docLine{id: cur.Doc().Get("_id").String(), json: cur.Doc().String()})
			}
			st[name] = lines
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (st state) text(coll string) string {
	var b strings.Builder
	for _, l := range st[coll] {
		b.WriteString(l.json + "\n")
	}
	return b.String()
}

func (st state) get(coll, id string) (string, bool) {
	for _, l := range st[coll] {
		if l.id == id {
			return l.json, true
		}
	}
	return "", false
}

var colls = []string{"a", "b", "c"}

// workload makes random writes through every path (inserts, updates,
// deletes, applied plans, rollbacks, collection drops) and returns the
// state after each journal record, by lsn (0: empty).
func workload(t *testing.T, r *rand.Rand, db *store.DB, steps int) map[uint64]state {
	t.Helper()
	states := map[uint64]state{0: {}}
	var changeIDs []string
	for i := 0; i < steps; i++ {
		if id := step(t, r, db, changeIDs); id != "" {
			changeIDs = append(changeIDs, id)
		}
		states[lastLSN(t, db)] = readState(t, db)
	}
	return states
}

// step makes one random write and returns its change id ("" if none).
func step(t *testing.T, r *rand.Rand, db *store.DB, changeIDs []string) string {
	coll := colls[r.IntN(len(colls))]
	doc, ok := pick(t, r, db, coll)
	var id string
	var err error
	switch n := r.IntN(20); {
	case n < 7 || !ok:
		err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
			id = tx.ChangeID()
			c, err := tx.CreateCollection(coll)
			for k := r.IntN(4); k >= 0 && err == nil; k-- {
				_, err = c.Insert(testgen.Document(r))
			}
			return err
		})
	case n < 11:
		newDoc := testgen.Document(r).Without("_id")
		err = db.Update(store.Change{Kind: "update"}, func(tx *store.Tx) error {
			id = tx.ChangeID()
			c, _ := tx.Collection(coll)
			return c.Replace(doc.Get("_id"), newDoc)
		})
	case n < 13:
		err = db.Update(store.Change{Kind: "delete"}, func(tx *store.Tx) error {
			id = tx.ChangeID()
			c, _ := tx.Collection(coll)
			return c.Delete(doc.Get("_id"))
		})
	case n < 16:
		id, err = randomPlanApply(r, db, coll, doc)
	case n < 19 && len(changeIDs) > 0:
		var res *changes.RollbackResult
		res, err = changes.Rollback(ctx, db, changeIDs[r.IntN(len(changeIDs))], nil)
		if res != nil {
			id = res.ChangeID
		}
		if errors.Is(err, changes.ErrConflict) || errors.Is(err, changes.ErrRolledBack) {
			err = nil
		}
	default:
		err = db.Update(store.Change{Kind: "drop"}, func(tx *store.Tx) error {
			id = tx.ChangeID()
			return tx.DropCollection(coll)
		})
	}
	if err != nil && !errors.Is(err, store.ErrDuplicateID) {
		t.Fatalf("step: %v", err)
	}
	if err != nil {
		return ""
	}
	return id
}

// randomPlanApply plans a random update or delete over coll, filtered on
// a field of doc, and applies it.
func randomPlanApply(r *rand.Rand, db *store.DB, coll string, doc value.Value) (string, error) {
	filter := randomFilter(r, doc)
	opts := &changes.PlanOptions{First: r.IntN(4) == 0, Upsert: r.IntN(4) == 0}
	var plan *changes.PlanResult
	var err error
	if r.IntN(3) == 0 {
		plan, err = changes.PlanDelete(ctx, db, coll, filter, opts)
	} else {
		plan, err = changes.PlanUpdate(ctx, db, coll, filter, randomUpdate(r, doc), opts)
	}
	if err != nil {
		return "", err
	}
	res, err := changes.Apply(ctx, db, plan.Token, nil)
	if err == nil && res.Inserted+res.Updated+res.Deleted == 0 {
		return "", nil // the plan changed nothing: there is nothing to roll back
	}
	return plan.Token, err
}

// randomFilter returns {} or the equality of one of doc's fields.
func randomFilter(r *rand.Rand, doc value.Value) value.Value {
	if fs := doc.Fields(); r.IntN(4) > 0 {
		return value.ObjectValue([]value.Field{fs[r.IntN(len(fs))]})
	}
	return value.MustParse(`{}`)
}

// randomUpdate returns an update that applies to any document: $set of a
// random value, $unset of one of doc's fields, $inc of a counter, $push,
// or a replacement.
func randomUpdate(r *rand.Rand, doc value.Value) value.Value {
	field := fmt.Sprintf("f%d", r.IntN(3))
	if fs := doc.Fields(); r.IntN(2) == 0 && len(fs) > 1 {
		field = fs[1+r.IntN(len(fs)-1)].Key
	}
	v := testgen.Storable(testgen.Value(r, 2))
	switch r.IntN(5) {
	case 0:
		return value.MustParse(fmt.Sprintf(`{"$unset":{%q:""}}`, field))
	case 1:
		return value.MustParse(`{"$inc":{"counter":1}}`)
	case 2:
		return value.ObjectValue([]value.Field{{Key: "$push", Value: value.ObjectValue([]value.Field{{Key: "pushed", Value: v}})}})
	case 3:
		return testgen.Document(r).Without("_id")
	}
	return value.ObjectValue([]value.Field{{Key: "$set", Value: value.ObjectValue([]value.Field{{Key: field, Value: v}})}})
}

// pick returns a random document of coll, if it has any.
func pick(t testing.TB, r *rand.Rand, db *store.DB, coll string) (value.Value, bool) {
	var docs []value.Value
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return nil
		}
		cur := c.Scan()
		for cur.Next() {
			docs = append(docs, cur.Doc())
		}
		return nil
	})
	if len(docs) == 0 {
		return value.Value{}, false
	}
	return docs[r.IntN(len(docs))], true
}

// scanAt returns the documents of coll at lsn as text, or the error.
func scanAt(t testing.TB, db *store.DB, coll string, lsn uint64) (string, error) {
	var b strings.Builder
	err := db.View(func(tx *store.Tx) error {
		rev, err := changes.ResolveRevision(tx, fmt.Sprint(lsn))
		if err != nil {
			return err
		}
		src, err := changes.ScanAt(ctx, tx, coll, rev)
		if err != nil {
			return err
		}
		defer src.Close()
		for src.Next() {
			b.WriteString(src.Doc().String() + "\n")
		}
		return src.Err()
	})
	return b.String(), err
}

// TestScanAt_MatchesTheStateAtEveryRevision_Property checks time travel
// against the state recorded after every commit of a random workload.
func TestScanAt_MatchesTheStateAtEveryRevision_Property(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		db := storetest.MustOpen(t)
		states := workload(t, r, db, 60)
		replayed := replayStates(t, db)
		for lsn, st := range states {
			if got := replayed[lsn]; fmt.Sprint(got) != fmt.Sprint(st) {
				t.Fatalf("seed %d lsn %d: the journal replayed gives\n%v\nthe store held\n%v", seed, lsn, got, st)
			}
			for _, coll := range colls {
				got, err := scanAt(t, db, coll, lsn)
				if _, existed := st[coll]; !existed {
					if errs.KindOf(err) != errs.NotFound {
						t.Fatalf("seed %d lsn %d: %s did not exist, ScanAt = %q, %v", seed, lsn, coll, got, err)
					}
					continue
				}
				if err != nil || got != st.text(coll) {
					t.Fatalf("seed %d lsn %d coll %s: ScanAt =\n%s(err %v)\nwant\n%s", seed, lsn, coll, got, err, st.text(coll))
				}
			}
		}
	}
}

// TestDiff_TakesOneRevisionToTheOther_Property: applying a diff's
// documents to the state at from gives the state at to.
func TestDiff_TakesOneRevisionToTheOther_Property(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 8))
		db := storetest.MustOpen(t)
		states := workload(t, r, db, 50)
		last := lastLSN(t, db)
		for k := 0; k < 20; k++ {
			from, to := r.Uint64N(last+1), r.Uint64N(last+1)
			if from > to {
				from, to = to, from
			}
			res, err := changes.Diff(ctx, db, fmt.Sprint(from), fmt.Sprint(to), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, coll := range colls {
				got := patch(states[from], coll, res)
				if want := states[to].text(coll); got != want {
					t.Fatalf("seed %d diff %d..%d coll %s: patched =\n%s\nwant\n%s", seed, from, to, coll, got, want)
				}
			}
			if res.Inserted+res.Deleted+res.Updated != len(res.Documents) {
				t.Fatalf("counts %d+%d+%d for %d documents", res.Inserted, res.Deleted, res.Updated, len(res.Documents))
			}
		}
	}
}

// patch applies a diff's documents of coll to st, returning the text.
// Documents are known by the key of their _id: the ids 0, 0.0 and
// {"$numberInt":"0"} name one document.
func patch(st state, coll string, res *changes.DiffResult) string {
	docs := map[string]string{}
	idKey := func(id value.Value) string { return string(value.AppendKey(nil, id)) }
	for _, l := range st[coll] {
		docs[idKey(value.MustParse(l.id))] = l.json
	}
	for _, d := range res.Documents {
		if d.Collection != coll {
			continue
		}
		id := idKey(d.ID.Value)
		if d.Before.IsMissing() != (docs[id] == "") || (!d.Before.IsMissing() && d.Before.String() != docs[id]) {
			return "diff's before of " + d.ID.String() + " is not the state at from"
		}
		delete(docs, id)
		if !d.After.IsMissing() {
			docs[id] = d.After.String()
		}
	}
	order := []string{}
	for id := range docs {
		order = append(order, id)
	}
	sort.Strings(order)
	var b strings.Builder
	for _, id := range order {
		b.WriteString(docs[id] + "\n")
	}
	return b.String()
}

// randomStore makes a store by a random workload of 15 steps (seed and
// stream seed the generator it returns) and picks one of its collections
// and a document of it; ok is false when the collection is empty.
func randomStore(t *testing.T, seed, stream uint64) (r *rand.Rand, db *store.DB, coll string, doc value.Value, ok bool) {
	r = rand.New(rand.NewPCG(seed, stream))
	db = storetest.MustOpen(t)
	workload(t, r, db, 15)
	coll = colls[r.IntN(len(colls))]
	doc, ok = pick(t, r, db, coll)
	return r, db, coll, doc, ok
}

// TestPlanApplyRollback_DumpIdentical_Property: for random stores and
// random plans, plan then apply then rollback leaves the dump
// byte-identical, and rolling back the rollback gives the applied state.
func TestPlanApplyRollback_DumpIdentical_Property(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		r, db, coll, doc, ok := randomStore(t, seed, 9)
		if !ok {
			continue
		}
		before := dump(t, db)
		token, err := randomPlanApply(r, db, coll, doc)
		if err != nil {
			t.Fatal(err)
		}
		applied := dump(t, db)
		if applied == before {
			continue // an update that changes nothing: no change to roll back
		}
		rb := mustRollback(t, db, token, false)
		if got := dump(t, db); got != before {
			t.Fatalf("seed %d: after rollback:\n%s\nwant\n%s", seed, got, before)
		}
		mustRollback(t, db, rb.ChangeID, false)
		if got := dump(t, db); got != applied {
			t.Fatalf("seed %d: after rolling back the rollback:\n%s\nwant\n%s", seed, got, applied)
		}
	}
}

// TestRevert_BringsBackTheRevision_Property: revert to a random revision,
// apply, and every collection holds what it held then; rolling the revert
// back returns to the present.
func TestRevert_BringsBackTheRevision_Property(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 10))
		db := storetest.MustOpen(t)
		states := workload(t, r, db, 40)
		rev := r.Uint64N(lastLSN(t, db) + 1)
		now := dump(t, db)
		plan, err := changes.PlanRevert(ctx, db, fmt.Sprint(rev), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := changes.Apply(ctx, db, plan.Token, nil); err != nil {
			t.Fatal(err)
		}
		got := readState(t, db)
		for _, coll := range colls {
			if got.text(coll) != states[rev].text(coll) {
				t.Fatalf("seed %d: after revert to %d, %s =\n%s\nwant\n%s", seed, rev, coll, got.text(coll), states[rev].text(coll))
			}
		}
		if plan.Modified > 0 {
			mustRollback(t, db, plan.Token, false)
		}
		if dump(t, db) != now {
			t.Fatalf("seed %d: rolling back the revert did not restore the present", seed)
		}
	}
}

// TestVersions_AreTheStatesAtTheirRevisions_Property.
func TestVersions_AreTheStatesAtTheirRevisions_Property(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		db := storetest.MustOpen(t)
		states := workload(t, r, db, 40)
		for _, coll := range colls {
			for _, l := range states[lastLSN(t, db)][coll] {
				vs, err := changes.Versions(ctx, db, coll, value.MustParse(l.id), 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vs {
					js, ok := states[v.LSN].get(coll, l.id)
					if ok == v.Doc.IsMissing() || (ok && js != v.Doc.String()) {
						t.Fatalf("seed %d: %s %s at lsn %d: version %v, state %q", seed, coll, l.id, v.LSN, v.Doc, js)
					}
				}
			}
		}
	}
}

// replayStates rebuilds the store from the journal alone, forward from
// empty, and returns the state after each record. An operation's
// after-image is the before-image of the document's next operation, or
// the current document when there is none.
func replayStates(t *testing.T, db *store.DB) map[uint64]state {
	var recs []*store.Record
	next := map[string]value.Value{} // document -> state after the operation being visited (backwards)
	afters := map[*store.Op]value.Value{}
	err := db.View(func(tx *store.Tx) error {
		for _, name := range tx.Collections() {
			c, _ := tx.Collection(name)
			for cur := c.Scan(); cur.Next(); {
				next[name+"\x00"+cur.Doc().Get("_id").String()] = cur.Doc()
			}
		}
		return tx.JournalReverse(0, func(r *store.Record) (bool, error) {
			recs = append(recs, r)
			for i := len(r.Ops) - 1; i >= 0; i-- {
				op := &r.Ops[i]
				k := op.Coll + "\x00" + op.ID.String()
				afters[op] = next[k]
				next[k] = op.Before // missing before an insert
			}
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	states := map[uint64]state{0: {}}
	colls := map[string]map[string]value.Value{}
	for i := len(recs) - 1; i >= 0; i-- {
		for j := range recs[i].Ops {
			replayOp(colls, &recs[i].Ops[j], afters)
		}
		states[recs[i].LSN] = stateOf(colls)
	}
	return states
}

func replayOp(colls map[string]map[string]value.Value, op *store.Op, afters map[*store.Op]value.Value) {
	switch op.Op {
	case store.OpCreateCollection:
		colls[op.Coll] = map[string]value.Value{}
	case store.OpDropCollection:
		delete(colls, op.Coll)
	case store.OpInsert, store.OpUpdate:
		colls[op.Coll][string(value.AppendKey(nil, op.ID))] = afters[op]
	case store.OpDelete:
		delete(colls[op.Coll], string(value.AppendKey(nil, op.ID)))
	}
}

// stateOf returns replayed collections as a state, documents in key order.
func stateOf(colls map[string]map[string]value.Value) state {
	st := state{}
	for name, docs := range colls {
		keys := make([]string, 0, len(docs))
		for k := range docs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lines := []docLine{}
		for _, k := range keys {
			lines = append(lines, docLine{id: docs[k].Get("_id").String(), json: docs[k].String()})
		}
		st[name] = lines
	}
	return st
}

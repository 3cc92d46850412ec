package changes_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// oneChange checks that the store's newest change is id, of kind, and
// that rolling it back restores want byte for byte.
func oneChange(t *testing.T, db *store.DB, id, kind, want string) {
	t.Helper()
	hist, err := changes.History(ctx, db, &changes.HistoryOptions{Limit: 1})
	if err != nil || len(hist) != 1 || hist[0].ID != id || hist[0].Kind != kind || hist[0].FirstLSN != hist[0].LastLSN {
		t.Fatalf("history = %+v, %v; want one record of change %s (%s)", hist, err, id, kind)
	}
	mustRollback(t, db, id, false)
	if got := dump(t, db); got != want {
		t.Fatalf("after rollback:\n%s\nwant:\n%s", got, want)
	}
}

func TestUpdate_ManyIsOneChange(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"team":"a","n":1}`, `{"_id":2,"team":"b","n":1}`,
		`{"_id":3,"team":"a","n":1}`, `{"_id":4,"team":"a","n":2}`)
	write(t, db, func(tx *store.Tx) error { // the update writes n, not team: only n's entries change
		c, _ := tx.Collection("users")
		for _, path := range []string{"n", "team"} {
			if _, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: path}}}); err != nil {
				return err
			}
		}
		return nil
	})
	before := dump(t, db)
	res, err := changes.Update(ctx, db, "users", value.MustParse(`{"team":"a"}`), value.MustParse(`{"$set":{"n":2}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Matched != 3 || res.Modified != 2 || res.Upserted != 0 || res.ChangeID == "" || res.LSN == 0 {
		t.Fatalf("result = %+v", res)
	}
	if got := dump(t, db); !strings.Contains(got, `{"_id":1,"team":"a","n":2}`) || !strings.Contains(got, `{"_id":2,"team":"b","n":1}`) {
		t.Fatalf("after update:\n%s", got)
	}
	storetest.MustVerify(t, db) // the indexes agree with the documents
	oneChange(t, db, res.ChangeID, changes.KindUpdate, before)
}

func TestUpdate_OneUpsertAndArrayFilters(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":1,"a":[1,5,9]}`, `{"_id":2,"k":1,"a":[7]}`)
	res, err := changes.Update(ctx, db, "c", value.MustParse(`{"k":1}`), value.MustParse(`{"$set":{"a.$[x]":0}}`),
		&changes.WriteOptions{One: true, ArrayFilters: []value.Value{value.MustParse(`{"x":{"$gt":4}}`)}})
	if err != nil || res.Matched != 1 || res.Modified != 1 {
		t.Fatalf("updateOne = %+v, %v", res, err)
	}
	if got := dump(t, db); !strings.Contains(got, `{"_id":1,"k":1,"a":[1,0,0]}`) || !strings.Contains(got, `{"_id":2,"k":1,"a":[7]}`) {
		t.Fatalf("after updateOne with arrayFilters:\n%s", got)
	}
	before := dump(t, db)
	res, err = changes.Update(ctx, db, "c", value.MustParse(`{"_id":9,"k":2}`), value.MustParse(`{"$inc":{"n":1}}`),
		&changes.WriteOptions{Upsert: true})
	if err != nil || res.Matched != 0 || res.Modified != 0 || res.Upserted != 1 || res.UpsertedID.String() != "9" {
		t.Fatalf("upsert = %+v, %v", res, err)
	}
	if got := dump(t, db); !strings.Contains(got, `{"_id":9,"k":2,"n":1}`) {
		t.Fatalf("after upsert:\n%s", got)
	}
	oneChange(t, db, res.ChangeID, changes.KindUpdate, before)
}

func TestUpdate_UpsertCreatesAndRollbackDropsCollection(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "other", `{"_id":1}`)
	before := dump(t, db)
	res, err := changes.Update(ctx, db, "fresh", value.MustParse(`{"name":"ada"}`), value.MustParse(`{"$set":{"age":36}}`),
		&changes.WriteOptions{Upsert: true})
	if err != nil || res.Upserted != 1 {
		t.Fatalf("upsert into a missing collection = %+v, %v", res, err)
	}
	oneChange(t, db, res.ChangeID, changes.KindUpdate, before)
	db.View(func(tx *store.Tx) error {
		if _, err := tx.Collection("fresh"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("rollback left the upsert's collection: %v", err)
		}
		return nil
	})
}

func TestUpdate_NothingMatchedWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"n":1}`)
	lsn := lastLSN(t, db)
	res, err := changes.Update(ctx, db, "c", value.MustParse(`{"n":5}`), value.MustParse(`{"$set":{"n":2}}`), nil)
	if err != nil || res.ChangeID != "" || res.LSN != 0 || !strings.Contains(res.Message, "matches no document") {
		t.Fatalf("result = %+v, %v", res, err)
	}
	res, err = changes.Update(ctx, db, "c", value.MustParse(`{"n":1}`), value.MustParse(`{"$set":{"n":1}}`), nil)
	if err != nil || res.Matched != 1 || res.Modified != 0 || res.ChangeID != "" || !strings.Contains(res.Message, "nothing was written") {
		t.Fatalf("no-op update = %+v, %v", res, err)
	}
	if lastLSN(t, db) != lsn {
		t.Fatal("a write that changed nothing left a journal record")
	}
}

func TestUpdate_Refusals(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"email":"a"}`, `{"_id":2,"email":"b"}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		_, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true})
		return err
	})
	before, lsn := dump(t, db), lastLSN(t, db)
	cases := []struct {
		name         string
		coll, f, u   string
		kind         errs.Kind
		msg          string
		replaceNotOp bool
	}{
		{"missing collection", "user", `{}`, `{"$set":{"x":1}}`, errs.NotFound, "did you mean `users`", false},
		{"replacement given to update", "users", `{}`, `{"x":1}`, errs.Invalid, "requires update operators", false},
		{"operators given to replace", "users", `{}`, `{"$set":{"x":1}}`, errs.Invalid, "must not contain update operators", true},
		{"unknown operator", "users", `{}`, `{"$sett":{"x":1}}`, errs.Invalid, "did you mean `$set`", false},
		{"unique violation on the second write", "users", `{}`, `{"$set":{"email":"same"}}`, errs.Conflict, "", false},
	}
	for _, c := range cases {
		var err error
		if c.replaceNotOp {
			_, err = changes.Replace(ctx, db, c.coll, value.MustParse(c.f), value.MustParse(c.u), nil)
		} else {
			_, err = changes.Update(ctx, db, c.coll, value.MustParse(c.f), value.MustParse(c.u), nil)
		}
		if err == nil || errs.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) || errs.HintOf(err) == "" {
			t.Errorf("%s: error = %v (kind %v, hint %q), want kind %v containing %q", c.name, err, errs.KindOf(err), errs.HintOf(err), c.kind, c.msg)
		}
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused write changed the store")
	}
}

func TestReplace_OneDocumentKeepsID(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":1,"old":true}`, `{"_id":2,"k":1}`)
	before := dump(t, db)
	res, err := changes.Replace(ctx, db, "c", value.MustParse(`{"k":1}`), value.MustParse(`{"k":2,"new":true}`), nil)
	if err != nil || res.Matched != 1 || res.Modified != 1 || res.Kind != changes.KindReplace {
		t.Fatalf("replace = %+v, %v", res, err)
	}
	if got := dump(t, db); !strings.Contains(got, `{"_id":1,"k":2,"new":true}`) || !strings.Contains(got, `{"_id":2,"k":1}`) {
		t.Fatalf("after replace:\n%s", got)
	}
	oneChange(t, db, res.ChangeID, changes.KindReplace, before)
	res, err = changes.Replace(ctx, db, "c", value.MustParse(`{"_id":7}`), value.MustParse(`{"v":1}`), &changes.WriteOptions{Upsert: true})
	if err != nil || res.Upserted != 1 || !strings.Contains(dump(t, db), `{"_id":7,"v":1}`) {
		t.Fatalf("replace with upsert = %+v, %v\n%s", res, err, dump(t, db))
	}
}

func TestDelete_ManyAndOne(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":1}`, `{"_id":2,"k":2}`, `{"_id":3,"k":1}`)
	before := dump(t, db)
	res, err := changes.Delete(ctx, db, "c", value.MustParse(`{"k":1}`), nil)
	if err != nil || res.Matched != 2 || res.Deleted != 2 || res.ChangeID == "" {
		t.Fatalf("delete = %+v, %v", res, err)
	}
	oneChange(t, db, res.ChangeID, changes.KindDelete, before)
	res, err = changes.Delete(ctx, db, "c", value.MustParse(`{"k":1}`), &changes.WriteOptions{One: true})
	if err != nil || res.Matched != 1 || res.Deleted != 1 {
		t.Fatalf("deleteOne = %+v, %v\n%s", res, err, dump(t, db))
	}
	if got := dump(t, db); strings.Contains(got, `{"_id":1,`) || !strings.Contains(got, `{"_id":3,`) {
		t.Fatalf("deleteOne must delete the first match in _id order:\n%s", got)
	}
}

func TestWrite_DryRunPlansAndWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":1}`, `{"_id":2,"k":1}`)
	before, lsn := dump(t, db), lastLSN(t, db)
	res, err := changes.Update(ctx, db, "c", value.MustParse(`{"k":1}`), value.MustParse(`{"$set":{"k":2}}`),
		&changes.WriteOptions{DryRun: true, One: true})
	if err != nil || res.Plan == nil || res.Plan.Matched != 1 || res.ChangeID != "" || len(res.Plan.SampleBeforeAfter) != 1 {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	del, err := changes.Delete(ctx, db, "c", value.MustParse(`{}`), &changes.WriteOptions{DryRun: true})
	if err != nil || del.Plan == nil || del.Plan.Kind != changes.KindDelete || del.Plan.Matched != 2 {
		t.Fatalf("delete dry run = %+v, %v", del, err)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a dry run wrote")
	}
	if ap := mustApply(t, db, res.Plan.Token); ap.Updated != 1 {
		t.Fatalf("applying the dry run's plan = %+v", ap)
	}
}

// TestOneStep_EqualsPlanApplyAndRollsBack_Property: for random stores and
// random writes, a one-step update, replace or delete leaves the store
// exactly as planning and applying the same write leaves a copy of it;
// rolling it back gives the dump before, byte for byte, and rolling the
// rollback back gives the written state again.
func TestOneStep_EqualsPlanApplyAndRollsBack_Property(t *testing.T) {
	compared, rolledBack := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		r, db, coll, doc, ok := randomStore(t, seed, 11)
		if !ok {
			continue
		}
		filter := randomFilter(r, doc)
		del, update, one := r.IntN(3) == 0, randomUpdate(r, doc), r.IntN(3) == 0
		copyPath := filepath.Join(t.TempDir(), "copy.omgdb")
		if _, err := db.Backup(ctx, copyPath); err != nil {
			t.Fatal(err)
		}
		before := dump(t, db)
		var res *changes.WriteResult
		var err error
		wo := &changes.WriteOptions{One: one}
		switch {
		case del:
			res, err = changes.Delete(ctx, db, coll, filter, wo)
		case update.Len() > 0 && strings.HasPrefix(update.Fields()[0].Key, "$"):
			res, err = changes.Update(ctx, db, coll, filter, update, wo)
		default:
			one = true
			res, err = changes.Replace(ctx, db, coll, filter, update, wo)
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		written := dump(t, db)
		if got := planApplied(t, copyPath, coll, filter, update, del, one); got != written {
			t.Fatalf("seed %d: the one-step write left\n%s\nplan and apply left\n%s", seed, written, got)
		}
		compared++
		if res.ChangeID == "" {
			if written != before {
				t.Fatalf("seed %d: no change id, but the store changed", seed)
			}
			continue
		}
		rb := mustRollback(t, db, res.ChangeID, false)
		if got := dump(t, db); got != before {
			t.Fatalf("seed %d: after rollback:\n%s\nwant\n%s", seed, got, before)
		}
		mustRollback(t, db, rb.ChangeID, false)
		if got := dump(t, db); got != written {
			t.Fatalf("seed %d: after rolling back the rollback:\n%s\nwant\n%s", seed, got, written)
		}
		rolledBack++
	}
	if compared < 20 || rolledBack < 10 {
		t.Fatalf("of 40 seeds, %d compared and %d rolled back: too few", compared, rolledBack)
	}
	t.Logf("%d random one-step writes equal plan and apply; %d rolled back byte for byte", compared, rolledBack)
}

// planApplied plans and applies a write on the store at path and returns
// its dump.
func planApplied(t *testing.T, path, coll string, filter, update value.Value, del, one bool) string {
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opts := &changes.PlanOptions{First: one}
	var plan *changes.PlanResult
	if del {
		plan, err = changes.PlanDelete(ctx, db, coll, filter, opts)
	} else {
		plan, err = changes.PlanUpdate(ctx, db, coll, filter, update, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, db, plan.Token)
	return dump(t, db)
}

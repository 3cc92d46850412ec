package changes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/leakcheck"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func planUpdate(t *testing.T, db *store.DB, coll, filter, update string, opts *changes.PlanOptions) *changes.PlanResult {
	t.Helper()
	res, err := changes.PlanUpdate(ctx, db, coll, value.MustParse(filter), value.MustParse(update), opts)
	if err != nil {
		t.Fatalf("plan-update %s %s: %v", filter, update, err)
	}
	return res
}

func TestPlanUpdate_MatchedModifiedAndApply(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"age":30,"tier":"gold"}`, `{"_id":2,"age":40,"tier":"std"}`, `{"_id":3,"age":50,"tier":"gold"}`)
	before, lsn := dump(t, db), lastLSN(t, db)
	res := planUpdate(t, db, "users", `{"age":{"$gte":35}}`, `{"$set":{"tier":"gold"}}`, nil)
	if res.Matched != 2 || res.Modified != 1 || len(res.SampleBeforeAfter) != 1 ||
		res.SampleBeforeAfter[0].After.String() != `{"_id":2,"age":40,"tier":"gold"}` {
		t.Fatalf("plan = %+v", res)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("planning wrote documents or journal")
	}
	// The unchanged match is checked too: editing it makes the plan stale.
	replace(t, db, "users", "3", `{"age":50,"tier":"platinum"}`)
	_, err := changes.Apply(ctx, db, res.Token, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "3" {
		t.Errorf("conflicts = %v", ids)
	}
	res = planUpdate(t, db, "users", `{"age":{"$gte":35}}`, `{"$set":{"tier":"gold"}}`, nil)
	ap := mustApply(t, db, res.Token)
	if ap.Updated != 2 || !strings.Contains(dump(t, db), `{"_id":2,"age":40,"tier":"gold"}`) {
		t.Fatalf("apply = %+v\n%s", ap, dump(t, db))
	}
}

func TestPlanUpdate_ErrorsNameTheDocument(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"n":1}`, `{"_id":2,"n":"x"}`)
	_, err := changes.PlanUpdate(ctx, db, "c", value.MustParse(`{}`), value.MustParse(`{"$inc":{"n":1}}`), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "update of _id 2 in `c`: ") || errs.KindOf(err) != errs.Invalid {
		t.Fatalf("error = %v", err)
	}
	_, err = changes.PlanUpdate(ctx, db, "c", value.MustParse(`{}`), value.MustParse(`{"$sett":{"n":1}}`), nil)
	if err == nil || !strings.Contains(err.Error(), "did you mean `$set`") {
		t.Errorf("unknown operator = %v", err)
	}
	ps, _ := changes.Plans(ctx, db, true)
	if len(ps) != 0 {
		t.Errorf("failed plans were stored: %v", ps)
	}
}

func TestPlanUpdate_UpsertInsertsAndRechecksTheFilter(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":"a"}`)
	opts := &changes.PlanOptions{Upsert: true}
	res := planUpdate(t, db, "c", `{"k":"b"}`, `{"$set":{"v":1},"$setOnInsert":{"new":true}}`, opts)
	after := res.SampleBeforeAfter[0].After
	if res.Matched != 0 || res.Modified != 1 || res.UpsertedID == nil || after.Get("k").Str() != "b" ||
		!after.Get("new").Bool() || after.Get("_id").Kind() != value.ObjectID {
		t.Fatalf("upsert plan = %+v (after %v)", res, after)
	}
	// A document that now matches makes the upsert stale.
	stale := planUpdate(t, db, "c", `{"k":"c"}`, `{"$set":{"v":1}}`, opts)
	storetest.Insert(t, db, "c", `{"_id":9,"k":"c"}`)
	if ids := conflictIDs(t, applyErr(db, stale.Token)); strings.Join(ids, ",") != "9" {
		t.Errorf("stale upsert conflicts = %v", ids)
	}
	ap := mustApply(t, db, res.Token)
	if ap.Inserted != 1 {
		t.Errorf("apply = %+v", ap)
	}
	// Upserting into a missing collection creates it; rollback removes it.
	before := dump(t, db)
	res = planUpdate(t, db, "fresh", `{"_id":"x"}`, `{"$set":{"v":1}}`, opts)
	if !strings.Contains(res.Message, "does not exist") {
		t.Errorf("message = %q", res.Message)
	}
	mustApply(t, db, res.Token)
	if !strings.Contains(dump(t, db), `{"collection":"fresh","document":{"_id":"x","v":1}}`) {
		t.Errorf("dump:\n%s", dump(t, db))
	}
	mustRollback(t, db, res.Token, false)
	if dump(t, db) != before {
		t.Errorf("rollback of the upsert left:\n%s", dump(t, db))
	}
	if _, err := changes.PlanUpdate(ctx, db, "fresh", value.MustParse(`{}`), value.MustParse(`{"$set":{"v":1}}`), nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of a missing collection without upsert = %v", err)
	}
}

func applyErr(db *store.DB, token string) error {
	_, err := changes.Apply(ctx, db, token, nil)
	return err
}

func TestPlanUpdate_ReplacementAndFirstOnly(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":1,"a":1}`, `{"_id":2,"k":1,"a":2}`)
	res := planUpdate(t, db, "c", `{"k":1}`, `{"b":2}`, &changes.PlanOptions{First: true})
	if res.Matched != 1 || res.SampleBeforeAfter[0].After.String() != `{"_id":1,"b":2}` {
		t.Fatalf("replacement = %+v", res)
	}
	p, docs, err := changes.ShowPlan(ctx, db, res.Token)
	if err != nil || p.Update.String() != `{"b":2}` || !p.First || len(docs) != 1 || len(docs[0].Fields) != 3 {
		t.Fatalf("show = %+v %+v %v", p, docs, err)
	}
}

// TestPlanUpdate_ManyMatches plans over more matches than one run of the
// planning pipeline: apply writes exactly what a document-by-document
// update gives, with indexes kept (Verify checks them on cleanup), rollback
// restores the bytes, and a failure names the first failing _id.
func TestPlanUpdate_ManyMatches(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs, want []string
	for i := range 3000 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"plan":"%s","score":%d,"email":"u%d@x"}`, i, []string{"team", "free", "pro"}[i%3], i, i))
		if i%3 == 0 {
			want = append(want, fmt.Sprintf(`{"_id":%d,"plan":"team","score":%d,"email":"u%d@x","flag":true}`, i, i+1, i))
		} else {
			want = append(want, docs[i])
		}
	}
	storetest.Insert(t, db, "users", docs...)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if _, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true}); err != nil {
			return err
		}
		_, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "score"}}})
		return err
	})
	before := dump(t, db)
	res := planUpdate(t, db, "users", `{"plan":"team"}`, `{"$inc":{"score":1},"$set":{"flag":true}}`, nil)
	if res.Matched != 1000 || res.Modified != 1000 {
		t.Fatalf("plan = %+v", res)
	}
	ap := mustApply(t, db, res.Token)
	if ap.Updated != 1000 {
		t.Fatalf("apply = %+v", ap)
	}
	var lines []string
	for _, w := range want {
		lines = append(lines, `{"collection":"users","document":`+w+`}`)
	}
	if got := dump(t, db); !strings.Contains(got, strings.Join(lines, "\n")+"\n") {
		t.Fatalf("after apply:\n%.600s", got)
	}
	if _, err := changes.Rollback(ctx, db, ap.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, db); got != before {
		t.Fatalf("after rollback:\n%.600s", got)
	}
	// Two failing documents far apart: the first in _id order is named.
	replace(t, db, "users", "2700", `{"plan":"team","score":"x","email":"a"}`)
	replace(t, db, "users", "1200", `{"plan":"team","score":"y","email":"b"}`)
	_, err := changes.PlanUpdate(ctx, db, "users", value.MustParse(`{"plan":"team"}`), value.MustParse(`{"$inc":{"score":1}}`), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "update of _id 1200 in `users`: ") {
		t.Fatalf("error = %v", err)
	}
}

// Apply checks each document as it writes it: a document found changed
// after others were written, or a write refused before a changed
// document, still leaves the store as it was, and the conflict is
// reported over the write's error.
func TestApply_OnePassRefusalWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"k":"a","n":1}`, `{"_id":2,"k":"b","n":1}`, `{"_id":3,"k":"c","n":1}`,
		`{"_id":4,"k":"d","n":1}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		_, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true}))
		return err
	})
	// The last document (in _id order) changes after planning.
	plan := planUpdate(t, db, "users", `{}`, `{"$inc":{"n":1}}`, nil)
	replace(t, db, "users", "4", `{"k":"d","n":7}`)
	before, lsn := dump(t, db), lastLSN(t, db)
	_, err := changes.Apply(ctx, db, plan.Token, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "4" {
		t.Errorf("conflicts = %v", ids)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused apply wrote something")
	}
	// The first write breaks the unique index and the third document
	// changed: the conflict is reported.
	plan = planUpdate(t, db, "users", `{"_id":{"$lte":3}}`, `{"$set":{"k":"d"}}`, nil)
	replace(t, db, "users", "3", `{"k":"c","n":9}`)
	before, lsn = dump(t, db), lastLSN(t, db)
	_, err = changes.Apply(ctx, db, plan.Token, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "3" {
		t.Errorf("conflicts = %v", ids)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused apply wrote something")
	}
	// Nothing changed since: the write's error.
	plan = planUpdate(t, db, "users", `{"_id":{"$lte":3}}`, `{"$set":{"k":"d"}}`, nil)
	_, err = changes.Apply(ctx, db, plan.Token, nil)
	if err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("apply onto a taken key: %v", err)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused apply wrote something")
	}
	// A document deleted since is a conflict too.
	plan = planUpdate(t, db, "users", `{}`, `{"$inc":{"n":1}}`, nil)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		return c.Delete(value.LongValue(2))
	})
	_, err = changes.Apply(ctx, db, plan.Token, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "2" {
		t.Errorf("conflicts = %v", ids)
	}
}

// Plans do not store before-images: ShowPlan shows the document as it was
// planned, from the store while it is unchanged and from the journal once
// it changed or was deleted; null once compaction pruned that history.
func TestShowPlan_BeforeImagesFromTheStoreOrTheJournal(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"n":1}`, `{"_id":2,"n":2}`, `{"_id":3,"n":3}`, `{"_id":4,"n":4}`)
	plan := planUpdate(t, db, "users", `{"_id":{"$lte":3}}`, `{"$inc":{"n":10}}`, nil)
	del := mustDelete(t, db, "users", `{"_id":4}`)
	show := func(token string) string {
		t.Helper()
		_, docs, err := changes.ShowPlan(ctx, db, token)
		if err != nil {
			t.Fatalf("show %s: %v", token, err)
		}
		var out []string
		for _, d := range docs {
			out = append(out, fmt.Sprintf("%s %s %s %s %d", d.ID, d.Op, d.Before, d.After, len(d.Fields)))
		}
		return strings.Join(out, "\n")
	}
	want := `1 update {"_id":1,"n":1} {"_id":1,"n":11} 1
2 update {"_id":2,"n":2} {"_id":2,"n":12} 1
3 update {"_id":3,"n":3} {"_id":3,"n":13} 1`
	if got := show(plan.Token); got != want {
		t.Fatalf("fresh plan:\n%s\nwant\n%s", got, want)
	}
	// 2 changes twice and 3 is deleted: the plan is stale, and shows them
	// as planned.
	replace(t, db, "users", "2", `{"n":5}`)
	replace(t, db, "users", "2", `{"n":6}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		return c.Delete(value.LongValue(3))
	})
	if got := show(plan.Token); got != want {
		t.Fatalf("stale plan:\n%s\nwant\n%s", got, want)
	}
	if got, want := show(del.Token), `4 delete {"_id":4,"n":4} <missing> 0`; got != want {
		t.Fatalf("delete plan: %s, want %s", got, want)
	}
	// History pruned past the plan: a changed document's before is unknown.
	path := db.Path()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Compact(ctx, path, &store.CompactOptions{HistoryBefore: lastLSNAt(t, path)}); err != nil {
		t.Fatal(err)
	}
	var err error
	if db, err = store.Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want = `1 update {"_id":1,"n":1} {"_id":1,"n":11} 1
2 update <missing> {"_id":2,"n":12} 0
3 update <missing> {"_id":3,"n":13} 0`
	if got := show(plan.Token); got != want {
		t.Fatalf("stale plan, history pruned:\n%s\nwant\n%s", got, want)
	}
	if _, err := changes.Apply(ctx, db, plan.Token, nil); !errors.Is(err, changes.ErrConflict) {
		t.Fatalf("apply of the stale plan: %v", err)
	}
}

func lastLSNAt(t *testing.T, path string) uint64 {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return lastLSN(t, db)
}

// TestPlan_ManyChunks plans over more chunks than are compressed at once
// (a chunk holds 1,024 items): apply changes every document in _id order,
// rollback restores the bytes, and a failure late in the plan, with chunks
// still compressing, leaves no plan and no goroutine behind.
func TestPlan_ManyChunks(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs []string
	for i := range 9000 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"n":%d,"pad":"%s"}`, i, i, strings.Repeat("x", i%300)))
	}
	storetest.Insert(t, db, "c", docs...)
	before := dump(t, db)
	res := planUpdate(t, db, "c", `{}`, `{"$inc":{"n":1}}`, nil)
	if res.Matched != 9000 || res.Modified != 9000 {
		t.Fatalf("plan = %+v", res)
	}
	if ap := mustApply(t, db, res.Token); ap.Updated != 9000 {
		t.Fatalf("apply = %+v", ap)
	}
	got := dump(t, db)
	for i := range 9000 {
		if want := fmt.Sprintf(`{"_id":%d,"n":%d,`, i, i+1); !strings.Contains(got, want) {
			t.Fatalf("after apply, no %s", want)
		}
	}
	mustRollback(t, db, res.Token, false)
	if got := dump(t, db); got != before {
		t.Fatal("rollback did not restore the 9,000 documents")
	}

	replace(t, db, "c", "8500", `{"n":"text"}`)
	leakcheck.Rounds(t, 3, func(int) {
		_, err := changes.PlanUpdate(ctx, db, "c", value.MustParse(`{}`), value.MustParse(`{"$inc":{"n":1}}`), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "update of _id 8500 in `c`: ") {
			t.Fatalf("error = %v", err)
		}
	})
	plans, err := changes.Plans(ctx, db, true)
	if err != nil || len(plans) != 1 {
		t.Fatalf("plans after the failures = %d, %v; want only the applied one", len(plans), err)
	}
}

// TestApply_IndexesKeptWhenUpdatesSkipThem: apply skips index maintenance
// for an update none of whose paths an index reads (store.ReplaceJSONAt).
// Updates on indexed, unindexed, nested and array paths, one after
// another, leave every index exactly as a rebuild would (Verify, on
// cleanup, compares them), and each document as the update makes it.
func TestApply_IndexesKeptWhenUpdatesSkipThem(t *testing.T) {
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(20261122, 5))
	var docs []string
	for i := range 300 {
		var a string
		switch i % 3 {
		case 0:
			a = fmt.Sprintf(`{"b":%d,"d":%d}`, r.IntN(5), r.IntN(5))
		case 1:
			a = fmt.Sprintf(`[{"b":%d},{"b":%d,"d":1}]`, r.IntN(5), r.IntN(5))
		default:
			a = fmt.Sprint(r.IntN(5))
		}
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"a":%s,"c":[%d,%d],"n":%d,"x":%d}`, i, a, r.IntN(5), r.IntN(5), r.IntN(5), r.IntN(5)))
	}
	storetest.Insert(t, db, "c", docs...)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for _, path := range []string{"a.b", "c", "n"} {
			if _, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: path}}}); err != nil {
				return err
			}
		}
		return nil
	})
	updates := []string{
		`{"$set":{"x":7}}`, `{"$inc":{"x":1},"$set":{"y":true}}`, // no index reads these: skipped
		`{"$set":{"a.d":9}}`, `{"$unset":{"y":""}}`,
		`{"$inc":{"n":1}}`, `{"$set":{"a.b":8}}`, `{"$push":{"c":6}}`, // these change index entries
		`{"$set":{"c.0":5}}`, `{"$set":{"a.0.b":4}}`, `{"$rename":{"x":"a"}}`, `{"$unset":{"a":""}}`,
		`{"$max":{"c.1":9}}`, `{"$set":{"a":{"b":1}}}`, `{"$rename":{"n":"m"}}`,
	}
	applied := 0
	for round := range 3 {
		for _, u := range updates {
			filter := fmt.Sprintf(`{"_id":{"$mod":[3,%d]}}`, r.IntN(3))
			res, err := changes.PlanUpdate(ctx, db, "c", value.MustParse(filter), value.MustParse(u), nil)
			if err != nil {
				continue // an update some documents refuse ($set a.0.b on a scalar)
			}
			applied++
			before := docsByID(t, db)
			mustApply(t, db, res.Token)
			spec, _ := query.CompileUpdate(value.MustParse(u), nil)
			for id, doc := range docsByID(t, db) {
				want := before[id]
				if matches(t, filter, want) {
					after, _, err := spec.Apply(want, query.ApplyContext{})
					if err != nil {
						t.Fatalf("round %d, %s: %v", round, u, err)
					}
					want = after
				}
				if string(value.JSON(doc)) != string(value.JSON(want)) {
					t.Fatalf("round %d, %s: _id %d is %s, want %s", round, u, id, value.JSON(doc), value.JSON(want))
				}
			}
		}
	}
	if applied < 30 {
		t.Fatalf("only %d of %d plans applied", applied, 3*len(updates))
	}
}

func docsByID(t *testing.T, db *store.DB) map[int64]value.Value {
	t.Helper()
	out := map[int64]value.Value{}
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			t.Fatal(err)
		}
		cur := c.Scan()
		defer cur.Close()
		for cur.Next() {
			out[cur.Doc().Get("_id").Long()] = cur.Doc()
		}
		return cur.Err()
	})
	return out
}

func matches(t *testing.T, filter string, doc value.Value) bool {
	f, err := query.CompileFilter(value.MustParse(filter))
	if err != nil {
		t.Fatal(err)
	}
	return f.Match(doc)
}

// TestApply_DamagedChunkWritesNothing: a plan whose second chunk of
// after-images is damaged fails to apply with an error that names the
// plan and writes nothing (the items of the first chunk were already
// written in the transaction); so does a cancelled apply; neither leaves
// the goroutine that parses chunks behind.
func TestApply_DamagedChunkWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs []string
	for i := range 6000 { // six chunks: more than the goroutine hands over ahead
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"n":%d}`, i, i))
	}
	storetest.Insert(t, db, "c", docs...)
	before := dump(t, db)
	leakcheck.Rounds(t, 2, func(int) {
		res := planUpdate(t, db, "c", `{}`, `{"$inc":{"n":1}}`, nil)
		write(t, db, func(tx *store.Tx) error {
			return tx.Plans().PutChunk(res.Token, store.PlanAfters, 1, store.EncodeBlob([]byte("{\"broken\n")))
		})
		_, err := changes.Apply(ctx, db, res.Token, nil)
		if err == nil || !strings.Contains(err.Error(), "plan "+res.Token) {
			t.Fatalf("apply of a damaged plan: %v, want an error naming the plan", err)
		}
		if got := dump(t, db); got != before {
			t.Fatal("the failed apply wrote documents")
		}
		// A cancelled apply stops while the goroutine has chunks to hand over.
		res = planUpdate(t, db, "c", `{}`, `{"$inc":{"n":1}}`, nil)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := changes.Apply(cctx, db, res.Token, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("apply with a cancelled context: %v", err)
		}
		if got := dump(t, db); got != before {
			t.Fatal("the cancelled apply wrote documents")
		}
	})
}

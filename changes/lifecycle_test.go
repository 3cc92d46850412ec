package changes_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func TestPlanDelete_WritesNoDocumentAndNoJournal(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"team":"a"}`, `{"_id":2,"team":"b"}`, `{"_id":3,"team":"a"}`)
	before, lsn := dump(t, db), lastLSN(t, db)
	res := mustDelete(t, db, "users", `{"team":"a"}`)
	if res.Matched != 2 || res.Modified != 2 || len(res.SampleBeforeAfter) != 2 {
		t.Fatalf("plan = %+v", res)
	}
	if got := res.SampleBeforeAfter[0]; got.Before.String() != `{"_id":1,"team":"a"}` || !got.After.IsMissing() {
		t.Errorf("sample[0] = %v -> %v", got.Before, got.After)
	}
	if _, ok := value.ParseOID(res.Token); !ok {
		t.Errorf("token %q is not an ObjectId", res.Token)
	}
	if strings.Join(res.NextValidActions, ",") != "apply,show,discard" {
		t.Errorf("next actions = %v", res.NextValidActions)
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("planning changed the documents or the journal")
	}
}

func TestPlanDelete_NothingMatchesSaysSo(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1}`)
	res := mustDelete(t, db, "users", `{"team":"zz"}`)
	if res.Matched != 0 || !strings.Contains(res.Message, "matches no document") {
		t.Fatalf("plan = %+v", res)
	}
	ap := mustApply(t, db, res.Token)
	if ap.LSN != 0 || ap.Deleted != 0 || ap.Message == "" {
		t.Errorf("apply of an empty plan = %+v", ap)
	}
	if _, err := changes.PlanDelete(ctx, db, "user", value.MustParse(`{}`), nil); !errors.Is(err, store.ErrNotFound) ||
		!strings.Contains(err.Error(), "did you mean `users`") {
		t.Errorf("plan on a missing collection = %v", err)
	}
}

func TestPlanDelete_FirstOnlyAndSample(t *testing.T) {
	db := storetest.MustOpen(t)
	for i := 0; i < 10; i++ {
		storetest.Insert(t, db, "c", fmt.Sprintf(`{"_id":%d,"k":1}`, i))
	}
	res, err := changes.PlanDelete(ctx, db, "c", value.MustParse(`{"k":1}`), &changes.PlanOptions{First: true})
	if err != nil || res.Matched != 1 || res.SampleBeforeAfter[0].Before.Get("_id").Long() != 0 {
		t.Fatalf("first only = %+v, %v", res, err)
	}
	res, err = changes.PlanDelete(ctx, db, "c", value.MustParse(`{}`), &changes.PlanOptions{Sample: 5})
	if err != nil || res.Matched != 10 || len(res.SampleBeforeAfter) != 5 {
		t.Fatalf("sample 5 = %+v, %v", res, err)
	}
}

func TestApply_DeletesThenRollbackRestoresBytes(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"team":"a","n":2.0}`, `{"_id":2,"team":"b"}`, `{"_id":3,"team":"a","big":9007199254740993}`)
	before := dump(t, db)
	plan := mustDelete(t, db, "users", `{"team":"a"}`)
	ap := mustApply(t, db, plan.Token)
	if ap.ChangeID != plan.Token || ap.Deleted != 2 || ap.LSN != lastLSN(t, db) {
		t.Fatalf("apply = %+v", ap)
	}
	if got := dump(t, db); strings.Contains(got, `"team":"a"`) || !strings.Contains(got, `"_id":2`) {
		t.Fatalf("after apply:\n%s", got)
	}
	// The journal record of the apply carries the token as its change id.
	db.View(func(tx *store.Tx) error {
		recs, _ := tx.ChangeRecords(plan.Token)
		if len(recs) != 1 || recs[0].Kind != "apply" || len(recs[0].Ops) != 2 {
			t.Errorf("journal of the apply = %+v", recs)
		}
		return nil
	})
	rb := mustRollback(t, db, plan.Token, false)
	if rb.Inserted != 2 || rb.RolledBack != plan.Token || rb.ChangeID == plan.Token {
		t.Errorf("rollback = %+v", rb)
	}
	if got := dump(t, db); got != before {
		t.Fatalf("rollback did not restore the bytes:\n%s\nwant\n%s", got, before)
	}
}

func TestApply_ConflictListsChangedDocumentsAndWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"team":"a"}`, `{"_id":2,"team":"a"}`, `{"_id":3,"team":"a"}`)
	plan := mustDelete(t, db, "users", `{"team":"a"}`)
	replace(t, db, "users", "2", `{"team":"a","edited":true}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		return c.Delete(value.LongValue(3))
	})
	before, lsn := dump(t, db), lastLSN(t, db)
	_, err := changes.Apply(ctx, db, plan.Token, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "2,3" {
		t.Errorf("conflicting ids = %v, want 2,3", ids)
	}
	if !strings.Contains(err.Error(), "users 2, users 3") || !strings.Contains(errs.HintOf(err), "plan the change again") {
		t.Errorf("message = %q, hint = %q", err, errs.HintOf(err))
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused apply wrote something")
	}
	// The plan stays pending; a fresh plan applies.
	ps, _ := changes.Plans(ctx, db, false)
	if len(ps) != 1 || ps[0].Token != plan.Token {
		t.Errorf("pending plans = %v", ps)
	}
	mustApply(t, db, mustDelete(t, db, "users", `{"team":"a"}`).Token)
}

func TestApply_TwiceIsRefusedWithTheChangeState(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	plan := mustDelete(t, db, "c", `{}`)
	mustApply(t, db, plan.Token)
	_, err := changes.Apply(ctx, db, plan.Token, nil)
	if !errors.Is(err, changes.ErrNotPending) || errs.KindOf(err) != errs.Conflict ||
		!strings.Contains(err.Error(), "already applied") || !strings.HasSuffix(err.Error(), "which is now applied") {
		t.Fatalf("second apply = %v", err)
	}
	rb := mustRollback(t, db, plan.Token, false)
	_, err = changes.Apply(ctx, db, plan.Token, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "which is now rolled back by "+rb.ChangeID) {
		t.Fatalf("apply after rollback = %v", err)
	}
	if _, err := changes.Apply(ctx, db, "665f1c2e9b1d4a0c8e7f6a5b", nil); !errors.Is(err, changes.ErrNotFound) || errs.KindOf(err) != errs.NotFound {
		t.Errorf("unknown token = %v", err)
	}
	if _, err := changes.Apply(ctx, db, "nope", nil); errs.KindOf(err) != errs.Invalid {
		t.Errorf("malformed token = %v", err)
	}
}

func TestPlans_DiscardAndExpiry(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`, `{"_id":2}`)
	keep := mustDelete(t, db, "c", `{"_id":1}`)
	drop := mustDelete(t, db, "c", `{"_id":2}`)
	short, err := changes.PlanDelete(ctx, db, "c", value.MustParse(`{}`), &changes.PlanOptions{Expiry: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changes.Discard(ctx, db, drop.Token); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	pending, _ := changes.Plans(ctx, db, false)
	if len(pending) != 1 || pending[0].Token != keep.Token {
		t.Fatalf("pending = %v", pending)
	}
	all, _ := changes.Plans(ctx, db, true)
	status := map[string]string{}
	for _, p := range all {
		status[p.Token] = p.Status
	}
	if status[keep.Token] != "pending" || status[drop.Token] != "discarded" || status[short.Token] != "expired" {
		t.Errorf("statuses = %v", status)
	}
	for tok, want := range map[string]string{drop.Token: "was discarded", short.Token: "expired at"} {
		if _, err := changes.Apply(ctx, db, tok, nil); !errors.Is(err, changes.ErrNotPending) || !strings.Contains(err.Error(), want) {
			t.Errorf("apply %s = %v, want %q", tok, err, want)
		}
	}
	// Planning again retires expired plans: their documents are dropped.
	mustDelete(t, db, "c", `{}`)
	_, docs, err := changes.ShowPlan(ctx, db, short.Token)
	if err != nil || len(docs) != 0 {
		t.Errorf("an expired plan still holds %d documents (%v)", len(docs), err)
	}
	p, docs, err := changes.ShowPlan(ctx, db, keep.Token)
	if err != nil || len(docs) != 1 || p.Status != "pending" || docs[0].Op != "delete" {
		t.Errorf("show pending = %+v %v %v", p, docs, err)
	}
}

func TestRollback_RefusesWhenChangedLaterUnlessForced(t *testing.T) {
	db := storetest.MustOpen(t)
	ins := write(t, db, func(tx *store.Tx) error {
		c, _ := tx.CreateCollection("c")
		for i := 1; i <= 3; i++ {
			if _, err := c.Insert(value.MustParse(fmt.Sprintf(`{"_id":%d,"v":0}`, i))); err != nil {
				return err
			}
		}
		return nil
	})
	upd := replace(t, db, "c", "1", `{"v":1}`)
	replace(t, db, "c", "1", `{"v":2}`)
	before := dump(t, db)
	_, err := changes.Rollback(ctx, db, upd, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "1" {
		t.Errorf("conflicts = %v", ids)
	}
	if dump(t, db) != before {
		t.Fatal("a refused rollback wrote something")
	}
	// Changed and changed back: the document is as the change left it.
	replace(t, db, "c", "1", `{"v":1}`)
	rb := mustRollback(t, db, upd, false)
	if rb.Updated != 1 || !strings.Contains(dump(t, db), `{"_id":1,"v":0}`) {
		t.Fatalf("rollback = %+v\n%s", rb, dump(t, db))
	}
	// Document 1 is back as the insert left it; document 2 is not:
	// refused, then forced.
	replace(t, db, "c", "2", `{"v":9}`)
	_, err = changes.Rollback(ctx, db, ins, nil)
	if ids := conflictIDs(t, err); strings.Join(ids, ",") != "2" {
		t.Errorf("conflicts = %v", ids)
	}
	forced := mustRollback(t, db, ins, true)
	if forced.Deleted != 3 || len(forced.Overwritten) != 1 {
		t.Errorf("forced = %+v", forced)
	}
	if got := dump(t, db); got != "" {
		t.Errorf("after rolling back the collection's creation, dump = %q", got)
	}
}

func TestRollback_OfARollbackRedoesTheChange(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"k":"x"}`, `{"_id":2,"k":"y"}`, `{"_id":3,"k":"x"}`)
	plan := mustDelete(t, db, "c", `{"k":"x"}`)
	mustApply(t, db, plan.Token)
	applied := dump(t, db)
	rb := mustRollback(t, db, plan.Token, false)
	if _, err := changes.Rollback(ctx, db, plan.Token, nil); !errors.Is(err, changes.ErrRolledBack) ||
		!strings.Contains(errs.HintOf(err), rb.ChangeID) {
		t.Fatalf("second rollback = %v", err)
	}
	rb2 := mustRollback(t, db, rb.ChangeID, false)
	if got := dump(t, db); got != applied {
		t.Fatalf("rollback of the rollback:\n%s\nwant\n%s", got, applied)
	}
	// The change is in effect again, so it can be rolled back once more.
	mustRollback(t, db, plan.Token, false)
	hist, err := changes.History(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range hist {
		got[c.ID] = c.Status
	}
	if got[plan.Token] == "applied" || got[rb.ChangeID] != "rolled back by "+rb2.ChangeID || got[rb2.ChangeID] != "applied" {
		t.Errorf("statuses = %v", got)
	}
}

func TestRollback_ImportOfManyBatchesAndUnknownIDs(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "keep", `{"_id":1}`)
	before := dump(t, db)
	var in strings.Builder
	for i := 0; i < 250; i++ {
		fmt.Fprintf(&in, "{\"_id\":%d}\n", i)
	}
	sum, err := db.Import(ctx, "imported", strings.NewReader(in.String()), &store.ImportOptions{BatchSize: 100})
	if err != nil || sum.Batches != 3 {
		t.Fatalf("import = %+v, %v", sum, err)
	}
	rb := mustRollback(t, db, sum.Change, false)
	if rb.Deleted != 250 {
		t.Errorf("rollback = %+v", rb)
	}
	if got := dump(t, db); got != before {
		t.Errorf("after rolling back the import:\n%s\nwant\n%s", got, before)
	}
	_, err = changes.Rollback(ctx, db, "665f1c2e9b1d4a0c8e7f6a5b", nil)
	if errs.KindOf(err) != errs.NotFound || !strings.Contains(err.Error(), "no change 665f1c2e9b1d4a0c8e7f6a5b") {
		t.Errorf("unknown change = %v", err)
	}
	pending := mustDelete(t, db, "keep", `{}`)
	if _, err = changes.Rollback(ctx, db, pending.Token, nil); err == nil || !strings.Contains(err.Error(), "a plan that is pending") {
		t.Errorf("rollback of a pending plan = %v", err)
	}
}

// countKind is an index kind for tests: it keeps one record per document.
type countKind struct{}

func (countKind) Prepare(def store.IndexDef) (store.IndexDef, error) { return def, nil }
func (countKind) Update(ix *store.Index, before, after value.Value) error {
	if !before.IsMissing() {
		ix.Text().DeleteDoc(value.AppendKey(nil, before.Get("_id")))
	}
	if !after.IsMissing() {
		ix.Text().PutDoc(value.AppendKey(nil, after.Get("_id")), nil, value.AppendJSON(nil, after.Get("_id")))
	}
	return nil
}

func init() { store.RegisterIndexKind("changes-test", countKind{}) }

func indexNames(t *testing.T, db *store.DB, coll string) string {
	var names []string
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return nil
		}
		for _, d := range c.Indexes() {
			names = append(names, d.Name)
		}
		return nil
	})
	return strings.Join(names, ",")
}

func TestRollback_DroppedCollectionComesBackWithItsIndexes(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":1}`, `{"_id":2,"a":2}`)
	create := write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.CreateIndex(store.IndexDef{Name: "ix", Kind: "changes-test"})
		return err
	})
	before := dump(t, db)
	drop := write(t, db, func(tx *store.Tx) error { return tx.DropCollection("c") })
	if dump(t, db) == before {
		t.Fatal("the drop changed nothing")
	}
	mustRollback(t, db, drop, false)
	if got := dump(t, db); got != before || indexNames(t, db, "c") != "ix" {
		t.Errorf("after undoing the drop (indexes %q):\n%s\nwant\n%s", indexNames(t, db, "c"), got, before)
	}
	// Rolling back the index's creation drops it, and the documents stay.
	mustRollback(t, db, create, false)
	if indexNames(t, db, "c") != "" || withoutIndexLines(dump(t, db)) != withoutIndexLines(before) {
		t.Errorf("after undoing the index creation: indexes %q", indexNames(t, db, "c"))
	}
}

// withoutIndexLines drops a dump's index definition lines, leaving the
// documents (and rules).
func withoutIndexLines(dump string) string {
	var keep []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.Contains(line, `,"index":{`) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// TestRollback_ApplyLargerThanADocument: an apply whose journal record is
// larger than a document may be (six before-images of 3 MB: 18 MB, over
// the 16 MiB limit) can be listed in the history and rolled back. Such a
// record used to be unreadable, so a plan of more than about 35,000
// documents of 450 bytes could be applied but not undone.
func TestRollback_ApplyLargerThanADocument(t *testing.T) {
	db := storetest.MustOpen(t)
	text := strings.Repeat("0123456789abcdef", 3<<20/16)
	for i := range 6 {
		storetest.Insert(t, db, "docs", fmt.Sprintf(`{"_id":%d,"text":"%d%s"}`, i, i, text))
	}
	before := dump(t, db)
	plan, err := changes.PlanUpdate(ctx, db, "docs", value.MustParse(`{}`), value.MustParse(`{"$set":{"text":"short"}}`), nil)
	if err != nil || plan.Modified != 6 {
		t.Fatalf("plan-update = %+v, %v", plan, err)
	}
	mustApply(t, db, plan.Token)
	if _, err := changes.History(ctx, db, nil); err != nil {
		t.Fatalf("history after an 18 MB apply: %v", err)
	}
	mustRollback(t, db, plan.Token, false)
	if got := dump(t, db); got != before {
		t.Fatalf("rollback did not restore the six documents (%d bytes of dump, want %d)", len(got), len(before))
	}
}

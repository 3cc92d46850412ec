package changes_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestPlanAggregate_Merge: $merge on a unique field other than _id with
// whenMatched replace (the matched document keeps its _id), an $out that
// would repeat an _id, and whenNotMatched fail; every plan rolls back to
// the store as it was (MongoDB's $merge and $out semantics, from the
// manual's "$merge" behaviour table).
func TestPlanAggregate_Merge(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "src", `{"_id":1,"sku":"a","qty":5}`, `{"_id":2,"sku":"b","qty":7}`)
	storetest.Insert(t, db, "dst", `{"_id":10,"sku":"a","qty":1,"old":true}`)
	uniqueIndex(t, db, "dst", "sku")
	before := dump(t, db)
	plan := func(p string) (*changes.PlanResult, error) {
		return changes.PlanAggregate(ctx, db, "src", value.MustParse(p), nil)
	}
	res, err := plan(`[{"$project":{"_id":0,"sku":1,"qty":1}},{"$merge":{"into":"dst","on":"sku","whenMatched":"replace"}}]`)
	if err != nil {
		t.Fatal(err)
	}
	ap := mustApply(t, db, res.Token)
	got := dump(t, db)
	if !strings.Contains(got, `{"_id":10,"sku":"a","qty":5}`) || !strings.Contains(got, `"sku":"b","qty":7}`) || ap.Inserted != 1 || ap.Updated != 1 {
		t.Fatalf("after the merge (%+v):\n%s", ap, got)
	}
	mustRollback(t, db, ap.ChangeID, false)
	if dump(t, db) != before {
		t.Fatal("rollback did not restore the store")
	}
	if _, err := plan(`[{"$project":{"_id":"x"}},{"$out":"dst"}]`); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "twice") {
		t.Errorf("$out of a repeated _id: %v", err)
	}
	if _, err := plan(`[{"$match":{"sku":"b"}},{"$merge":{"into":"dst","whenNotMatched":"fail"}}]`); errs.KindOf(err) != errs.Conflict {
		t.Errorf("whenNotMatched fail: %v", err)
	}
	if _, err := plan(`[{"$merge":{"into":"dst","whenMatched":[{"$group":{"_id":1}}]}}]`); err == nil || !strings.Contains(err.Error(), "not allowed to be used within an update") {
		t.Errorf("a whenMatched pipeline with a $group: %v", err)
	}
	if dump(t, db) != before {
		t.Fatal("a refused plan wrote")
	}
}

// TestPlanAggregate_ErrorsHaveHints: every refusal of a bad write stage
// or of a result it cannot write names the problem and gives a hint.
func TestPlanAggregate_ErrorsHaveHints(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "src", `{"_id":1,"sku":"a"}`, `{"_id":2,"sku":null}`)
	storetest.Insert(t, db, "dst", `{"_id":1,"sku":"z"}`, `{"_id":3,"sku":"a"}`)
	uniqueIndex(t, db, "dst", "sku")
	for _, p := range []string{
		`{"$out":"dst"}`,
		`[{"$out":{"db":1,"coll":"dst"}}]`,
		`[{"$merge":7}]`,
		`[{"$merge":{"into":"dst","wenMatched":"fail"}}]`,
		`[{"$merge":{"into":"dst","on":7}}]`,
		`[{"$merge":{"into":"dst","on":[]}}]`,
		`[{"$merge":{"into":"dst","whenMatched":"overwrite"}}]`,
		`[{"$merge":{"into":"dst","whenNotMatched":"skip"}}]`,
		`[{"$merge":{"into":"dst","on":"sku"}}]`,
		`[{"$match":{"_id":1}},{"$set":{"sku":"q"}},{"$merge":{"into":"dst","on":"sku","whenNotMatched":"fail"}}]`,
		`[{"$project":{"_id":{"$literal":1}}},{"$out":"dst"}]`,
		`[{"$match":{"_id":1}},{"$merge":{"into":"dst","whenMatched":"fail"}}]`,
		`[{"$match":{"_id":1}},{"$merge":{"into":"dst","whenMatched":[{"$replaceWith":"$x"}]}}]`,
	} {
		_, err := changes.PlanAggregate(ctx, db, "src", value.MustParse(p), nil)
		if err == nil {
			t.Errorf("%s: planned, want an error", p)
			continue
		}
		if errs.HintOf(err) == "" {
			t.Errorf("%s: %v, with no hint", p, err)
		}
	}
}

// uniqueIndex creates a unique index on one field of coll.
func uniqueIndex(t *testing.T, db *store.DB, coll, field string) {
	t.Helper()
	err := db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: field}}, Unique: true}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPlanAggregate_EmptyOutCreates: a $out whose pipeline returns no
// document creates its missing target, empty, as MongoDB's $out does
// (the manual's $out page, "Create New Collection": $out creates the
// collection if it does not already exist); the plan says so; rollback
// drops it again. An existing target is emptied and kept.
func TestPlanAggregate_EmptyOutCreates(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "src", `{"_id":1,"a":1}`)
	before := dump(t, db)
	res, err := changes.PlanAggregate(ctx, db, "src", value.MustParse(`[{"$match":{"a":2}},{"$out":"empty"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.CreatesCollection || res.Modified != 0 || !strings.Contains(res.Message, "creates `empty`") {
		t.Fatalf("plan of an empty $out into a missing collection: %+v", res)
	}
	ap := mustApply(t, db, res.Token)
	if ap.LSN == 0 {
		t.Fatalf("apply wrote nothing: %+v", ap)
	}
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("empty")
		if err == nil && c.Count() != 0 {
			t.Errorf("the created collection holds %d documents", c.Count())
		}
		return err
	})
	if err != nil {
		t.Fatalf("after apply: %v", err)
	}
	mustRollback(t, db, ap.ChangeID, false)
	if got := dump(t, db); got != before {
		t.Fatalf("after rollback:\n%s\nwant:\n%s", got, before)
	}
	// An existing target: emptied and kept, and no collection is created.
	storetest.Insert(t, db, "full", `{"_id":7}`)
	res, err = changes.PlanAggregate(ctx, db, "src", value.MustParse(`[{"$match":{"a":2}},{"$out":"full"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.CreatesCollection || res.Modified != 1 {
		t.Fatalf("plan of an empty $out into an existing collection: %+v", res)
	}
}

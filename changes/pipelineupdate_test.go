package changes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// TestCompileUpdate_Pipeline: pipeline-style updates, cases from MongoDB's
// jstests/core/write/update/update_with_pipeline.js (existing documents
// and upserts), plus _id, $$NOW and $$ROOT.
func TestCompileUpdate_Pipeline(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ doc, update, want string }{
		{`{"_id":1,"x":1}`, `[{"$set":{"foo":4}}]`, `{"_id":1,"x":1,"foo":4}`},
		{`{"_id":1,"x":1,"y":1}`, `[{"$project":{"x":1}}]`, `{"_id":1,"x":1}`},
		{`{"_id":1,"x":1,"y":[{"z":1,"foo":1}]}`, `[{"$unset":["x","y.z"]}]`, `{"_id":1,"y":[{"foo":1}]}`},
		{`{"_id":1,"x":1,"t":{"u":{"v":1}}}`, `[{"$replaceWith":"$t"}]`, `{"_id":1,"u":{"v":1}}`},
		{`{"_id":1,"x":1,"t":{"u":{"v":1}}}`, `[{"$replaceRoot":{"newRoot":{"$mergeObjects":["$t",{"n":"$x"}]}}}]`, `{"_id":1,"u":{"v":1},"n":1}`},
		{`{"_id":1,"a":2,"b":3}`, `[{"$set":{"total":{"$add":["$a","$b"]}}},{"$unset":"a"}]`, `{"_id":1,"b":3,"total":5}`},
		{`{"_id":1,"a":2}`, `[{"$addFields":{"at":"$$NOW","copy":"$$ROOT"}}]`, `{"_id":1,"a":2,"at":{"$date":1767323045000},"copy":{"_id":1,"a":2}}`},
		{`{"_id":1,"a":[1,2,3]}`, `[{"$set":{"a":{"$map":{"input":"$a","in":{"$multiply":["$$this",10]}}}}}]`, `{"_id":1,"a":[10,20,30]}`},
		{`{"_id":1,"a":null}`, `[{"$set":{"b":{"$ifNull":["$a","$missing","none"]}}}]`, `{"_id":1,"a":null,"b":"none"}`},
	} {
		u, err := changes.CompileUpdate(value.MustParse(tc.update), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.update, err)
		}
		got, changed, err := u.Apply(value.MustParse(tc.doc), query.ApplyContext{Now: now})
		if err != nil || got.String() != tc.want || !changed {
			t.Errorf("%s on %s = %s, changed %v, %v; want %s", tc.update, tc.doc, got, changed, err, tc.want)
		}
		if u.Paths() != nil {
			t.Errorf("%s: Paths %v, want nil (any field)", tc.update, u.Paths())
		}
	}
	// Unchanged documents are not modified.
	u, _ := changes.CompileUpdate(value.MustParse(`[{"$set":{"x":1}}]`), nil)
	if _, changed, err := u.Apply(value.MustParse(`{"_id":1,"x":1}`), query.ApplyContext{}); changed || err != nil {
		t.Errorf("a $set to the same value: changed %v, %v", changed, err)
	}
	// The _id cannot change.
	u, _ = changes.CompileUpdate(value.MustParse(`[{"$set":{"_id":2}}]`), nil)
	if _, _, err := u.Apply(value.MustParse(`{"_id":1}`), query.ApplyContext{}); err == nil || !strings.Contains(err.Error(), "immutable field '_id'") {
		t.Errorf("changing _id: %v", err)
	}
	for _, bad := range []string{
		`[{"$match":{"x":1}}]`, `[{"$sort":{"x":1}}]`, `[{"$facet":{"a":[{"$match":{"x":1}}]}}]`,
		`[{"$bucket":{"groupBy":"$a","boundaries":[0,1],"default":"foo","output":{"count":{"$sum":1}}}}]`,
		`[{"$lookup":{"from":"foo","as":"as","localField":"a","foreignField":"b"}}]`,
		`[{"$graphLookup":{"from":"foo","startWith":"$a","connectFromField":"a","connectToField":"b","as":"as"}}]`,
		`[{"$indexStats":{}}]`,
	} {
		if _, err := changes.CompileUpdate(value.MustParse(bad), nil); err == nil || !strings.Contains(err.Error(), "not allowed to be used within an update") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := changes.CompileUpdate(value.MustParse(`[]`), nil); err == nil {
		t.Error("an empty pipeline compiled")
	}
	if _, err := changes.CompileUpdate(value.MustParse(`[{"$set":{"x":1}}]`), &query.UpdateOptions{ArrayFilters: []value.Value{value.MustParse(`{"x":1}`)}}); err == nil || !strings.Contains(err.Error(), "arrayFilters") {
		t.Errorf("arrayFilters with a pipeline: %v", err)
	}
}

// TestPlanUpdate_Pipeline: a pipeline update is planned, applied and
// rolled back like any other, upserts included (update_with_pipeline.js).
func TestPlanUpdate_Pipeline(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":2,"b":3}`, `{"_id":2,"a":5,"b":5}`)
	before := dump(t, db)
	res := planUpdate(t, db, "c", `{}`, `[{"$set":{"total":{"$add":["$a","$b"]}}}]`, nil)
	if res.Matched != 2 || res.Modified != 2 {
		t.Fatalf("plan = %+v", res)
	}
	ap := mustApply(t, db, res.Token)
	if got := dump(t, db); !strings.Contains(got, `{"_id":1,"a":2,"b":3,"total":5}`) || !strings.Contains(got, `{"_id":2,"a":5,"b":5,"total":10}`) {
		t.Fatalf("after apply:\n%s", got)
	}
	if _, err := changes.Rollback(ctx, db, ap.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	if dump(t, db) != before {
		t.Fatal("rollback did not restore the store")
	}
	for _, tc := range []struct{ filter, update, want string }{
		{`{"_id":7,"x":1}`, `[{"$set":{"foo":4}}]`, `{"_id":7,"x":1,"foo":4}`},
		{`{"_id":8,"x":1}`, `[{"$project":{"x":"foo"}}]`, `{"_id":8,"x":"foo"}`},
		{`{"_id":9,"x":1,"y":1}`, `[{"$unset":["x"]}]`, `{"_id":9,"y":1}`},
	} {
		res := planUpdate(t, db, "c", tc.filter, tc.update, &changes.PlanOptions{Upsert: true})
		mustApply(t, db, res.Token)
		if got := dump(t, db); !strings.Contains(got, tc.want) {
			t.Errorf("upsert %s %s: want %s in\n%s", tc.filter, tc.update, tc.want, got)
		}
	}
}

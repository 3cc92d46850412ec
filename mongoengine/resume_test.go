package mongoengine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// resumeSeed is the collection a resume test starts from: ints, a long,
// a double, arrays (empty, with null, of a subdocument), null and
// missing fields. (No decimal128: FerretDB v1.24.2 has none.)
var resumeSeed = []string{
	`{"_id":0,"v":1,"a":[1,null],"n":null}`,
	`{"_id":1,"v":{"$numberLong":"2"},"a":[],"tag":"x"}`,
	`{"_id":2,"v":2.5,"n":null}`,
	`{"_id":3,"v":3}`,
	`{"_id":4,"v":{"$numberLong":"4"},"a":[{"b":1}]}`,
}

// resumeItems are the plan's writes over resumeSeed: updates that change
// a value's type (int to long, long to double, double to int), push a
// null, remove a null field and add one, a deletion and an insert.
func resumeItems() []Item {
	up := func(id int, before, after string) Item {
		return Item{ID: value.IntValue(int32(id)), Op: OpUpdate, Before: input(before), After: input(after)}
	}
	return []Item{
		up(0, resumeSeed[0], `{"_id":0,"v":{"$numberLong":"11"},"a":[1,null,null],"m":null}`),
		up(1, resumeSeed[1], `{"_id":1,"v":2.0,"a":[null],"tag":"y"}`),
		up(2, resumeSeed[2], `{"_id":2,"v":3}`),
		{ID: value.IntValue(3), Op: OpDelete, Before: input(resumeSeed[3])},
		up(4, resumeSeed[4], `{"_id":4,"v":{"$numberLong":"5"},"a":[{"b":1},{"b":null}]}`),
		{ID: value.IntValue(10), Op: OpInsert, After: input(`{"_id":10,"v":{"$numberLong":"10"},"a":[null],"n":null}`)},
	}
}

// seedAndPlan fills coll with resumeSeed and stores the plan of
// resumeItems on it.
func seedAndPlan(t *testing.T, d *DB, coll string) *Plan {
	t.Helper()
	ctx := context.Background()
	for _, s := range resumeSeed {
		b, err := docToBSON(input(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.db.Collection(coll).InsertOne(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.PlanWrites(ctx, KindAggregate, &PlanSpec{Collection: coll, Actor: "test"}, 6, resumeItems(), false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cleanApply is what a clean apply of resumeItems leaves, and the
// collection before it.
func cleanApply(t *testing.T, d *DB) (after, before string) {
	t.Helper()
	p := seedAndPlan(t, d, "clean")
	before = findAll(t, d, "clean")
	res, err := d.Apply(context.Background(), p.Token, nil)
	if err != nil || res.Updated != 4 || res.Deleted != 1 || res.Inserted != 1 || len(res.Conflicts) != 0 {
		t.Fatalf("clean apply: %+v %v", res, err)
	}
	return findAll(t, d, "clean"), before
}

// checkFinished checks a resumed apply: the result and the journal count
// exactly the plan's writes, the documents are those of a clean apply,
// and a rollback gives back exactly the documents before it.
func checkFinished(t *testing.T, d *DB, coll, token string, res *ApplyResult, clean, orig string) {
	t.Helper()
	if res.Updated != 4 || res.Deleted != 1 || res.Inserted != 1 || len(res.Conflicts) != 0 || res.Unwritten != 0 {
		t.Errorf("resume: %+v", res)
	}
	if got := findAll(t, d, coll); got != clean {
		t.Errorf("after the resume:\n%v\nwant the clean apply's\n%v", got, clean)
	}
	hist, err := d.History(context.Background(), coll, 0)
	if err != nil || len(hist) != 1 || hist[0].Status != StatusApplied || hist[0].Updated != 4 || hist[0].Deleted != 1 || hist[0].Inserted != 1 || hist[0].Unwritten != 0 {
		t.Errorf("history: %+v %v", hist, err)
	}
	if p, err := d.ShowPlan(context.Background(), token); err != nil || p.Status != StatusApplied {
		t.Errorf("plan after the resume: %+v %v", p, err)
	}
	if _, err := d.Resume(context.Background(), token, nil); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "already applied") {
		t.Errorf("second resume: %v", err)
	}
	rb, err := d.Rollback(context.Background(), token, nil)
	if err != nil || rb.Updated != 4 || rb.Deleted != 1 || rb.Inserted != 1 || len(rb.Conflicts) != 0 {
		t.Fatalf("rollback: %+v %v", rb, err)
	}
	if got := findAll(t, d, coll); got != orig {
		t.Errorf("after the rollback:\n%v\nwant\n%v", got, orig)
	}
}

// TestResume_Killed stops an apply as a kill would before each item (and
// once with the item written but not marked), refuses to resume it while its lease
// runs, and resumes it once the lease has expired.
func TestResume_Killed(t *testing.T) {
	d := openWrite(t)
	clean, orig := cleanApply(t, d)
	for _, k := range []int{0, 2, 3, 5} { // updates at the start and the middle, the deletion, the insert
		for _, written := range []bool{false, true} {
			t.Run(fmt.Sprintf("item%d-written%v", k, written), func(t *testing.T) {
				coll := fmt.Sprintf("k%d%v", k, written)
				p := seedAndPlan(t, d, coll)
				interruptApply(t, d, p, k, written)
				busy, err := d.Resume(context.Background(), p.Token, nil)
				if busy != nil || errs.KindOf(err) != errs.Busy || !strings.Contains(err.Error(), "is being written by another omgdb (its lease runs until") {
					t.Fatalf("resume while the lease runs: %v", err)
				}
				expire(t, d, p.Token)
				res, err := d.Resume(context.Background(), p.Token, &ApplyOptions{Actor: "test"})
				if err != nil {
					t.Fatalf("resume: %v", err)
				}
				checkFinished(t, d, coll, p.Token, res, clean, orig)
			})
		}
	}
}

// TestResume_Partial resumes an apply stopped at its deadline after
// each number of documents, and a resume that is itself stopped.
func TestResume_Partial(t *testing.T) {
	d := openWrite(t)
	clean, orig := cleanApply(t, d)
	for _, stops := range [][]int{{1}, {3}, {5}, {2, 4}} {
		t.Run(fmt.Sprint(stops), func(t *testing.T) {
			coll := fmt.Sprintf("p%v", stops)
			p := seedAndPlan(t, d, coll)
			run := d.Apply
			for _, stop := range stops {
				ctx, cancel := context.WithCancel(context.Background())
				beforeItem = func(i int) {
					if i == stop {
						cancel()
					}
				}
				res, err := run(ctx, p.Token, nil)
				beforeItem = nil
				cancel()
				if errs.KindOf(err) != errs.Limit || res == nil || res.Written() != int64(stop) || res.Unwritten != int64(6-stop) {
					t.Fatalf("stopped after %d: %+v %v", stop, res, err)
				}
				hist, err := d.History(context.Background(), coll, 0)
				if err != nil || len(hist) != 1 || hist[0].Status != StatusPartial || hist[0].Unwritten != int64(6-stop) {
					t.Fatalf("history of the partial change: %+v %v", hist, err)
				}
				run = d.Resume
			}
			res, err := d.Resume(context.Background(), p.Token, nil)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			checkFinished(t, d, coll, p.Token, res, clean, orig)
		})
	}
}

// TestResume_Conflict: a document changed by another writer after the
// kill is a conflict, reported, the others are written, and the change
// counts both.
func TestResume_Conflict(t *testing.T) {
	d := openWrite(t)
	p := seedAndPlan(t, d, "conf")
	interruptApply(t, d, p, 2, false)
	if rep, err := d.Verify(context.Background()); err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "is applying: it was interrupted; `omgdb apply --resume` finishes it") {
		t.Errorf("verify of the interrupted apply: %+v %v", rep, err)
	}
	if _, err := d.db.Collection("conf").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: int32(4)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: int32(40)}}}}); err != nil {
		t.Fatal(err)
	}
	expire(t, d, p.Token)
	res, err := d.Resume(context.Background(), p.Token, nil)
	if err != nil || res.Updated != 3 || res.Deleted != 1 || res.Inserted != 1 || len(res.Conflicts) != 1 ||
		res.Conflicts[0].ID.String() != "4" || res.Conflicts[0].Reason != "changed since the plan" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	hist, err := d.History(context.Background(), "conf", 0)
	if err != nil || len(hist) != 1 || hist[0].Status != StatusApplied || hist[0].Updated != 3 || hist[0].Conflicts != 1 {
		t.Fatalf("history: %+v %v", hist, err)
	}
	got := strings.Split(findAll(t, d, "conf"), "\n")
	if want := `{"_id":{"$numberInt":"4"},"v":{"$numberInt":"40"},"a":[{"b":{"$numberInt":"1"}}]}`; len(got) != 5 || got[3] != want {
		t.Errorf("the conflicting document: %v, want %s left as the other writer left it", got, want)
	}
}

// TestResume_Refused: what resume does not finish, and a plan claimed by
// an apply that stopped before it journaled its change.
func TestResume_Refused(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	clean, orig := cleanApply(t, d)

	p := seedAndPlan(t, d, "pending")
	res, err := d.Resume(ctx, p.Token, nil)
	if err != nil {
		t.Fatalf("resume of a pending plan: %v", err)
	}
	checkFinished(t, d, "pending", p.Token, res, clean, orig)
	if _, err := d.Resume(ctx, p.Token, nil); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "was rolled back by") {
		t.Errorf("resume of a rolled-back change: %v", err)
	}

	p = seedAndPlan(t, d, "claimed")
	if err := d.claim(ctx, p); err != nil {
		t.Fatal(err)
	}
	if res, err := d.Resume(ctx, p.Token, nil); res != nil || errs.KindOf(err) != errs.Busy || !strings.Contains(err.Error(), "has no journal entry yet") {
		t.Errorf("resume of a plan just claimed: %v", err)
	}
	tok, _ := bson.ObjectIDFromHex(p.Token)
	if _, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Minute))}}}}); err != nil {
		t.Fatal(err)
	}
	if res, err = d.Resume(ctx, p.Token, nil); err != nil {
		t.Fatalf("resume of a plan claimed a minute ago: %v", err)
	}
	checkFinished(t, d, "claimed", p.Token, res, clean, orig)

	for _, kind := range []string{KindInsert, KindImport, KindRollback} {
		p, err := d.PlanWrites(ctx, kind, &PlanSpec{Collection: "other"}, 1, []Item{{ID: value.IntValue(1), Op: OpInsert, After: input(`{"_id":1}`)}}, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Resume(ctx, p.Token, nil); errs.KindOf(err) != errs.Usage || !strings.Contains(err.Error(), "not resumed with apply --resume") {
			t.Errorf("resume of a %s plan: %v", kind, err)
		}
	}
	if _, err := d.Resume(ctx, "665f1c2e9b1d4a0c8e7f6a5b", nil); errs.KindOf(err) != errs.NotFound {
		t.Errorf("resume of an unknown plan: %v", err)
	}
}

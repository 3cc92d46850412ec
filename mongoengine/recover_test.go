package mongoengine

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// recoverDocs are typed documents for the interrupted-change tests: int,
// long and double counters, arrays (empty too), null against missing,
// nested documents.
var recoverDocs = []string{
	`{"_id":1,"n":1,"arr":[],"z":"s"}`,
	`{"_id":2,"n":{"$numberLong":"9007199254740993"},"arr":[1,null]}`,
	`{"_id":3,"n":2.5,"arr":[{"a":[]}],"z":null}`,
	`{"_id":4,"n":{"$numberInt":"2147483647"},"sub":{"x":1}}`,
	`{"_id":5,"n":-1,"arr":["x"],"z":{"$numberLong":"0"}}`,
	`{"_id":6,"n":0,"arr":[[]]}`,
}

// seedRecover fills coll with recoverDocs and returns them as stored.
func seedRecover(t *testing.T, d *DB, coll string) string {
	t.Helper()
	var rows []any
	for _, js := range recoverDocs {
		if strings.Contains(js, "[[]]") {
			js = `{"_id":6,"n":0,"arr":[{"$numberLong":"7"}]}` // FerretDB stores no arrays of arrays
		}
		row, err := docToBSON(input(js))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	if _, err := d.db.Collection(coll).InsertMany(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	return findAll(t, d, coll)
}

// interruptApply applies the first k items of p as Apply does (each
// written under its precondition and marked), then writes item k (when
// inFlight) without its mark, and stops as a killed apply would: its
// lease is no longer renewed. It returns the lease.
func interruptApply(t *testing.T, d *DB, p *Plan, k int, inFlight bool) *lease {
	t.Helper()
	ctx := context.Background()
	if err := d.claim(ctx, p); err != nil {
		t.Fatal(err)
	}
	l, err := d.journalStart(ctx, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	l.release()
	head := *p
	head.Items = p.Items[:k]
	if err := d.writeItems(ctx, &head, false, &ApplyResult{}, l); err != nil {
		t.Fatal(err)
	}
	if inFlight {
		if reason, err := d.writeItem(ctx, d.db.Collection(p.Collection), p.Items[k], false); reason != "" || err != nil {
			t.Fatalf("item %d: %q, %v", k, reason, err)
		}
	}
	return l
}

// planRecover plans, on every document of coll, a deletion (del) or an
// update that increments n, pushes 0 to arr and sets z to null, and
// checks that it has n items.
func planRecover(t *testing.T, d *DB, coll string, del bool, n int) *Plan {
	t.Helper()
	upd := input(`{"$inc":{"n":1},"$push":{"arr":0},"$set":{"z":null}}`)
	cu, err := compileForTest(upd)
	if err != nil {
		t.Fatal(err)
	}
	spec := &PlanSpec{Collection: coll, Filter: input(`{}`), Update: upd, Compiled: cu, Actor: "test"}
	plan := d.PlanUpdate
	if del {
		plan = d.PlanDelete
	}
	p, err := plan(context.Background(), spec)
	if err != nil || len(p.Items) != n {
		t.Fatalf("plan: %v, %v", p, err)
	}
	return p
}

// expire moves a change's lease into the past, as if LeaseTime had passed.
func expire(t *testing.T, d *DB, token string) {
	t.Helper()
	tok, _ := bson.ObjectIDFromHex(token)
	_, err := d.db.Collection(ChangesColl).UpdateOne(context.Background(), bson.D{{Key: "_id", Value: tok}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "lease_until", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Second))}}}})
	if err != nil {
		t.Fatal(err)
	}
}

func historyStatus(t *testing.T, d *DB, coll string) string {
	t.Helper()
	h, err := d.History(context.Background(), coll, 1)
	if err != nil || len(h) != 1 {
		t.Fatalf("history: %v, %v", h, err)
	}
	return h[0].Status
}

// TestRollback_InterruptedApply interrupts applies of an update and of a
// deletion at their fourth document (written or not), then rolls them
// back: the collection must be exactly as before, every document whole.
// A later unmarked document that holds its after-image (written by
// someone else: an apply writes in order) is left as it is.
func TestRollback_InterruptedApply(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	cases := []struct {
		name     string
		del      bool
		inFlight bool
		other    bool // item 4's after-image written by another writer
	}{
		{"update_in_flight_written", false, true, false},
		{"update_in_flight_not_written", false, false, false},
		{"update_later_item_written_by_another", false, true, true},
		{"delete_in_flight_written", true, true, false},
		{"delete_in_flight_not_written", true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			coll := tc.name
			orig := seedRecover(t, d, coll)
			p := planRecover(t, d, coll, tc.del, 6)
			interruptApply(t, d, p, 3, tc.inFlight)
			want := orig
			if tc.other {
				if r, err := d.writeItem(ctx, d.db.Collection(coll), p.Items[4], false); r != "" || err != nil {
					t.Fatal(r, err)
				}
				want = strings.Replace(orig, string(value.AppendJSON(nil, p.Items[4].Before)), string(value.AppendJSON(nil, p.Items[4].After)), 1)
			}
			if _, err := d.Rollback(ctx, p.Token, nil); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "is being written by another omgdb (its lease runs until") {
				t.Fatalf("rollback while the lease runs: %v", err)
			}
			if s := historyStatus(t, d, coll); s != StatusApplying {
				t.Errorf("history while the lease runs: %s", s)
			}
			expire(t, d, p.Token)
			if s := historyStatus(t, d, coll); s != StatusInterrupted {
				t.Errorf("history once the lease expired: %s", s)
			}
			res, err := d.Rollback(ctx, p.Token, nil)
			if err != nil || len(res.Conflicts) != 0 {
				t.Fatalf("rollback: %+v, %v", res, err)
			}
			n := map[bool]int64{true: 4, false: 3}[tc.inFlight]
			if res.Written() != n {
				t.Errorf("rollback wrote %d documents, want %d", res.Written(), n)
			}
			if got := findAll(t, d, coll); got != want {
				t.Errorf("after the rollback:\n%s\nwant exactly\n%s", got, want)
			}
			if _, err := d.Rollback(ctx, p.Token, nil); err == nil || !strings.Contains(err.Error(), "was already rolled back by "+res.ChangeID) {
				t.Errorf("second rollback: %v", err)
			}
			if _, err := d.Rollback(ctx, res.ChangeID, nil); err != nil {
				t.Errorf("rollback of the rollback (redo): %v", err)
			}
		})
	}
}

// TestRollback_InterruptedImport stops an import as a kill would: one
// batch recorded, the next sent and partly written (3 of 5) but not
// recorded. Rollback removes the recorded documents and the written
// pending ones, each equal to its input document, and leaves the
// document that was there before the import; a pending _id that another
// writer then filled with another document is a conflict, left as it is.
func TestRollback_InterruptedImport(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	for _, other := range []bool{false, true} {
		coll := map[bool]string{false: "imp", true: "imp_other"}[other]
		if _, err := d.db.Collection(coll).InsertOne(ctx, bson.D{{Key: "_id", Value: "before"}, {Key: "v", Value: int64(1)}}); err != nil {
			t.Fatal(err)
		}
		orig := findAll(t, d, coll)
		in := interruptImport(t, d, coll)
		want := orig
		if other {
			if _, err := d.db.Collection(coll).InsertOne(ctx, bson.D{{Key: "_id", Value: int32(6)}, {Key: "by", Value: "another"}}); err != nil {
				t.Fatal(err)
			}
			want = `{"_id":{"$numberInt":"6"},"by":"another"}` + "\n" + orig
		}
		expire(t, d, in.p.Token)
		res, err := d.Rollback(ctx, in.p.Token, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantConflicts := map[bool]int{false: 0, true: 1}[other]
		if res.Deleted != 5 || len(res.Conflicts) != wantConflicts {
			t.Errorf("%s: rollback deleted %d with conflicts %v, want 5 and %d conflict(s)", coll, res.Deleted, res.Conflicts, wantConflicts)
		}
		if got := findAll(t, d, coll); got != want {
			t.Errorf("%s after the rollback:\n%s\nwant exactly\n%s", coll, got, want)
		}
	}
}

// interruptImport stops an import into coll as a kill would: one batch
// of 2 recorded, the next (5 documents: a double, a string, an empty
// document) staged and its first 3 written, not recorded; its lease is
// no longer renewed.
func interruptImport(t *testing.T, d *DB, coll string) *Inserter {
	t.Helper()
	ctx := context.Background()
	in, err := d.NewInserter(coll, KindImport, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, n, _, err := in.Insert(ctx, []value.Value{input(`{"_id":1,"a":[1,null]}`), input(`{"_id":{"$numberLong":"2"},"b":null}`)}); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	batch := []value.Value{input(`{"_id":3,"d":1.5}`), input(`{"_id":4,"s":"x"}`), input(`{"_id":5}`), input(`{"_id":6,"e":{}}`), input(`{"_id":7}`)}
	rows, _, bids, err := in.prepare(batch)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.stage(ctx, rows, bids); err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.Collection(coll).InsertMany(ctx, rows[:3], options.InsertMany().SetOrdered(true)); err != nil {
		t.Fatal(err)
	}
	in.l.release() // killed: no more renewals, no record, no Close
	return in
}

// TestLease_LostStopsTheWriter: once a rollback has taken a change over,
// its writer's next renewal finds the lease lost, no further write
// starts, and the change cannot be marked applied.
func TestLease_LostStopsTheWriter(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	seedRecover(t, d, "lost")
	cu, _ := compileForTest(input(`{"$set":{"z":1}}`))
	p, err := d.PlanUpdate(ctx, &PlanSpec{Collection: "lost", Filter: input(`{}`), Update: input(`{"$set":{"z":1}}`), Compiled: cu})
	if err != nil {
		t.Fatal(err)
	}
	l := interruptApply(t, d, p, 2, false)
	if err := l.check(); err != nil {
		t.Fatalf("lease before the takeover: %v", err)
	}
	expire(t, d, p.Token)
	if _, err := d.Rollback(ctx, p.Token, nil); err != nil {
		t.Fatal(err)
	}
	if !l.renew() {
		t.Error("the renewal of a lease taken over did not see it lost")
	}
	if err := l.check(); err == nil || !strings.Contains(err.Error(), "was taken over") {
		t.Errorf("check after the takeover: %v", err)
	}
	err = d.writeItems(ctx, p, false, &ApplyResult{}, l)
	if err == nil || !strings.Contains(err.Error(), "was taken over") {
		t.Errorf("writeItems after the takeover: %v", err)
	}
	l2 := &lease{d: d, tok: l.tok, owner: l.owner, until: time.Now().Add(time.Minute)}
	if err := d.journalEnd(ctx, p, &ApplyResult{Updated: 6}, l2); err == nil || !strings.Contains(err.Error(), "was taken over") {
		t.Errorf("journalEnd after the takeover: %v", err)
	}
	// A lease that could not be renewed in time refuses writes too.
	l3 := &lease{d: d, tok: l.tok, owner: l.owner, until: time.Now().Add(-time.Millisecond)}
	if err := l3.check(); err == nil || !strings.Contains(err.Error(), "its lease could not be renewed") {
		t.Errorf("check of an unrenewed lease: %v", err)
	}
}

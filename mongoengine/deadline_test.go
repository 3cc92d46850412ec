package mongoengine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// planInc inserts n documents {_id: i, v: i} into coll and plans $inc of
// v on all of them.
func planInc(t *testing.T, d *DB, coll string, n int) *Plan {
	t.Helper()
	ctx := context.Background()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i)}}
	}
	if _, err := d.db.Collection(coll).InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	spec := &PlanSpec{Collection: coll, Filter: input(`{}`), Update: input(`{"$inc":{"v":{"$numberLong":"100"}}}`)}
	var err error
	if spec.Compiled, err = compileForTest(spec.Update); err != nil {
		t.Fatal(err)
	}
	p, err := d.PlanUpdate(ctx, spec)
	if err != nil || len(p.Items) != n {
		t.Fatalf("plan: %+v %v", p, err)
	}
	return p
}

// values returns coll's v values in _id order, as "i:type:value".
func values(t *testing.T, d *DB, coll string) []string {
	t.Helper()
	var out []string
	err := d.Find(context.Background(), coll, &engine.Find{}, func(v value.Value) error {
		out = append(out, fmt.Sprintf("%s:%s:%s", v.Get("_id"), v.Get("v").TypeName(), v.Get("v")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApply_StopsAtDeadline ends the apply's context after N documents
// (a test hook, not a timing): the first N documents hold their
// after-image, the others their before-image, the change is journaled
// as partial with exactly those counts, the error says what was written,
// the plan does not apply again, and a rollback undoes exactly the N.
func TestApply_StopsAtDeadline(t *testing.T) {
	d := openWrite(t)
	for _, stopAfter := range []int{0, 3, 9} {
		t.Run(fmt.Sprint(stopAfter), func(t *testing.T) {
			coll := fmt.Sprintf("dl%d", stopAfter)
			const n = 10
			p := planInc(t, d, coll, n)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			beforeItem = func(i int) {
				if i == stopAfter {
					cancel()
				}
			}
			defer func() { beforeItem = nil }()
			res, err := d.Apply(ctx, p.Token, &ApplyOptions{Actor: "test"})
			if errs.KindOf(err) != errs.Limit {
				t.Fatalf("apply: %+v, %v; want a Limit error", res, err)
			}
			got := values(t, d, coll)
			for i, g := range got {
				want := fmt.Sprintf("%d:int:%d", i, i)
				if i < stopAfter {
					want = fmt.Sprintf("%d:long:%d", i, i+100)
				}
				if g != want {
					t.Errorf("document %d: %s, want %s", i, g, want)
				}
			}
			hist, herr := d.History(context.Background(), coll, 0)
			if stopAfter == 0 {
				// Nothing written: no change, and the plan is pending again.
				if res != nil || !strings.Contains(err.Error(), "nothing was written, and the plan is pending again") || herr != nil || len(hist) != 0 {
					t.Fatalf("stopped before the first document: %+v, %v, history %+v", res, err, hist)
				}
				if res, err := d.Apply(context.Background(), p.Token, nil); err != nil || res.Updated != n {
					t.Fatalf("apply again: %+v %v", res, err)
				}
				return
			}
			wantMsg := fmt.Sprintf("stopped because it was cancelled after %d of %d document(s): 0 inserted, %d updated, 0 deleted, 0 conflict(s), %d not written", stopAfter, n, stopAfter, n-stopAfter)
			if res == nil || res.Updated != int64(stopAfter) || res.Unwritten != int64(n-stopAfter) || !strings.Contains(err.Error(), wantMsg) {
				t.Fatalf("apply: %+v, %v; want %q", res, err, wantMsg)
			}
			if herr != nil || len(hist) != 1 || hist[0].Status != StatusPartial || hist[0].Updated != int64(stopAfter) || hist[0].Unwritten != int64(n-stopAfter) {
				t.Fatalf("history: %+v %v", hist, herr)
			}
			if _, err := d.Apply(context.Background(), p.Token, nil); errs.KindOf(err) != errs.Conflict {
				t.Errorf("second apply of a partial plan: %v", err)
			}
			rb, err := d.Rollback(context.Background(), p.Token, nil)
			if err != nil || rb.Updated != int64(stopAfter) {
				t.Fatalf("rollback: %+v %v", rb, err)
			}
			for i, g := range values(t, d, coll) {
				if want := fmt.Sprintf("%d:int:%d", i, i); g != want {
					t.Errorf("after rollback, document %d: %s, want %s", i, g, want)
				}
			}
		})
	}
}

// TestApply_ConcurrentAppliesOfOnePlan: applies of one plan racing from
// several goroutines write it once. FerretDB v1's conditional update is
// not atomic, so more than one may pass the claim; the journal entry's
// _id (the token) then stops the others before any write.
func TestApply_ConcurrentAppliesOfOnePlan(t *testing.T) {
	d := openWrite(t)
	p := planInc(t, d, "race", 5)
	const n = 6
	errc := make(chan error, n)
	for range n {
		go func() {
			_, err := d.Apply(context.Background(), p.Token, &ApplyOptions{Actor: "test"})
			errc <- err
		}()
	}
	applied := 0
	for range n {
		err := <-errc
		switch {
		case err == nil:
			applied++
		case errs.KindOf(err) != errs.Conflict:
			t.Errorf("a losing apply: %v (kind %v), want a conflict", err, errs.KindOf(err))
		}
	}
	if applied != 1 {
		t.Fatalf("%d applies succeeded, want 1", applied)
	}
	want := []string{"0:long:100", "1:long:101", "2:long:102", "3:long:103", "4:long:104"}
	if got := values(t, d, "race"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("documents %v, want %v", got, want)
	}
	hist, err := d.History(context.Background(), "race", 0)
	if err != nil || len(hist) != 1 || hist[0].Status != StatusApplied || hist[0].Updated != 5 {
		t.Fatalf("history %+v, %v", hist, err)
	}
}

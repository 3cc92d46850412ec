package mongoengine

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// TestPruneHistory: pruning through a revision removes every change up
// to it (their plans and images, the collection a drop kept aside) and
// the snapshots before it; the state at the revision and later stay
// reachable, values and types as they were; earlier revisions and the
// rollback of a pruned change are refused; the changes after it still
// roll back.
func TestPruneHistory(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	apply := func(p *Plan) {
		t.Helper()
		if _, err := d.Apply(ctx, p.Token, &ApplyOptions{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	a := planInc(t, d, "kept", 3) // seq 1
	apply(a)
	if _, err := d.CreateSnapshot(ctx, "early", "", "test"); err != nil {
		t.Fatal(err)
	}
	b := planInc(t, d, "gone", 2) // seq 2
	apply(b)
	drop, err := d.Drop(ctx, "gone", "test") // seq 3, kept aside
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateSnapshot(ctx, "cut", "", "test"); err != nil {
		t.Fatal(err)
	}
	atCut := values(t, d, "kept")
	c, err := d.PlanUpdate(ctx, &PlanSpec{Collection: "kept", Filter: input(`{"_id":0}`), Update: input(`{"$set":{"v":null}}`), Compiled: mustCompile(t, `{"$set":{"v":null}}`)})
	if err != nil {
		t.Fatal(err)
	}
	apply(c) // seq 4

	if _, err := d.PruneHistory(ctx, "now-ish"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("prune of an unknown revision: %v", err)
	}
	res, err := d.PruneHistory(ctx, "cut")
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != 3 || res.Plans != 2 || res.Items != 5 || len(res.Collections) != 1 || res.Collections[0] != drop.Aside ||
		strings.Join(res.Snapshots, ",") != "early" || res.Revision.Seq != 3 {
		t.Fatalf("prune: %+v", res)
	}
	names, _ := d.db.ListCollectionNames(ctx, bson.D{})
	for _, n := range names {
		if strings.HasPrefix(n, DroppedPrefix) {
			t.Errorf("%s is still there", n)
		}
	}
	n, _ := d.db.Collection(PlanItemsColl).CountDocuments(ctx, bson.D{{Key: "plan", Value: bson.D{{Key: "$in", Value: bson.A{mustOID(a.Token), mustOID(b.Token)}}}}})
	if n != 0 {
		t.Errorf("%d images of pruned changes left", n)
	}
	// The state at the cut, read at it, is what it was.
	r, _, err := d.At(ctx, "cut")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := r.Find(ctx, "kept", &engine.Find{}, func(v value.Value) error {
		got = append(got, v.Get("_id").String()+":"+v.Get("v").TypeName()+":"+v.Get("v").String())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(atCut, ",") {
		t.Errorf("at the cut: %v, want %v", got, atCut)
	}
	for _, rev := range []string{"2", "early", a.Token, "1970-01-01"} {
		if _, _, err := d.At(ctx, rev); errs.KindOf(err) != errs.NotFound {
			t.Errorf("at %s after the prune: %v, want not found", rev, err)
		}
	}
	if _, err := d.Rollback(ctx, b.Token, nil); errs.KindOf(err) != errs.NotFound {
		t.Errorf("rollback of a pruned change: %v", err)
	}
	hist, err := d.History(ctx, "", 0)
	if err != nil || len(hist) != 1 || hist[0].ID != c.Token {
		t.Fatalf("history after the prune: %+v %v", hist, err)
	}
	if _, err := d.Rollback(ctx, c.Token, nil); err != nil {
		t.Fatalf("rollback of a change after the cut: %v", err)
	}
	if got := values(t, d, "kept"); strings.Join(got, ",") != strings.Join(atCut, ",") {
		t.Errorf("after rolling back the change after the cut: %v, want %v", got, atCut)
	}
}

func mustOID(hex string) bson.ObjectID {
	oid, _ := bson.ObjectIDFromHex(hex)
	return oid
}

func mustCompile(t *testing.T, update string) *query.Update {
	t.Helper()
	u, err := compileForTest(input(update))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPruneHistory_RefusesUnfinished: a change at or before the revision
// that is still being written (or interrupted) refuses the prune, and
// nothing is removed.
func TestPruneHistory_RefusesUnfinished(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	p := planInc(t, d, "busy", 2)
	if _, err := d.Apply(ctx, p.Token, &ApplyOptions{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: mustOID(p.Token)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplying}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.PruneHistory(ctx, "now"); errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "cannot be pruned") {
		t.Fatalf("prune over an unfinished change: %v", err)
	}
	if n, _ := d.db.Collection(ChangesColl).CountDocuments(ctx, bson.D{}); n != 1 {
		t.Errorf("%d journal entries after the refused prune, want 1", n)
	}
	if cut, _ := d.prunedThrough(ctx); cut != 0 {
		t.Errorf("the refused prune recorded a cut at %d", cut)
	}
}

// TestRecordCut_Concurrent: prunes recording their cut at once (a second
// prune while the server still runs a killed one's) all succeed, and the
// cut is the greatest of their seqs, also over the record an earlier
// omgdb kept ({_id: "pruned_through"}).
func TestRecordCut_Concurrent(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	meta := d.db.Collection(MetaColl)
	if _, err := meta.InsertOne(ctx, bson.D{{Key: "_id", Value: "pruned_through"}, {Key: "seq", Value: int64(2)}}); err != nil {
		t.Fatal(err)
	}
	if got, err := d.prunedThrough(ctx); err != nil || got != 2 {
		t.Fatalf("the earlier record: %d %v, want 2", got, err)
	}
	for round := int64(0); round < 20; round++ {
		errc := make(chan error, 8)
		for i := int64(1); i <= 4; i++ {
			go func() { errc <- d.recordCut(ctx, 10*round+i) }()
			go func() { errc <- d.recordCut(ctx, 10*round+i) }() // the same cut twice
		}
		for range 8 {
			if err := <-errc; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		want := max(2, 10*round+4)
		if got, err := d.prunedThrough(ctx); err != nil || got != want {
			t.Fatalf("round %d: cut %d (%v), want %d", round, got, err, want)
		}
	}
}

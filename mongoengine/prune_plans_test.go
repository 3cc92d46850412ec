package mongoengine

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestPruneHistory_UnappliedPlans: a prune removes the discarded plans
// and the pending plans expired more than ClockSkew ago, with their
// items, and keeps every plan that can still be applied (pending before
// its expiry, expired less than ClockSkew ago, claimed by an apply that
// stopped, applied after the cut) and the journal after the cut.
func TestPruneHistory_UnappliedPlans(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	cut := planInc(t, d, "cut", 2)
	if _, err := d.Apply(ctx, cut.Token, nil); err != nil {
		t.Fatal(err)
	}
	later := planInc(t, d, "later", 2)
	if _, err := d.Apply(ctx, later.Token, nil); err != nil {
		t.Fatal(err)
	}
	pending := planInc(t, d, "pending", 3)
	expired := planInc(t, d, "expired", 4)
	justExpired := planInc(t, d, "justexpired", 1)
	discarded := planInc(t, d, "discarded", 2)
	claimed := planInc(t, d, "claimed", 2)
	setExpiry := func(p *Plan, at time.Time) {
		tok, _ := bson.ObjectIDFromHex(p.Token)
		if _, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: bson.NewDateTimeFromTime(at)}}}}); err != nil {
			t.Fatal(err)
		}
	}
	setExpiry(expired, time.Now().Add(-time.Minute))
	setExpiry(justExpired, time.Now().Add(-2*time.Second))
	if _, err := d.DiscardPlan(ctx, discarded.Token); err != nil {
		t.Fatal(err)
	}
	if err := d.claim(ctx, claimed); err != nil {
		t.Fatal(err)
	}
	res, err := d.PruneHistory(ctx, cut.Token)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != 1 || res.Plans != 1 || res.Items != 2 || res.UnappliedPlans != 2 || res.UnappliedItems != 4 {
		t.Errorf("prune: %+v, want 1 change, its plan and 2 items, and 2 plans never applied with 4 items", res)
	}
	all, err := d.Plans(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, p := range all {
		left = append(left, p.Collection+":"+p.Status)
	}
	want := []string{"later:applied", "pending:pending", "justexpired:expired", "claimed:applying"}
	if !slices.Equal(left, want) {
		t.Errorf("plans left %v, want %v", left, want)
	}
	for _, p := range []*Plan{expired, discarded} {
		tok, _ := bson.ObjectIDFromHex(p.Token)
		if n, err := d.db.Collection(PlanItemsColl).CountDocuments(ctx, bson.D{{Key: "plan", Value: tok}}); err != nil || n != 0 {
			t.Errorf("%s: %d items left, %v", p.Collection, n, err)
		}
	}
	if got, err := d.ShowPlan(ctx, pending.Token); err != nil || len(got.Items) != 3 {
		t.Errorf("the pending plan after the prune: %+v %v", got, err)
	}
	if res, err := d.Apply(ctx, pending.Token, nil); err != nil || res.Updated != 3 {
		t.Errorf("apply of the pending plan after the prune: %+v %v", res, err)
	}
	if res, err := d.Resume(ctx, claimed.Token, nil); err == nil || res != nil {
		t.Errorf("the claimed plan is kept (and refused while its claim is recent): %+v %v", res, err)
	}
	hist, err := d.History(ctx, "", 0)
	if err != nil || len(hist) != 2 || hist[1].ID != later.Token {
		t.Errorf("history after the prune: %+v %v", hist, err)
	}
}

package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoAggregateApply kills `omgdb apply` of a
// plan-aggregate's $out over MongoDB (FerretDB) with SIGKILL at random
// moments. The $out replaces a target of 30 documents with 40 results:
// 10 deletions, 20 updates and 20 inserts, in one plan. After each kill
// every _id must be exactly its before-state or its after-state (a
// document or its absence); every item marked applied must be in its
// after-state, and at most one item (the one being written at the kill)
// may be in its after-state without its mark; an apply that exited 0 or
// is journaled applied must have written every item.
func TestCrash_KillMongoAggregateApply(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	ctx := context.Background()
	var src []any
	for i := 10; i < 50; i++ {
		src = append(src, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int64(i + 1000)}})
	}
	if _, err := db.Collection("src").InsertMany(ctx, src); err != nil {
		t.Fatal(err)
	}
	cycles := 6
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("t%d", c)
		var target []any
		for i := 0; i < 30; i++ {
			target = append(target, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i)}})
		}
		if _, err := db.Collection(coll).InsertMany(ctx, target); err != nil {
			t.Fatal(err)
		}
		tok := mongoPlan(t, "plan-aggregate", s.URI+"app", "src", `[{"$out":"`+coll+`"}]`)
		delay := time.Duration(r.IntN(1500000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "apply", s.URI + "app", tok}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: apply exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		outcomes[checkAggregateApply(t, db, coll, tok, o.Exited)]++
	}
	t.Logf("%d cycles, documents in neither state: 0; outcomes: %v", cycles, outcomes)
}

// checkAggregateApply checks one killed apply of the $out plan.
func checkAggregateApply(t *testing.T, db *mongo.Database, coll, tok string, exited bool) string {
	t.Helper()
	ctx := context.Background()
	oid, _ := bson.ObjectIDFromHex(tok)
	var items []struct {
		ID int32 `bson:"id"`
	}
	cur, err := db.Collection("omgdb.plan_items").Find(ctx, bson.D{{Key: "plan", Value: oid}, {Key: "state", Value: "applied"}})
	if err != nil || cur.All(ctx, &items) != nil {
		t.Fatal(err)
	}
	marked := map[int32]bool{}
	for _, it := range items {
		marked[it.ID] = true
	}
	have := map[int32]string{}
	var docs []bson.Raw
	cur, err = db.Collection(coll).Find(ctx, bson.D{})
	if err != nil || cur.All(ctx, &docs) != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		have[d.Lookup("_id").Int32()] = strings.ReplaceAll(d.String(), " ", "")
	}
	state := func(i int32, v string) string {
		if v == "" {
			return ""
		}
		return fmt.Sprintf(`{"_id":{"$numberInt":"%d"},"v":%s}`, i, v)
	}
	after, unmarked := 0, 0
	for i := int32(0); i < 50; i++ {
		before, want := "", ""
		if i < 30 {
			before = state(i, fmt.Sprintf(`{"$numberInt":"%d"}`, i))
		}
		if i >= 10 {
			want = state(i, fmt.Sprintf(`{"$numberLong":"%d"}`, i+1000))
		}
		switch have[i] {
		case want:
			after++
			if !marked[i] {
				unmarked++
			}
		case before:
			if marked[i] {
				t.Errorf("%s: _id %d is marked applied but is in its before-state %q", coll, i, have[i])
			}
		default:
			t.Errorf("%s: _id %d is neither its before- nor its after-state: %q", coll, i, have[i])
		}
	}
	if unmarked > 1 {
		t.Errorf("%s: %d items written without their mark, want at most 1", coll, unmarked)
	}
	var ch struct {
		Status string `bson:"status"`
	}
	if err := db.Collection("omgdb.changes").FindOne(ctx, bson.D{{Key: "_id", Value: oid}}).Decode(&ch); err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	if (exited || ch.Status == "applied") && after != 50 {
		t.Errorf("%s: apply exited 0 or journaled applied (%q) with %d of 50 items in their after-state", coll, ch.Status, after)
	}
	switch {
	case ch.Status == "":
		return "killed before the journal"
	case after == 50 && ch.Status == "applied":
		return "applied"
	}
	return "journaled " + ch.Status
}

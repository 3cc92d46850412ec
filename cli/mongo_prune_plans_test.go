package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestMongo_CompactRemovesUnappliedPlans: compact --history-before over
// MongoDB removes the discarded plan and the plan expired a minute ago,
// says so, and keeps the pending plan, which still applies.
func TestMongo_CompactRemovesUnappliedPlans(t *testing.T) {
	t.Parallel()
	_, uri := mongotest.Start(t)
	db := mongotest.Client(t, uri[:strings.LastIndex(uri, "/")+1]).Database(uri[strings.LastIndex(uri, "/")+1:])
	if _, err := db.Collection("users").InsertMany(context.Background(), resumeDocs(3)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "update", uri, "users", `{"_id":0}`, `{"$set":{"w":null}}`); code != 0 {
		t.Fatal(stderr)
	}
	discarded := mongoPlan(t, "plan-delete", uri, "users", `{"_id":1}`)
	if code, _, stderr := runCLI(t, "", "plans", "discard", uri, discarded); code != 0 {
		t.Fatal(stderr)
	}
	expired := mongoPlan(t, "plan-update", uri, "users", `{}`, resumeUpdate)
	if _, err := db.Collection("omgdb.plans").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: mustOID(t, expired)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Minute))}}}}); err != nil {
		t.Fatal(err)
	}
	pending := mongoPlan(t, "plan-update", uri, "users", `{"_id":2}`, resumeUpdate)
	code, out, stderr := runCLI(t, "", "compact", uri, "--history-before", "now", "--yes")
	if code != 0 || !strings.Contains(out, `"changes_pruned":1,"plans_pruned":1,"items_pruned":1,`) || !strings.Contains(out, `"unapplied_plans_removed":2,"unapplied_items_removed":3}`) {
		t.Fatalf("compact: exit %d, %s%s", code, out, stderr)
	}
	_, all, _ := runCLI(t, "", "plans", uri, "--all")
	if strings.Count(all, "\n") != 1 || !strings.Contains(all, `"token":"`+pending+`"`) || !strings.Contains(all, `"status":"pending"`) {
		t.Errorf("plans --all after the prune:\n%s", all)
	}
	if code, out, stderr := runCLI(t, "", "apply", uri, pending); code != 0 || !strings.Contains(out, `"updated":1,`) {
		t.Errorf("apply of the pending plan: exit %d, %s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "apply", uri, expired); code != 66 || !strings.Contains(stderr, "plan "+expired+" not found") {
		t.Errorf("apply of the removed plan: exit %d, %s", code, stderr)
	}
}

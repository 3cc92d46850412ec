package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestApplyResume_File: on a store file an apply is one transaction, so
// --resume is a usage error, and nothing is opened or created.
func TestApplyResume_File(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.omgdb")
	code, out, stderr := runCLI(t, "", "apply", path, "665f1c2e9b1d4a0c8e7f6a5b", "--resume")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "apply --resume runs over MongoDB only: on a store file an apply is one transaction") ||
		!strings.Contains(stderr, "hint: apply the plan again without --resume: `omgdb apply "+path+" 665f1c2e9b1d4a0c8e7f6a5b`") {
		t.Errorf("apply --resume on a file: exit %d, %s%s", code, out, stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("apply --resume created %s: %v", path, err)
	}
}

// TestApplyResume_Mongo: a plan claimed by an apply that stopped before
// it journaled its change is refused while the claim is recent (exit
// 75), resumed once it is old, with the whole documents of a clean
// apply; a second resume, a pending plan's resume (a whole apply) and a
// rollback's plan give what the docs say.
func TestApplyResume_Mongo(t *testing.T) {
	t.Parallel()
	_, uri := mongotest.Start(t)
	db := mongotest.Client(t, uri[:strings.LastIndex(uri, "/")+1]).Database(uri[strings.LastIndex(uri, "/")+1:])
	ctx := context.Background()
	for _, coll := range []string{"clean", "claimed", "pending"} {
		if _, err := db.Collection(coll).InsertMany(ctx, resumeDocs(6)); err != nil {
			t.Fatal(err)
		}
	}
	orig := collDocs(t, db, "claimed")
	clean := mongoPlan(t, "plan-update", uri, "clean", `{"_id":{"$lt":4}}`, resumeUpdate)
	if code, _, stderr := runCLI(t, "", "apply", uri, clean); code != 0 {
		t.Fatal(stderr)
	}
	want := collDocs(t, db, "clean")

	tok := mongoPlan(t, "plan-update", uri, "claimed", `{"_id":{"$lt":4}}`, resumeUpdate)
	if _, err := db.Collection("omgdb.plans").UpdateOne(ctx, bson.D{{Key: "_id", Value: mustOID(t, tok)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "applying"}, {Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now())}}}}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "apply", uri, tok, "--resume")
	if code != cli.ExitBusy || out != "" || !strings.Contains(stderr, "is being applied by another omgdb (it was claimed at") || !strings.Contains(stderr, "--resume` takes it over after") {
		t.Errorf("resume of a plan just claimed: exit %d, %s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "apply", uri, tok); code != cli.ExitConflict || !strings.Contains(stderr, "is being applied, or an apply of it was interrupted") {
		t.Errorf("apply of a claimed plan without --resume: exit %d, %s", code, stderr)
	}
	expireClaim(t, db, tok)
	code, out, stderr = runCLI(t, "", "apply", uri, tok, "--resume")
	if code != 0 || !strings.Contains(out, `"change_id":"`+tok+`","kind":"update","inserted":0,"updated":4,"deleted":0,"conflicts":[],"transaction":false,"next_valid_actions":["rollback","show"]`) {
		t.Errorf("resume of a plan claimed long ago: exit %d, %s%s", code, out, stderr)
	}
	if got := collDocs(t, db, "claimed"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the resume:\n%v\nwant\n%v", got, want)
	}
	code, _, stderr = runCLI(t, "", "apply", uri, tok, "--resume")
	if code != cli.ExitConflict || !strings.Contains(stderr, "was already applied, to its end, as change "+tok) {
		t.Errorf("second resume: exit %d, %s", code, stderr)
	}
	rb := mustRollback(t, uri, tok)
	if got := collDocs(t, db, "claimed"); strings.Join(got, "\n") != strings.Join(orig, "\n") {
		t.Errorf("after the rollback:\n%v\nwant\n%v", got, orig)
	}
	code, _, stderr = runCLI(t, "", "apply", uri, rb, "--resume")
	if code != cli.ExitUsage || !strings.Contains(stderr, "is the plan of a rollback (of change "+tok+")") {
		t.Errorf("resume of a rollback's plan: exit %d, %s", code, stderr)
	}

	none := mongoPlan(t, "plan-update", uri, "pending", `{"_id":99}`, resumeUpdate)
	if _, err := db.Collection("omgdb.plans").UpdateOne(ctx, bson.D{{Key: "_id", Value: mustOID(t, none)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "applying"}, {Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Minute))}}}}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", "apply", uri, none, "--resume")
	if code != 0 || !strings.Contains(out, `"message":"the plan changes nothing: no document was written"`) {
		t.Errorf("resume of a claimed plan of no document: exit %d, %s%s", code, out, stderr)
	}
	if _, hist, _ := runCLI(t, "", "history", uri, "--coll", "pending"); hist != "" {
		t.Errorf("history after a plan of no document: %s", hist)
	}
	if _, plans, _ := runCLI(t, "", "plans", uri, "--all"); !strings.Contains(plans, `"token":"`+none+`"`) || !strings.Contains(plans, `"status":"applied"`) {
		t.Errorf("plans after a plan of no document: %s", plans)
	}

	tok = mongoPlan(t, "plan-update", uri, "pending", `{"_id":{"$lt":4}}`, resumeUpdate)
	code, out, stderr = runCLI(t, "", "apply", uri, tok, "--resume")
	if code != 0 || !strings.Contains(out, `"updated":4,`) {
		t.Errorf("resume of a pending plan: exit %d, %s%s", code, out, stderr)
	}
	if got := collDocs(t, db, "pending"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the resume of a pending plan:\n%v\nwant\n%v", got, want)
	}
}

// mustRollback rolls back a change and returns the rollback's change id.
func mustRollback(t *testing.T, uri, id string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "", "rollback", uri, id)
	i := strings.Index(out, `"change_id":"`)
	if code != 0 || i < 0 {
		t.Fatalf("rollback %s: exit %d, %s%s", id, code, out, stderr)
	}
	return out[i+13 : i+13+24]
}

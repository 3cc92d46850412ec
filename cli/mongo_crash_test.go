package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestCrash_KillMongoApply kills `omgdb apply` over MongoDB (FerretDB)
// with SIGKILL at random moments while it writes a plan of 40 updates
// document by document. After each kill every document must be exactly
// its before-image or its after-image; every document the plan's items
// mark applied must be its after-image, and at most one document (the
// one being written at the kill) may be written without its mark; an
// apply the journal (omgdb.changes) says is applied, or that exited 0,
// must have written every document. Then rollback (once the lease of a
// change left applying has expired) must bring the collection back to
// exactly its documents before the apply, and find --at the revision
// before the apply, and at the killed change, print what find printed
// before the apply, and right after the kill.
func TestCrash_KillMongoApply(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	const docs = 40
	cycles := 12
	outcomes, rolledBack := map[string]int{}, map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("c%d", c)
		var many []any
		for i := 0; i < docs; i++ {
			many = append(many, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i)}, {Key: "tag", Value: "x"}})
		}
		if _, err := db.Collection(coll).InsertMany(context.Background(), many); err != nil {
			t.Fatal(err)
		}
		orig := collDocs(t, db, coll)
		before := runOK(t, "", "find", s.URI+"app", coll, "--ejson", "canonical")
		runOK(t, "", "snapshot", "create", s.URI+"app", "before-"+coll)
		tok := mongoPlan(t, "plan-update", s.URI+"app", coll, `{}`, `{"$inc":{"v":{"$numberLong":"1000"}},"$set":{"tag":"y"}}`)
		delay := time.Duration(r.IntN(500000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "apply", s.URI + "app", tok}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: apply exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		outcome := checkMongoApply(t, db, coll, tok, docs, o.Exited)
		first := outcomes[outcome] == 0 && strings.HasPrefix(outcome, "journaled applying")
		if first {
			checkInterrupted(t, s.URI+"app", tok)
		}
		outcomes[outcome]++
		left := runOK(t, "", "find", s.URI+"app", coll, "--ejson", "canonical")
		rolledBack[rollbackKilled(t, db, s.URI+"app", coll, orig, first)]++
		checkAtKilled(t, s.URI+"app", coll, tok, map[string]string{"before-" + coll: before, tok: left}, outcome != "killed before the journal")
	}
	t.Logf("%d cycles, documents neither before nor after: 0; outcomes: %v; rolled back to the originals, by status found: %v", cycles, outcomes, rolledBack)
}

// mongoCrashSetup skips a crash test with -short, and otherwise returns
// its seed ($OMGDB_CRASH_SEED, or the time), its own FerretDB and that
// server's database app.
func mongoCrashSetup(t *testing.T) (uint64, *mongotest.Server, *mongo.Database) {
	t.Helper()
	if testing.Short() {
		t.Skip("FerretDB")
	}
	seed, err := strconv.ParseUint(os.Getenv("OMGDB_CRASH_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with OMGDB_CRASH_SEED=%d)", seed, seed)
	s := mongotest.Own(t)
	return seed, s, mongotest.Client(t, s.URI).Database("app")
}

// checkMongoApply checks one killed apply and says how far it went.
func checkMongoApply(t *testing.T, db *mongo.Database, coll, tok string, docs int, exited bool) string {
	t.Helper()
	ctx := context.Background()
	oid, _ := bson.ObjectIDFromHex(tok)
	marked := map[int32]bool{}
	cur, err := db.Collection("omgdb.plan_items").Find(ctx, bson.D{{Key: "plan", Value: oid}, {Key: "state", Value: "applied"}})
	if err != nil {
		t.Fatal(err)
	}
	var items []struct {
		ID int32 `bson:"id"`
	}
	if err := cur.All(ctx, &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		marked[it.ID] = true
	}
	cur, err = db.Collection(coll).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != docs {
		t.Fatalf("%s: %d documents, want %d", coll, len(got), docs)
	}
	after, unmarked := 0, 0
	for i, raw := range got {
		before := fmt.Sprintf(`{"_id": {"$numberInt":"%d"},"v": {"$numberInt":"%d"},"tag": "x"}`, i, i)
		want := fmt.Sprintf(`{"_id": {"$numberInt":"%d"},"v": {"$numberLong":"%d"},"tag": "y"}`, i, i+1000)
		js := strings.ReplaceAll(raw.String(), " ", "")
		switch js {
		case strings.ReplaceAll(want, " ", ""):
			after++
			if !marked[int32(i)] {
				unmarked++
			}
		case strings.ReplaceAll(before, " ", ""):
			if marked[int32(i)] {
				t.Errorf("%s: _id %d is marked applied but holds its before-image", coll, i)
			}
		default:
			t.Errorf("%s: _id %d is neither its before- nor its after-image: %s", coll, i, raw)
		}
	}
	if unmarked > 1 {
		t.Errorf("%s: %d documents written without their mark, want at most 1", coll, unmarked)
	}
	var ch struct {
		Status string `bson:"status"`
	}
	err = db.Collection("omgdb.changes").FindOne(ctx, bson.D{{Key: "_id", Value: oid}}).Decode(&ch)
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	if (exited || ch.Status == "applied") && after != docs {
		t.Errorf("%s: apply exited 0 or journaled applied (%q) with %d of %d documents written", coll, ch.Status, after, docs)
	}
	switch {
	case ch.Status == "":
		if after > 0 {
			t.Errorf("%s: %d documents written with no change in the journal", coll, after)
		}
		return "killed before the journal"
	case after == docs && ch.Status == "applied":
		return "applied"
	}
	return "journaled " + ch.Status + " with " + map[bool]string{true: "none", false: "some"}[after == 0] + " written"
}

// checkInterrupted checks what the CLI says of an interrupted apply
// while its lease runs: history shows it applying, and apply refuses it.
func checkInterrupted(t *testing.T, uri, tok string) {
	t.Helper()
	code, out, _ := runCLI(t, "", "history", uri, "--limit", "1")
	if code != 0 || !strings.Contains(out, `"change":"`+tok+`"`) || !strings.Contains(out, `"status":"applying"`) {
		t.Errorf("history after an interrupted apply: exit %d, %s", code, out)
	}
	code, _, stderr := runCLI(t, "", "apply", uri, tok)
	if code != cli.ExitConflict || !strings.Contains(stderr, "an apply of it was interrupted") {
		t.Errorf("apply of an interrupted plan: exit %d, %s", code, stderr)
	}
}

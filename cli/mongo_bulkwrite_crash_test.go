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
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoShellBulkWrite kills `omgdb shell --eval` with
// SIGKILL at random moments while its bulkWrite over MongoDB (FerretDB)
// writes 12 insertOne operations (one change each), an updateMany and a
// deleteOne. After each kill: the documents are the first inserts', in
// order, each whole (its value, and `done` only from the updateMany);
// every document an insert change's items mark written is there, and
// every document is such an item or among the pending _ids of the one
// change left applying; at most one change is left applying; an
// updateMany journaled applied marked every document; a run that exited
// 0 wrote all of it.
func TestCrash_KillMongoShellBulkWrite(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	const n = 12
	ops := make([]string, 0, n+2)
	for i := 0; i < n; i++ {
		ops = append(ops, fmt.Sprintf(`{insertOne: {document: {_id: %d, v: NumberLong(%d)}}}`, i, i*3))
	}
	ops = append(ops, `{updateMany: {filter: {}, update: {$set: {done: true}}}}`, `{deleteOne: {filter: {_id: 0}}}`)
	outcomes := map[string]int{}
	const cycles = 6
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("b%d", c)
		code := fmt.Sprintf("db.%s.bulkWrite([%s])", coll, strings.Join(ops, ", "))
		delay := time.Duration(r.IntN(1500000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "shell", s.URI + "app", "--eval", code}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: the shell exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		outcomes[checkKilledBulkWrite(t, db, coll, n, o.Exited)]++
	}
	t.Logf("%d cycles; outcomes: %v", cycles, outcomes)
}

// bulkChange is what the journal holds of one change of a bulkWrite.
type bulkChange struct {
	ID       bson.ObjectID `bson:"_id"`
	Kind     string        `bson:"kind"`
	PlanKind string        `bson:"plan_kind"`
	Status   string        `bson:"status"`
	Pending  []int32       `bson:"pending"`
}

// checkKilledBulkWrite checks one killed bulkWrite and says how far it
// went.
func checkKilledBulkWrite(t *testing.T, db *mongo.Database, coll string, n int, exited bool) string {
	t.Helper()
	ctx := context.Background()
	var changes []bulkChange
	cur, err := db.Collection("omgdb.changes").Find(ctx, bson.D{{Key: "collection", Value: coll}}, options.Find().SetSort(bson.D{{Key: "time", Value: 1}, {Key: "_id", Value: 1}}))
	if err == nil {
		err = cur.All(ctx, &changes)
	}
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID   int32 `bson:"_id"`
		V    int64 `bson:"v"`
		Done *bool `bson:"done"`
	}
	cur, err = db.Collection(coll).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err == nil {
		err = cur.All(ctx, &docs)
	}
	if err != nil {
		t.Fatal(err)
	}
	present := map[int32]bool{}
	for _, d := range docs {
		present[d.ID] = true
		if d.V != int64(d.ID)*3 || d.Done != nil && !*d.Done {
			t.Errorf("%s: document %+v is not whole", coll, d)
		}
	}
	applying, inserts, update, deleted := 0, 0, "", false
	covered := map[int32]bool{}
	for _, ch := range changes {
		// A deleteOne left applying deleted _id 0 or not.
		deleted = deleted || ch.PlanKind == "delete" && (ch.Status == "applied" || !present[0])
	}
	for _, ch := range changes {
		if ch.Status == "applying" {
			applying++
			for _, id := range ch.Pending {
				covered[id] = true
			}
		}
		switch {
		case ch.Kind == "insert":
			// Its items are marked as its documents are written, before
			// the change is marked applied.
			for _, id := range itemIDs(t, db, ch.ID) {
				if !present[id] && !(id == 0 && deleted) {
					t.Errorf("%s: _id %d of change %s (%s) is missing", coll, id, ch.ID.Hex(), ch.Status)
				}
				covered[id] = true
			}
			if ch.Status == "applied" {
				inserts++
			}
		case ch.PlanKind == "update":
			update = ch.Status
		}
	}
	for i, d := range docs {
		if !covered[d.ID] {
			t.Errorf("%s: _id %d is written by no applied or pending change", coll, d.ID)
		}
		if want := int32(i) + map[bool]int32{true: 1, false: 0}[deleted]; d.ID != want {
			t.Errorf("%s: document %d has _id %d: not the first inserts in order", coll, i, d.ID)
		}
		if update == "applied" && d.Done == nil || update == "" && d.Done != nil {
			t.Errorf("%s: _id %d has done %v with the updateMany %q", coll, d.ID, d.Done, update)
		}
	}
	if applying > 1 {
		t.Errorf("%s: %d changes left applying, want at most one", coll, applying)
	}
	if exited && (inserts != n || update != "applied" || !deleted || len(docs) != n-1) {
		t.Errorf("%s: the shell exited 0 with %d inserts applied, updateMany %q, delete %v, %d documents", coll, inserts, update, deleted, len(docs))
	}
	switch {
	case exited:
		return "finished"
	case applying == 1:
		return fmt.Sprintf("killed during a change (%d inserts before, updateMany %q)", inserts, update)
	}
	return fmt.Sprintf("killed between changes (%d inserts)", inserts)
}

// itemIDs returns the _ids a change's items mark applied.
func itemIDs(t *testing.T, db *mongo.Database, change bson.ObjectID) []int32 {
	t.Helper()
	cur, err := db.Collection("omgdb.plan_items").Find(context.Background(), bson.D{{Key: "plan", Value: change}, {Key: "state", Value: "applied"}})
	if err != nil {
		t.Fatal(err)
	}
	var items []struct {
		ID int32 `bson:"id"`
	}
	if err := cur.All(context.Background(), &items); err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

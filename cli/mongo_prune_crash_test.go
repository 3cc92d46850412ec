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
	"github.com/omgdb/omgdb/internal/mongotest"
)

// TestCrash_KillMongoPrune kills `omgdb compact --history-before --yes`
// over MongoDB (FerretDB) at random moments. After each kill: every
// journal entry left still has all its images (a prune removes an entry
// before its images), the state at the cut reads as before the prune,
// and a second prune finishes the work: the journal holds only the
// change after the cut and no collection a pruned drop kept aside.
func TestCrash_KillMongoPrune(t *testing.T) {
	t.Parallel()
	seed, s, _ := mongoCrashSetup(t)
	ctx := context.Background()
	cycles := 8
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		name := fmt.Sprintf("prune%d", c)
		uri := s.URI + name
		db := mongotest.Client(t, s.URI).Database(name)
		mongotest.Insert(t, mongotest.Client(t, s.URI), name, "items", `{"_id":1,"v":1}`, `{"_id":2,"v":2}`, `{"_id":3,"v":[1,null]}`)
		mongotest.Insert(t, mongotest.Client(t, s.URI), name, "old", `{"_id":1}`)
		for _, w := range [][]string{
			{"update", uri, "items", `{"_id":1}`, `{"$inc":{"v":{"$numberLong":"1"}}}`},
			{"update", uri, "items", `{}`, `{"$set":{"w":null}}`},
			{"drop", uri, "old"},
			{"delete", uri, "items", `{"_id":2}`},
			{"snapshot", "create", uri, "cut"},
			{"update", uri, "items", `{"_id":3}`, `{"$unset":{"w":""}}`},
		} {
			if code, _, stderr := runCLI(t, "", w...); code != 0 {
				t.Fatalf("cycle %d: omgdb %s: exit %d %s", c, strings.Join(w, " "), code, stderr)
			}
		}
		_, atCut, _ := runCLI(t, "", "find", uri, "items", "--at", "cut")
		delay := time.Duration(r.IntN(30000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "compact", uri, "--history-before", "cut", "--yes"}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: compact exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		n, _ := db.Collection("omgdb.changes").CountDocuments(ctx, bson.D{})
		switch {
		case o.Exited:
			outcomes["finished"]++
		case n == 5:
			outcomes["killed before any entry was removed"]++
		default:
			outcomes["killed mid-way"]++
		}
		checkImages(t, db, c)
		if code, out, stderr := runCLI(t, "", "find", uri, "items", "--at", "cut"); code != 0 || out != atCut {
			t.Fatalf("cycle %d: at the cut after the kill: exit %d\n%s%s\nwant\n%s", c, code, out, stderr, atCut)
		}
		if code, out, stderr := runCLI(t, "", "compact", uri, "--history-before", "cut", "--yes"); code != 0 {
			t.Fatalf("cycle %d: the second prune: exit %d %s%s", c, code, out, stderr)
		}
		if n, _ := db.Collection("omgdb.changes").CountDocuments(ctx, bson.D{}); n != 1 {
			t.Fatalf("cycle %d: %d journal entries after the second prune, want 1", c, n)
		}
		names, _ := db.ListCollectionNames(ctx, bson.D{})
		for _, nm := range names {
			if strings.HasPrefix(nm, "omgdb_dropped_") {
				t.Fatalf("cycle %d: %s left after the second prune", c, nm)
			}
		}
	}
	t.Logf("%d kills: %v", cycles, outcomes)
}

// checkImages fails unless every document change left in the journal
// still has the images its counts say it wrote.
func checkImages(t *testing.T, db *mongo.Database, c int) {
	t.Helper()
	ctx := context.Background()
	cur, err := db.Collection("omgdb.changes").Find(ctx, bson.D{{Key: "ops", Value: bson.D{{Key: "$exists", Value: false}}}})
	if err != nil {
		t.Fatal(err)
	}
	var chs []struct {
		ID                         bson.ObjectID `bson:"_id"`
		Inserted, Updated, Deleted int64
	}
	if err := cur.All(ctx, &chs); err != nil {
		t.Fatal(err)
	}
	for _, ch := range chs {
		n, err := db.Collection("omgdb.plan_items").CountDocuments(ctx, bson.D{{Key: "plan", Value: ch.ID}, {Key: "state", Value: "applied"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := ch.Inserted + ch.Updated + ch.Deleted; n != want {
			t.Fatalf("cycle %d: change %s has %d images, its counts say %d", c, ch.ID.Hex(), n, want)
		}
	}
}

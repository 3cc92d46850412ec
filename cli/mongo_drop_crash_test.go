package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoDrop kills `omgdb drop` over MongoDB (FerretDB)
// with SIGKILL at random moments. After each kill the collection is
// whole under exactly one name, its own or the aside one
// (omgdb_dropped_<change id>), and the journal says which: no change
// (killed before it), a change applying (the rename done or not), or
// applied (aside). Then rollback of any journaled drop brings the
// collection back whole under its name.
func TestCrash_KillMongoDrop(t *testing.T) {
	seed, s, db := mongoCrashSetup(t)
	uri := s.URI + "app"
	const docs = 20
	cycles := 12
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("d%d", c)
		var many []any
		for i := 0; i < docs; i++ {
			many = append(many, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int64(i)}, {Key: "a", Value: bson.A{int32(i), nil}}})
		}
		if _, err := db.Collection(coll).InsertMany(context.Background(), many); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(r.IntN(40000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "drop", uri, coll}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: drop exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		outcome, change := checkMongoDrop(t, db, coll, docs, o.Exited)
		outcomes[outcome]++
		if change == "" {
			continue
		}
		if code, out, stderr := runCLI(t, "", "rollback", uri, change); code != 0 {
			t.Fatalf("cycle %d (%s): rollback exit %d %s%s", c, outcome, code, out, stderr)
		}
		if n := countIn(t, db, coll); n != docs {
			t.Fatalf("cycle %d (%s): after rollback %s holds %d documents, want %d", c, outcome, coll, n, docs)
		}
	}
	t.Logf("%d cycles, collections lost or split: 0; outcomes: %v", cycles, outcomes)
}

// checkMongoDrop checks one killed drop and returns how far it went and
// the change's id (empty when there is none).
func checkMongoDrop(t *testing.T, db *mongo.Database, coll string, docs int, exited bool) (string, string) {
	t.Helper()
	ctx := context.Background()
	var ch struct {
		ID     bson.ObjectID `bson:"_id"`
		Status string        `bson:"status"`
		Done   int64         `bson:"done"`
	}
	err := db.Collection("omgdb.changes").FindOne(ctx, bson.D{{Key: "collection", Value: coll}}).Decode(&ch)
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	aside := "omgdb_dropped_" + ch.ID.Hex()
	hasColl, hasAside := slices.Contains(names, coll), ch.Status != "" && slices.Contains(names, aside)
	switch {
	case hasColl == hasAside:
		t.Fatalf("%s: under its name %v, aside %v: want exactly one (journal %+v)", coll, hasColl, hasAside, ch)
	case hasColl && countIn(t, db, coll) != docs, hasAside && countIn(t, db, aside) != docs:
		t.Fatalf("%s: not whole after the kill", coll)
	case exited && (ch.Status != "applied" || !hasAside):
		t.Fatalf("%s: drop exited 0 but the journal says %q (aside %v)", coll, ch.Status, hasAside)
	case ch.Status == "applied" && !hasAside, ch.Done == 1 && !hasAside:
		t.Fatalf("%s: journaled done but the collection is not aside", coll)
	case ch.Status == "":
		return "killed before the journal", ""
	}
	return fmt.Sprintf("journaled %s, %s", ch.Status, map[bool]string{true: "aside", false: "in place"}[hasAside]), ch.ID.Hex()
}

func countIn(t *testing.T, db *mongo.Database, coll string) int {
	t.Helper()
	n, err := db.Collection(coll).CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoDefine kills `omgdb define` over MongoDB (FerretDB)
// at random moments. A define writes several documents (the journal
// entry, the server's validator, omgdb's record of the rules, the
// journal's marks). After each kill the collection's rules are whole,
// the old ones or the new ones, and the journal agrees: no change (old
// rules), applying (either), or applied (new rules; also whenever the
// command exited 0). Then rollback of a journaled define brings back
// exactly the old rules, and the documents are untouched.
func TestCrash_KillMongoDefine(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	uri := s.URI + "app"
	const old, next = `{"required":["name"]}`, `{"required":["name"],"fields":{"age":{"type":"long","min":0}}}`
	cycles := 10
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("r%d", c)
		if _, err := db.Collection(coll).InsertMany(context.Background(), []any{
			bson.D{{Key: "_id", Value: int32(1)}, {Key: "name", Value: "a"}, {Key: "age", Value: int64(3)}},
			bson.D{{Key: "_id", Value: int32(2)}, {Key: "name", Value: nil}, {Key: "age", Value: 2.5}}}); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(t, "", "define", uri, coll, old); code != 0 {
			t.Fatalf("define: %s", stderr)
		}
		delay := time.Duration(r.IntN(30000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "define", uri, coll, next}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: define exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		var ch struct {
			ID     bson.ObjectID `bson:"_id"`
			Status string        `bson:"status"`
		}
		err = db.Collection("omgdb.changes").FindOne(context.Background(), bson.D{{Key: "collection", Value: coll}, {Key: "kind", Value: "define"}},
			options.FindOne().SetSort(bson.D{{Key: "seq", Value: -1}})).Decode(&ch)
		if err != nil {
			t.Fatal(err)
		}
		rules := rulesOf(t, db, coll)
		first := ch.Status == "applied" && rules == old // the first define, in-process: the kill came before the journal
		switch {
		case rules != old && rules != next:
			t.Fatalf("cycle %d: rules %q are neither the old nor the new", c, rules)
		case o.Exited && (ch.Status != "applied" || rules != next):
			t.Fatalf("cycle %d: define exited 0 but the journal says %q and the rules are %q", c, ch.Status, rules)
		case ch.Status == "applied" && rules != next && !first:
			t.Fatalf("cycle %d: journaled applied with the old rules", c)
		case first:
			outcomes["killed before the journal"]++
			continue
		}
		outcomes[fmt.Sprintf("journaled %s, %s rules", ch.Status, map[bool]string{true: "new", false: "old"}[rules == next])]++
		if code, out, stderr := runCLI(t, "", "rollback", uri, ch.ID.Hex()); code != 0 {
			t.Fatalf("cycle %d: rollback exit %d %s%s", c, code, out, stderr)
		}
		if got := rulesOf(t, db, coll); got != old {
			t.Fatalf("cycle %d: after rollback the rules are %q, want %q", c, got, old)
		}
		if n := countIn(t, db, coll); n != 2 {
			t.Fatalf("cycle %d: %d documents after rollback, want 2", c, n)
		}
	}
	t.Logf("%d cycles, rules lost or half-written: 0; outcomes: %v", cycles, outcomes)
}

// rulesOf reads the text of coll's rules in omgdb's record.
func rulesOf(t *testing.T, db *mongo.Database, coll string) string {
	t.Helper()
	var rec struct {
		Rules string `bson:"rules"`
	}
	if err := db.Collection("omgdb.copy").FindOne(context.Background(), bson.D{{Key: "_id", Value: coll}}).Decode(&rec); err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	return rec.Rules
}

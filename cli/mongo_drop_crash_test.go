package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
	t.Parallel()
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

// TestCrash_KillMongoRenameDropTarget kills `omgdb rename --drop-target`
// (two steps: the target renamed aside, then the source renamed) at
// random moments. After each kill each collection's documents are whole
// under one name (the source's under its name or the target's, the old
// target's under its name or aside); then rollback of a journaled rename
// gives both back as they were.
func TestCrash_KillMongoRenameDropTarget(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	uri := s.URI + "app"
	cycles := 10
	outcomes := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		src, dst := fmt.Sprintf("s%d", c), fmt.Sprintf("t%d", c)
		for coll, n := range map[string]int{src: 15, dst: 5} {
			var many []any
			for i := 0; i < n; i++ {
				many = append(many, bson.D{{Key: "_id", Value: int32(i)}, {Key: "from", Value: coll}})
			}
			if _, err := db.Collection(coll).InsertMany(context.Background(), many); err != nil {
				t.Fatal(err)
			}
		}
		delay := time.Duration(r.IntN(40000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "rename", uri, src, dst, "--drop-target"}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: rename exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		var ch struct {
			ID     bson.ObjectID `bson:"_id"`
			Status string        `bson:"status"`
		}
		err = db.Collection("omgdb.changes").FindOne(context.Background(), bson.D{{Key: "collection", Value: src}}).Decode(&ch)
		if err != nil && err != mongo.ErrNoDocuments {
			t.Fatal(err)
		}
		owner := func(coll string) string { // whose documents coll holds
			if n := countIn(t, db, coll); n == 0 {
				return ""
			}
			var d struct {
				From string `bson:"from"`
			}
			db.Collection(coll).FindOne(context.Background(), bson.D{}).Decode(&d)
			return d.From
		}
		aside := "omgdb_dropped_" + ch.ID.Hex()
		state := fmt.Sprintf("%s=%s %s=%s aside=%s", src, owner(src), dst, owner(dst), owner(aside))
		ok := map[string]bool{
			fmt.Sprintf("%s=%s %s=%s aside=", src, src, dst, dst): true, // nothing done
			fmt.Sprintf("%s=%s %s= aside=%s", src, src, dst, dst): true, // target aside
			fmt.Sprintf("%s= %s=%s aside=%s", src, dst, src, dst): true, // both done
		}
		if !ok[state] || (o.Exited && ch.Status != "applied") || (ch.Status == "" && state != fmt.Sprintf("%s=%s %s=%s aside=", src, src, dst, dst)) {
			t.Fatalf("cycle %d: after the kill %s, journal %q, exited %v", c, state, ch.Status, o.Exited)
		}
		outcomes[fmt.Sprintf("journal %q, %s", ch.Status, strings.ReplaceAll(strings.ReplaceAll(state, src, "src"), dst, "dst"))]++
		if ch.Status == "" {
			continue
		}
		if code, out, stderr := runCLI(t, "", "rollback", uri, ch.ID.Hex()); code != 0 {
			t.Fatalf("cycle %d (%s): rollback exit %d %s%s", c, state, code, out, stderr)
		}
		if owner(src) != src || owner(dst) != dst || countIn(t, db, src) != 15 || countIn(t, db, dst) != 5 {
			t.Fatalf("cycle %d (%s): after rollback %s holds %s's, %s holds %s's", c, state, src, owner(src), dst, owner(dst))
		}
	}
	t.Logf("%d cycles, collections lost or split: 0; outcomes: %v", cycles, outcomes)
}

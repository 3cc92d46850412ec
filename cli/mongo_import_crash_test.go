package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoImport kills `omgdb import` over MongoDB (FerretDB)
// with SIGKILL at random moments while it imports 150 documents in
// ordered batches of 10. After each kill: the collection holds a prefix
// of the input, each document exactly as imported; every document the
// change's items mark applied is there; the documents there without an
// item are all among the change's pending _ids (the batch being written
// at the kill, at most one batch); a change
// the journal says is applied, or an import that exited 0, wrote every
// document and marked each; with no change in the journal nothing was
// written; an import left applying is shown so by history and refused by
// rollback while its lease runs. Then rollback (once the lease has
// expired) must leave the collection empty, as before the import; the
// collection did not exist at the revision before the import, and
// find --at the killed import prints what find printed after the kill.
func TestCrash_KillMongoImport(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	const docs, batch = 150, 10
	var in strings.Builder
	for i := 0; i < docs; i++ {
		fmt.Fprintf(&in, `{"_id":%d,"v":{"$numberLong":"%d"},"s":"row %d"}`+"\n", i, i*7, i)
	}
	input := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(input, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cycles := 12
	outcomes, rolledBack := map[string]int{}, map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("c%d", c)
		delay := time.Duration(r.IntN(300000)) * time.Microsecond
		runOK(t, "", "snapshot", "create", s.URI+"app", "before-"+coll)
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "import", s.URI + "app", coll, input, "--batch-size", strconv.Itoa(batch)}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: import exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		outcome := checkMongoImport(t, db, coll, docs, batch, o.Exited)
		first := strings.HasPrefix(outcome, "journaled applying") && outcomes[outcome] == 0
		outcomes[outcome]++
		code, left, _ := runCLI(t, "", "find", s.URI+"app", coll, "--ejson", "canonical")
		rolledBack[rollbackKilled(t, db, s.URI+"app", coll, []string{}, first)]++
		checkImportKilled(t, db, s.URI+"app", coll, code, left)
	}
	t.Logf("%d cycles, documents other than the input's prefix: 0; outcomes: %v; rolled back to empty, by status found: %v", cycles, outcomes, rolledBack)
}

// checkMongoImport checks one killed import and says how far it went.
func checkMongoImport(t *testing.T, db *mongo.Database, coll string, docs, batch int, exited bool) string {
	t.Helper()
	ctx := context.Background()
	var ch struct {
		ID      bson.ObjectID `bson:"_id"`
		Status  string        `bson:"status"`
		Pending []int32       `bson:"pending"`
	}
	err := db.Collection("omgdb.changes").FindOne(ctx, bson.D{{Key: "collection", Value: coll}}).Decode(&ch)
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	marked := map[int32]bool{}
	if !ch.ID.IsZero() {
		for _, id := range itemIDs(t, db, ch.ID) {
			marked[id] = true
		}
	}
	cur, err := db.Collection(coll).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	unmarked := 0
	for i, raw := range got {
		want := fmt.Sprintf(`{"_id":{"$numberInt":"%d"},"v":{"$numberLong":"%d"},"s":"row%d"}`, i, i*7, i)
		if js := strings.ReplaceAll(raw.String(), " ", ""); js != want {
			t.Errorf("%s: document %d is %s, want %s (the input's prefix, exactly)", coll, i, raw, want)
		}
		if !marked[int32(i)] {
			unmarked++
			if !slices.Contains(ch.Pending, int32(i)) {
				t.Errorf("%s: _id %d is written without its item and is not pending in the change (%v)", coll, i, ch.Pending)
			}
		}
	}
	if len(marked) > len(got) || unmarked > batch || len(ch.Pending) > batch {
		t.Errorf("%s: %d marked applied, %d written, %d of them unmarked (want at most one batch of %d)", coll, len(marked), len(got), unmarked, batch)
	}
	switch {
	case (exited || ch.Status == "applied") && (len(got) != docs || unmarked != 0 || len(ch.Pending) != 0):
		t.Errorf("%s: import exited 0 or journaled applied (%q) with %d of %d written, %d unmarked", coll, ch.Status, len(got), docs, unmarked)
	case ch.Status == "" && len(got) > 0:
		t.Errorf("%s: %d documents written with no change in the journal", coll, len(got))
	}
	switch {
	case ch.Status == "":
		return "killed before the journal"
	case ch.Status == "applied":
		return "applied"
	}
	return fmt.Sprintf("journaled %s with %s written", ch.Status, map[bool]string{true: "none", false: "some"}[len(got) == 0])
}

// TestInterrupt_MongoImport: Ctrl-C during an import over MongoDB exits
// 130, says how many documents were committed through which line, and
// exactly those are on the server; the change is applied in the journal
// with that count, nothing pending.
func TestInterrupt_MongoImport(t *testing.T) {
	t.Parallel()
	_, s, db := mongoCrashSetup(t)
	uri := s.URI + "app"
	code, _, stderr := interruptImport(t, uri)
	m := regexp.MustCompile(`(?m)^error: interrupted: (\d+) document\(s\) committed, through line (\d+) of standard input\nhint: the rest starts at line (\d+): feed the same input to omgdb import \S+ c --resume-from-line (\d+)\n`).FindStringSubmatch(stderr)
	if code != 130 || m == nil {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 130 and what was committed", code, stderr)
	}
	n, _ := strconv.Atoi(m[1])
	if line, _ := strconv.Atoi(m[2]); n == 0 || n != line || m[3] != strconv.Itoa(line+1) {
		t.Fatalf("stderr:\n%s\nwant a non-zero count equal to the line, and the next line to resume at", stderr)
	}
	if _, out, _ := runCLI(t, "", "count", uri, "c", fmt.Sprintf(`{"_id":{"$lt":%d}}`, n)); out != fmt.Sprintf("%d\n", n) {
		t.Errorf("documents of lines 1..%d on the server: %s", n, out)
	}
	if _, out, _ := runCLI(t, "", "count", uri, "c"); out != fmt.Sprintf("%d\n", n) {
		t.Errorf("documents on the server: %s, want %d", out, n)
	}
	var ch struct {
		Status   string `bson:"status"`
		Inserted int64  `bson:"inserted"`
		Pending  bson.A `bson:"pending"`
	}
	if err := db.Collection("omgdb.changes").FindOne(context.Background(), bson.D{}).Decode(&ch); err != nil {
		t.Fatal(err)
	}
	if ch.Status != "applied" || ch.Inserted != int64(n) || len(ch.Pending) != 0 {
		t.Errorf("journal after the interrupt: %+v; want applied with %d inserted, nothing pending", ch, n)
	}
}

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

	"github.com/omgdb/omgdb/cli"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// resumeDocs are n documents with an int, a long or a double v, an
// array, a null or a missing field.
func resumeDocs(n int) []any {
	var docs []any
	for i := 0; i < n; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		switch i % 3 {
		case 0:
			d = append(d, bson.E{Key: "v", Value: int32(i)}, bson.E{Key: "a", Value: bson.A{int32(i), nil}})
		case 1:
			d = append(d, bson.E{Key: "v", Value: int64(i)}, bson.E{Key: "n", Value: nil})
		default:
			d = append(d, bson.E{Key: "v", Value: float64(i) + 0.5}, bson.E{Key: "a", Value: bson.A{}}, bson.E{Key: "n", Value: "s"})
		}
		docs = append(docs, d)
	}
	return docs
}

// resumeUpdate turns ints into longs, pushes a null, removes n and sets a
// string.
const resumeUpdate = `{"$inc":{"v":{"$numberLong":"1000"}},"$push":{"a":null},"$unset":{"n":""},"$set":{"tag":"y"}}`

// TestCrash_KillMongoResume kills `omgdb apply` over MongoDB (FerretDB)
// at a random moment, then kills `omgdb apply --resume` at random
// moments too (the change's lease made to expire before each), and
// resumes once more without a kill: the collection must then hold,
// document for document, exactly what a clean apply of the same plan
// leaves, the journal must say applied with every document counted once,
// and rollback must give back exactly the documents before the apply.
func TestCrash_KillMongoResume(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	uri := s.URI + "app"
	const docs = 16
	ctx := context.Background()
	if _, err := db.Collection("clean").InsertMany(ctx, resumeDocs(docs)); err != nil {
		t.Fatal(err)
	}
	orig := collDocs(t, db, "clean")
	tok := mongoPlan(t, "plan-update", uri, "clean", `{}`, resumeUpdate)
	if code, _, stderr := runCLI(t, "", "apply", uri, tok); code != 0 {
		t.Fatalf("clean apply: exit %d: %s", code, stderr)
	}
	clean := collDocs(t, db, "clean")
	cycles, kills, resumes := 4, 0, 0
	at := map[string]int{} // what each kill left: the change's status and how many documents were marked
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("r%d", c)
		if _, err := db.Collection(coll).InsertMany(ctx, resumeDocs(docs)); err != nil {
			t.Fatal(err)
		}
		tok := mongoPlan(t, "plan-update", uri, coll, `{}`, resumeUpdate)
		args := []string{"", "apply", uri, tok}
		for try := 0; ; try++ {
			o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: args, Delay: time.Duration(r.IntN(200000)) * time.Microsecond})
			if err != nil && (o == nil || !o.Exited) {
				t.Fatalf("cycle %d: %v", c, err)
			}
			if !o.Exited {
				kills++
				at[fmt.Sprintf("%q with %d marked", changeStatus(t, db, tok), checkMongoApplyState(t, db, coll, tok))]++
			} else if o.ExitCode != 0 {
				t.Fatalf("cycle %d, run %d (%v): exit %d: %s", c, try, args[1:], o.ExitCode, o.Stderr)
			}
			if status := changeStatus(t, db, tok); o.Exited || status == "applied" || try == 2 {
				break
			}
			if resumes == 0 && changeStatus(t, db, tok) == "applying" {
				code, _, stderr := runCLI(t, "", "apply", uri, tok, "--resume")
				if code != cli.ExitBusy || !strings.Contains(stderr, "is being written by another omgdb (its lease runs until") || !strings.Contains(stderr, "--resume` again after") {
					t.Errorf("resume while the lease runs: exit %d, %s", code, stderr)
				}
			}
			expireLease(t, db, mustOID(t, tok))
			expireClaim(t, db, tok)
			args = []string{"", "apply", uri, tok, "--resume"}
			resumes++
		}
		if st := changeStatus(t, db, tok); st != "applied" {
			expireLease(t, db, mustOID(t, tok))
			expireClaim(t, db, tok)
			code, out, stderr := runCLI(t, "", "apply", uri, tok, "--resume")
			if code != 0 || !strings.Contains(out, fmt.Sprintf(`"updated":%d,`, docs)) || !strings.Contains(out, `"conflicts":[]`) {
				t.Fatalf("cycle %d: last resume of a change %q: exit %d: %s%s", c, st, code, out, stderr)
			}
			resumes++
		}
		if got := collDocs(t, db, coll); !slices.Equal(got, clean) {
			t.Errorf("cycle %d: after the resume:\n%v\nwant the clean apply's\n%v", c, got, clean)
		}
		if _, out, _ := runCLI(t, "", "history", uri, "--coll", coll); !strings.Contains(out, fmt.Sprintf(`"updated":%d,`, docs)) || !strings.Contains(out, `"status":"applied"`) {
			t.Errorf("cycle %d: history: %s", c, out)
		}
		code, out, stderr := runCLI(t, "", "rollback", uri, tok)
		if code != 0 || !strings.Contains(out, fmt.Sprintf(`"updated":%d,`, docs)) {
			t.Errorf("cycle %d: rollback: exit %d: %s%s", c, code, out, stderr)
		}
		if got := collDocs(t, db, coll); !slices.Equal(got, orig) {
			t.Errorf("cycle %d: after the rollback:\n%v\nwant\n%v", c, got, orig)
		}
	}
	t.Logf("%d cycles: %d kills of apply and apply --resume (%v), %d resumes; every collection equal to the clean apply's, then to the original after rollback", cycles, kills, at, resumes)
}

// checkMongoApplyState checks a killed apply or resume: every document
// is its before- or after-image of the clean apply (the _id and the
// values tell which), and at most one written is not marked.
func checkMongoApplyState(t *testing.T, db *mongo.Database, coll, tok string) int {
	t.Helper()
	marked := map[int32]bool{}
	var items []struct {
		ID int32 `bson:"id"`
	}
	cur, err := db.Collection("omgdb.plan_items").Find(context.Background(), bson.D{{Key: "plan", Value: mustOID(t, tok)}, {Key: "state", Value: "applied"}})
	if err != nil || cur.All(context.Background(), &items) != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		marked[it.ID] = true
	}
	unmarked := 0
	for i, js := range collDocs(t, db, coll) {
		written := strings.Contains(strings.ReplaceAll(js, " ", ""), `"tag":"y"`)
		if written && !marked[int32(i)] {
			unmarked++
		}
		if !written && marked[int32(i)] {
			t.Errorf("%s: _id %d is marked applied but not written: %s", coll, i, js)
		}
	}
	if unmarked > 1 {
		t.Errorf("%s: %d documents written without their mark, want at most 1", coll, unmarked)
	}
	return len(marked)
}

// changeStatus is the status of a change in the journal ("" when none).
func changeStatus(t *testing.T, db *mongo.Database, id string) string {
	t.Helper()
	var ch struct {
		Status string `bson:"status"`
	}
	err := db.Collection("omgdb.changes").FindOne(context.Background(), bson.D{{Key: "_id", Value: mustOID(t, id)}}).Decode(&ch)
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	return ch.Status
}

// expireClaim moves a plan's claim time into the past, as if the lease
// time had passed since an apply claimed it and was killed before it
// journaled its change.
func expireClaim(t *testing.T, db *mongo.Database, tok string) {
	t.Helper()
	_, err := db.Collection("omgdb.plans").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: mustOID(t, tok)}, {Key: "status", Value: "applying"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status_time", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Minute))}}}})
	if err != nil {
		t.Fatal(err)
	}
}

func mustOID(t *testing.T, hex string) bson.ObjectID {
	t.Helper()
	id, err := bson.ObjectIDFromHex(hex)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/cli"
)

// collDocs is every document of coll, in _id order, as its whole BSON
// (every field, in order, with its type).
func collDocs(t *testing.T, db *mongo.Database, coll string) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := db.Collection(coll).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var raws []bson.Raw
	if err := cur.All(ctx, &raws); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(raws))
	for i, r := range raws {
		out[i] = r.String()
	}
	return out
}

// expireLease moves the lease of an applying change into the past, as if
// mongoengine.LeaseTime had passed since its writer was killed.
func expireLease(t *testing.T, db *mongo.Database, id bson.ObjectID) {
	t.Helper()
	_, err := db.Collection("omgdb.changes").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "lease_until", Value: bson.NewDateTimeFromTime(time.Now().Add(-time.Minute))}}}})
	if err != nil {
		t.Fatal(err)
	}
}

// rollbackKilled rolls back the change that a killed writer left on coll
// (if it journaled one) and checks that coll then holds exactly orig,
// document for document. A change left applying is first refused by
// rollback while its lease runs (with checkLive, with what history says
// before and after), then its lease is made to expire. It returns how the
// change was found.
func rollbackKilled(t *testing.T, db *mongo.Database, uri, coll string, orig []string, checkLive bool) string {
	t.Helper()
	var ch struct {
		ID     bson.ObjectID `bson:"_id"`
		Status string        `bson:"status"`
	}
	err := db.Collection("omgdb.changes").FindOne(context.Background(), bson.D{{Key: "collection", Value: coll}, {Key: "kind", Value: bson.D{{Key: "$ne", Value: "rollback"}}}}).Decode(&ch)
	if err == mongo.ErrNoDocuments {
		if got := collDocs(t, db, coll); !slices.Equal(got, orig) {
			t.Errorf("%s: no change journaled, but the collection is %v, want %v", coll, got, orig)
		}
		return "none"
	}
	if err != nil {
		t.Fatal(err)
	}
	id := ch.ID.Hex()
	if ch.Status == "applying" {
		if checkLive {
			code, _, stderr := runCLI(t, "", "rollback", uri, id)
			if code != cli.ExitConflict || !strings.Contains(stderr, "is being written by another omgdb (its lease runs until") {
				t.Errorf("rollback of %s while its lease runs: exit %d, %s", id, code, stderr)
			}
			if _, out, _ := runCLI(t, "", "history", uri, "--coll", coll); !strings.Contains(out, `"status":"applying"`) {
				t.Errorf("history while the lease runs: %s", out)
			}
		}
		expireLease(t, db, ch.ID)
		if checkLive {
			if _, out, _ := runCLI(t, "", "history", uri, "--coll", coll); !strings.Contains(out, `"change":"`+id+`"`) || !strings.Contains(out, `"status":"interrupted"`) {
				t.Errorf("history once the lease expired: %s", out)
			}
		}
	}
	code, out, stderr := runCLI(t, "", "rollback", uri, id)
	if code != 0 || !strings.Contains(out, `"rolled_back":"`+id+`"`) || !strings.Contains(out, `"conflicts":[]`) {
		t.Errorf("rollback of %s change %s: exit %d, %s%s", ch.Status, id, code, out, stderr)
	}
	if got := collDocs(t, db, coll); !slices.Equal(got, orig) {
		t.Errorf("%s after the rollback of %s change %s:\n%v\nwant exactly\n%v", coll, ch.Status, id, got, orig)
	}
	if _, out, _ := runCLI(t, "", "history", uri, "--coll", coll); !strings.Contains(out, `"status":"rolled back by `) {
		t.Errorf("history after the rollback: %s", out)
	}
	return ch.Status
}

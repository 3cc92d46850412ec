package mongotest_test

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/mongotest"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// TestStart_RoundTrip starts the server, writes and reads back a document
// in the test's own database, and reports how long the start took.
func TestStart_RoundTrip(t *testing.T) {
	s, uri := mongotest.Start(t)
	t.Logf("FerretDB started in %v at %s", s.Started, s.URI)
	if !strings.HasPrefix(uri, "mongodb://127.0.0.1:") {
		t.Fatalf("database URI %q: want mongodb://127.0.0.1:PORT/DB", uri)
	}
	db := uri[strings.LastIndex(uri, "/")+1:]
	c := mongotest.Client(t, s.URI)
	mongotest.Insert(t, c, db, "users", `{"_id":1,"name":"ana","n":{"$numberLong":"9007199254740993"}}`)
	var got bson.M
	if err := c.Database(db).Collection("users").FindOne(context.Background(), bson.M{"_id": 1}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["name"] != "ana" || got["n"] != int64(9007199254740993) {
		t.Fatalf("read back %v: want name ana and n 9007199254740993 (int64)", got)
	}
}

// TestStart_OwnDatabase checks that two tests get different databases.
func TestStart_OwnDatabase(t *testing.T) {
	_, a := mongotest.Start(t)
	_, b := mongotest.Start(t)
	if a == b {
		t.Fatalf("two Start calls gave the same database %s", a)
	}
}

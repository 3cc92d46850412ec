package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// describeUsers mix int, long and double, null against missing, arrays
// and nested documents (one level down is in the table).
var describeUsers = []string{
	`{"_id":1,"name":"ana","age":30,"tags":["a","b"],"address":{"city":"Paris","zip":null}}`,
	`{"_id":2,"name":"bob","age":{"$numberLong":"41"},"tags":[],"address":{"city":"Lyon"}}`,
	`{"_id":3,"name":"cy","age":25.5,"nick":null}`,
}

// TestMongo_DescribeMatchesFile: describe gives the file's Markdown over
// MongoDB, with the same index on both sides, whole or sampled.
func TestMongo_DescribeMatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStoresWith(t, describeUsers)
	mustRun(t, "create-index", file, "users", "age:-1,name", "--unique")
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	_, err := c.Database("app").Collection("users").Indexes().CreateOne(context.Background(),
		mongo.IndexModel{Keys: bson.D{{Key: "age", Value: -1}, {Key: "name", Value: 1}}, Options: options.Index().SetUnique(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--sample", "2"}, {"--sample", "0"}} {
		want := mustRun(t, append([]string{"describe", file}, extra...)...)
		got := mustRun(t, append([]string{"describe", uri}, extra...)...)
		if got != want {
			t.Errorf("describe %v:\n%s\nwant (the file's):\n%s", extra, got, want)
		}
	}
	got := mustRun(t, "describe", uri, "--sample", "2")
	for _, part := range []string{"| age | long, int | 2/2 |", "| address.zip | null | 1/2 |", "Fields from a sample of the first 2 of 3 documents.",
		"Indexes: `age_-1_name_1` {\"age\":-1,\"name\":1} unique"} {
		if !strings.Contains(got, part) {
			t.Errorf("describe --sample 2 lacks %q:\n%s", part, got)
		}
	}
}

// TestMongo_Inspect: the collections with the server's counts and sizes,
// and no field a deployment has no counterpart for.
func TestMongo_Inspect(t *testing.T) {
	t.Parallel()
	_, uri := mongoStoresWith(t, describeUsers)
	var info struct {
		Path, Database string
		SizeBytes      int64 `json:"size_bytes"`
		Collections    []struct {
			Name      string
			Documents int64
			DataBytes int64 `json:"data_bytes"`
			Indexes   []struct {
				Name      string
				Key       json.RawMessage
				Unique    bool
				SizeBytes int64 `json:"size_bytes"`
			}
		}
		LastLSN *int64 `json:"last_lsn"`
	}
	out := mustRun(t, "inspect", uri, "--json")
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if info.Path != uri || info.Database != "app" || info.SizeBytes <= 0 || info.LastLSN != nil || len(info.Collections) != 1 {
		t.Fatalf("inspect --json: %s", out)
	}
	u := info.Collections[0]
	if u.Name != "users" || u.Documents != 3 || u.DataBytes <= 0 || len(u.Indexes) != 1 || u.Indexes[0].Name != "_id_" ||
		string(u.Indexes[0].Key) != `{"_id":1}` || !u.Indexes[0].Unique || u.Indexes[0].SizeBytes <= 0 {
		t.Errorf("inspect --json users: %+v", u)
	}
	text := mustRun(t, "inspect", uri)
	if !strings.HasPrefix(text, "database app of "+uri+" (MongoDB, ") || !strings.Contains(text, "1 collection(s)") ||
		!strings.Contains(text, "users       3          ") {
		t.Errorf("inspect:\n%s", text)
	}
}

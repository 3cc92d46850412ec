package shell_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/omgdb/omgdb/shell"
)

func TestShell_Completions(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, `{"_id":1,"name":"ada","address":{"city":"London"}}`+"\n", "import", store, "users")
	runCLI(t, `{"_id":1}`+"\n", "import", store, "logs")
	sh := shell.New(&shell.Options{Store: store})
	for _, tc := range []struct {
		before string
		want   []string
		typed  int
	}{
		{"db.u", []string{"users"}, 1},
		{"db.", []string{"createCollection", "dropDatabase", "getCollection", "getCollectionNames", "getName", "help", "logs", "stats", "users"}, 0},
		{"db.users.find", []string{"find", "findOne", "findOneAndDelete", "findOneAndReplace", "findOneAndUpdate"}, 4},
		{"db.users.find({}).so", []string{"sort"}, 2},
		{"db.users.find({na", []string{"name"}, 2},
		{"db.users.updateOne({_id: 1}, {$set: {addr", []string{"address", "address.city"}, 4},
		{"db.users.countDocuments({'address.c", []string{"address.city"}, 9},
		{"show c", []string{"collections"}, 1},
		{"Obj", []string{"ObjectId"}, 3},
		{"db.nope.find({x", nil, 1},
		{"", nil, 0},
	} {
		got, n := sh.Completions(tc.before)
		if !slices.Equal(got, tc.want) || n != tc.typed {
			t.Errorf("Completions(%q) = %q, %d; want %q, %d", tc.before, got, n, tc.want, tc.typed)
		}
	}
	// Without a store, completion offers no collections and prints nothing.
	if got, _ := shell.New(nil).Completions("db.u"); len(got) != 0 {
		t.Errorf("no store: %q", got)
	}
}

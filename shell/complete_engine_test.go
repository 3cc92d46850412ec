package shell_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/shell"
)

// TestShell_Completions_Engine completes field names over an engine (as
// over MongoDB) from the first documents in _id order: a store file's,
// read through the engine interface.
func TestShell_Completions_Engine(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, `{"_id":1,"name":"ada","address":{"city":"London"},"tags":[{"k":1}]}`+"\n"+`{"_id":2,"nick":null}`+"\n", "import", store, "users")
	eng, err := engine.OpenFile(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sh := shell.New(&shell.Options{Store: "mongodb://host/app", Engine: eng})
	for _, tc := range []struct {
		before string
		want   []string
		typed  int
	}{
		{"db.users.find({na", []string{"name"}, 2},
		{"db.users.find({n", []string{"name", "nick"}, 1},
		{"db.users.updateOne({_id: 1}, {$set: {addr", []string{"address", "address.city"}, 4},
		{"db.users.find({'tags.", []string{"tags.k"}, 5},
		{"db.nope.find({x", nil, 1},
	} {
		got, n := sh.Completions(tc.before)
		if !slices.Equal(got, tc.want) || n != tc.typed {
			t.Errorf("Completions(%q) = %q, %d; want %q, %d", tc.before, got, n, tc.want, tc.typed)
		}
	}
}

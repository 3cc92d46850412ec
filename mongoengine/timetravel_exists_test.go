package mongoengine

import (
	"context"
	"testing"

	"github.com/omgdb/omgdb/query/errs"
)

// TestHadCollection: HadCollection says yes exactly where a read at the
// revision finds the collection (ScanAt, through At), and no where that
// read is NotFound: a collection created through omgdb after the
// revision, one dropped or renamed before it, the name a rename took, a
// name never used, omgdb's own collections; yes for a collection dropped
// or renamed since, and for one dropped by hand after an omgdb insert
// into it (read from the journal alone), even at a revision before it
// was made by hand (omgdb's journal does not know when: writes around
// omgdb are seen as they are now).
func TestHadCollection(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	snapshot(t, d, "h0")
	insertJournaled(t, d, "ha", `{"_id":1,"n":{"$numberLong":"1"}}`, `{"_id":2,"n":null}`)
	insertJournaled(t, d, "hb", `{"_id":1}`)
	snapshot(t, d, "h1")
	if _, err := d.Drop(ctx, "ha", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Rename(ctx, "hb", "hc", false, "test"); err != nil {
		t.Fatal(err)
	}
	snapshot(t, d, "h2")
	// hd: made around omgdb, then an omgdb insert, then dropped by hand.
	if _, err := d.db.Collection("hd").InsertOne(ctx, map[string]any{"_id": 1}); err != nil {
		t.Fatal(err)
	}
	snapshot(t, d, "h3")
	insertJournaled(t, d, "hd", `{"_id":2}`)
	if err := d.db.Collection("hd").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		coll, rev string
		want      bool
	}{
		{"ha", "h0", false}, {"ha", "h1", true}, {"ha", "h2", false}, {"ha", "now", false},
		{"hb", "h1", true}, {"hb", "h2", false},
		{"hc", "h1", false}, {"hc", "h2", true}, {"hc", "now", true},
		{"hd", "h3", true}, {"hd", "h2", true}, {"hd", "now", false},
		{"never", "h1", false}, {"omgdb.changes", "h1", false}, {"system.views", "h0", false},
	}
	for _, c := range cases {
		rev, err := d.ResolveRevision(ctx, c.rev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.HadCollection(ctx, c.coll, rev)
		if err != nil || got != c.want {
			t.Errorf("HadCollection(%s, %s) = %v, %v; want %v", c.coll, c.rev, got, err, c.want)
		}
		readErr := countAtErr(d, c.rev, c.coll)
		if (readErr == nil) != c.want || readErr != nil && errs.KindOf(readErr) != errs.NotFound {
			t.Errorf("count %s at %s: %v; HadCollection says %v", c.coll, c.rev, readErr, c.want)
		}
	}
	for _, name := range namesOf(t, d) {
		if hidden(name) {
			rev, _ := d.ResolveRevision(ctx, "h1")
			if had, err := d.HadCollection(ctx, name, rev); had || err != nil {
				t.Errorf("HadCollection(%s) = %v, %v: omgdb's own collection", name, had, err)
			}
		}
	}
}

// namesOf lists every collection of the database, omgdb's own included.
func namesOf(t *testing.T, d *DB) []string {
	t.Helper()
	names, err := d.db.ListCollectionNames(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

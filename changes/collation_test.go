package changes_test

import (
	"context"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestCollation_Writes: plans and one-step writes match strings with the
// collation given (PlanOptions.Collation), else the collection's default
// (define), else binary; {"locale":"simple"} overrides the default; a bad
// collation is refused before anything is planned
// (jstests/core/collation.js: update, delete and findAndModify with a
// collation).
func TestCollation_Writes(t *testing.T) {
	ctx := context.Background()
	db := storetest.MustOpen(t)
	docs := []string{`{"_id":1,"s":"foo"}`, `{"_id":2,"s":"FOO"}`, `{"_id":3,"s":"bar"}`}
	storetest.Insert(t, db, "plain", docs...)
	storetest.Insert(t, db, "dflt", docs...)
	defineS2(t, db, "dflt")
	s2 := value.MustParse(`{"locale":"en_US","strength":2}`)
	simple := value.MustParse(`{"locale":"simple"}`)
	cases := []struct {
		coll  string
		coll2 value.Value
		want  int64
	}{
		{"plain", value.Value{}, 1},
		{"plain", s2, 2},
		{"dflt", value.Value{}, 2},
		{"dflt", simple, 1},
	}
	for _, c := range cases {
		po := &changes.PlanOptions{Collation: c.coll2}
		res, err := changes.PlanDelete(ctx, db, c.coll, value.MustParse(`{"s":"foo"}`), po)
		if err != nil || res.Matched != c.want {
			t.Errorf("PlanDelete %s collation %s: %v, %v; want %d matched", c.coll, c.coll2, res, err, c.want)
		}
		res, err = changes.PlanUpdate(ctx, db, c.coll, value.MustParse(`{"s":"FOO"}`), value.MustParse(`{"$set":{"x":1}}`), po)
		if err != nil || res.Matched != c.want {
			t.Errorf("PlanUpdate %s collation %s: %v, %v; want %d matched", c.coll, c.coll2, res, err, c.want)
		}
	}
	w, err := changes.Update(ctx, db, "dflt", value.MustParse(`{"s":"Foo"}`), value.MustParse(`{"$set":{"y":1}}`), nil)
	if err != nil || w.Matched != 2 || w.Modified != 2 {
		t.Errorf("Update under the default collation: %+v, %v; want 2 matched and modified", w, err)
	}
	w, err = changes.Delete(ctx, db, "dflt", value.MustParse(`{"s":"FOO"}`), nil)
	if err != nil || w.Deleted != 2 {
		t.Errorf("Delete under the default collation: %+v, %v; want 2 deleted", w, err)
	}
	_, err = changes.PlanDelete(ctx, db, "plain", value.MustParse(`{}`), &changes.PlanOptions{Collation: value.MustParse(`{"locale":"en","strength":0}`)})
	if err == nil {
		t.Error("PlanDelete took strength 0")
	}
}

// defineS2 gives collection coll the default collation en_US strength 2.
func defineS2(t *testing.T, db *store.DB, coll string) {
	t.Helper()
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection(coll)
		_, err := c.Define(value.MustParse(`{"collation":{"locale":"en_US","strength":2}}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

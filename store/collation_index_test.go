package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collIndex creates an index on fields ("a", "b:-1") with a collation
// ("" for none, `{"locale":"simple"}` for an explicit simple one).
func collIndex(t *testing.T, db *store.DB, name, fields, coll string) error {
	t.Helper()
	fs, err := store.ParseKeyPattern(fields)
	if err != nil {
		t.Fatal(err)
	}
	spec := store.BTreeSpec{Fields: fs}
	if coll != "" {
		c, err := collation.Parse(value.MustParse(coll))
		if err != nil {
			t.Fatal(err)
		}
		spec.SetCollation(c)
	}
	return db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection("c")
		if err != nil {
			c, _ = tx.Collection("c")
		}
		_, err = c.CreateIndex(store.BTreeIndex(name, spec))
		return err
	})
}

// fillers returns 300 documents (_id 1000 on) with the fields of format
// (given the _id), which make an index cheaper than a collection scan.
func fillers(format string) []string {
	var out []string
	for i := 1000; i < 1300; i++ {
		out = append(out, fmt.Sprintf(`{"_id":%d,`+format+`}`, i, i))
	}
	return out
}

// collQuery is a find with a collation ("" for none) and its plan.
type collQuery struct {
	filter, sort, coll string
}

func (cq collQuery) query(t *testing.T) store.Query {
	var coll *collation.Collation
	if cq.coll != "" {
		coll = collation.MustParse(cq.coll)
	}
	f, err := query.CompileFilterCollation(value.MustParse(cq.filter), coll)
	if err != nil {
		t.Fatal(err)
	}
	q := store.Query{Filter: f}
	if cq.sort != "" {
		if q.Sort, err = query.CompileSortCollation(value.MustParse(cq.sort), coll); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

// run returns the ids found, the index the planner chose ("" for a
// collection scan) and where the sort was done.
func (cq collQuery) run(t *testing.T, db *store.DB) (ids, index, sortBy string) {
	t.Helper()
	q := cq.query(t)
	docs, err := findJSON(db, q)
	if err != nil {
		t.Fatalf("%+v: %v", cq, err)
	}
	var out []string
	for _, d := range docs {
		out = append(out, value.MustParse(d).Get("_id").String())
	}
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ex, err := c.Explain(context.Background(), q, nil)
		index, sortBy = findIndexName(ex.Get("winningPlan")), ex.Get("sortBy").Str()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " "), index, sortBy
}

// TestCollation_IndexChoice ports the index cases of
// jstests/core/collation.js: an index with a collation serves string
// conditions only for a query with the same collation.
func TestCollation_IndexChoice(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":"foo"}`, `{"_id":2,"a":"FOO"}`, `{"_id":3,"a":"bar"}`, `{"_id":4,"a":5}`)
	storetest.Insert(t, db, "c", fillers(`"a":%d`)...)
	if err := collIndex(t, db, "a_fr", "a", `{"locale":"fr_CA"}`); err != nil {
		t.Fatal(err)
	}
	if err := collIndex(t, db, "a_en2", "a", `{"locale":"en_US","strength":2}`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q          collQuery
		ids, index string
	}{
		// "Query has simple collation, but index has fr_CA collation."
		{collQuery{`{"a":"foo"}`, ``, ``}, "1", ""},
		// "Query has en_US collation, but index has fr_CA collation."
		{collQuery{`{"a":"foo"}`, ``, `{"locale":"en_US"}`}, "1", ""},
		// "Matching collations."
		{collQuery{`{"a":"foo"}`, ``, `{"locale":"fr_CA"}`}, "1", "a_fr"},
		// "Find should return correct results when collation specified
		// and compatible index exists."
		{collQuery{`{"a":"FOO"}`, ``, `{"locale":"en_US","strength":2}`}, "1 2", "a_en2"},
		{collQuery{`{"a":{"$ne":"FOO","$type":"string"}}`, ``, `{"locale":"en_US","strength":2}`}, "3", ""},
		{collQuery{`{"a":{"$in":["FOO","BAR"]}}`, ``, `{"locale":"en_US","strength":2}`}, "1 2 3", "a_en2"},
		// A condition without strings may use an index of another
		// collation (merge_sort_collation.js).
		{collQuery{`{"a":{"$gte":5,"$lt":6}}`, ``, `{"locale":"en_US"}`}, "4", "a_en2"},
		{collQuery{`{"a":5}`, ``, ``}, "4", "a_en2"},
		// A regex on a collated index: no bounds from it.
		{collQuery{`{"a":{"$regex":"^f"}}`, ``, `{"locale":"en_US","strength":2}`}, "1", ""},
	}
	for _, c := range cases {
		ids, index, _ := c.q.run(t, db)
		if ids != c.ids || index != c.index {
			t.Errorf("%+v: ids %q index %q, want %q on %q", c.q, ids, index, c.ids, c.index)
		}
	}
}

// TestCollation_IndexSort ports jstests/core/query/collation/
// merge_sort_collation.js: a point query on an index's prefix and a sort
// on its suffix; the index gives the sort only under its own collation.
func TestCollation_IndexSort(t *testing.T) {
	cases := []struct {
		indexColl string
		q         collQuery
		ids, sort string
	}{
		{`{"locale":"en_US","strength":1}`, collQuery{`{"a":0}`, `{"b":1}`, ``}, "1 0 2", "memory"},
		{`{"locale":"en_US","strength":1}`, collQuery{`{"a":0}`, `{"b":1}`, `{"locale":"simple"}`}, "1 0 2", "memory"},
		{``, collQuery{`{"a":0}`, `{"b":1}`, `{"locale":"en_US","strength":1}`}, "1 2 0", "memory"},
		{`{"locale":"simple"}`, collQuery{`{"a":0}`, `{"b":1}`, `{"locale":"en_US","strength":1}`}, "1 2 0", "memory"},
		{`{"locale":"en_US","strength":5}`, collQuery{`{"a":0}`, `{"b":1}`, `{"locale":"en_US","strength":1}`}, "1 2 0", "memory"},
		{`{"locale":"en_US","strength":1}`, collQuery{`{"a":0,"b":{"$gte":"A","$lt":"D"}}`, `{"b":1}`, ``}, "1 0", "memory"},
		{`{"locale":"en_US","strength":1}`, collQuery{`{"a":0}`, `{"b":1}`, `{"locale":"en_US","strength":1}`}, "1 2 0", "index"},
		{`{"locale":"en_US","strength":1}`, collQuery{`{"a":0,"b":{"$gte":"A","$lt":"D"}}`, `{"b":1}`, `{"locale":"en_US","strength":1}`}, "1 2 0", "index"},
	}
	for _, c := range cases {
		db := storetest.MustOpen(t)
		storetest.Insert(t, db, "c", `{"_id":0,"a":0,"b":"CC"}`, `{"_id":1,"a":0,"b":"AA"}`, `{"_id":2,"a":0,"b":"bb"}`)
		storetest.Insert(t, db, "c", fillers(`"a":%d,"b":"x"`)...)
		if err := collIndex(t, db, "ab", "a,b", c.indexColl); err != nil {
			t.Fatal(err)
		}
		ids, index, sortBy := c.q.run(t, db)
		if ids != c.ids || index != "ab" || sortBy != c.sort {
			t.Errorf("index %s, %+v: ids %q index %q sort by %s; want %q on ab, sort by %s", c.indexColl, c.q, ids, index, sortBy, c.ids, c.sort)
		}
		db.Close()
	}
}

// TestCollation_DefaultAndUnique: a collection default collation
// (rules' "collation") applies to the indexes created after it, unless
// they give their own ({"locale":"simple"} included), as in
// jstests/core/collation.js; a unique index compares keys by its
// collation; Distinct keeps one of strings equal under the collation.
func TestCollation_DefaultAndUnique(t *testing.T) {
	db := storetest.MustOpen(t)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection("c")
		if err != nil {
			return err
		}
		_, err = c.Define(value.MustParse(`{"collation":{"locale":"en_US","strength":2}}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := collIndex(t, db, "inherits", "a", ""); err != nil {
		t.Fatal(err)
	}
	if err := collIndex(t, db, "own", "b", `{"locale":"simple"}`); err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if got := c.DefaultCollation().String(); !strings.Contains(got, `"strength":2`) {
			t.Errorf("DefaultCollation = %s", got)
		}
		for _, d := range c.Indexes() {
			spec, _ := store.ParseBTreeSpec(d)
			want := map[string]string{"inherits": `"locale":"en_US","caseLevel":false,"caseFirst":"off","strength":2`, "own": `{"locale":"simple"}`}[d.Name]
			if !strings.Contains(string(spec.Collation), want) {
				t.Errorf("index %s collation %s, want %s", d.Name, spec.Collation, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := collIndex(t, db, "u", "u", `{"locale":"en","strength":2}`); err != nil {
		t.Fatal(err)
	}
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		spec := store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true, Sparse: true}
		spec.SetCollation(collation.MustParse(`{"locale":"en","strength":2}`))
		if _, err := c.CreateIndex(store.BTreeIndex("k_unique", spec)); err != nil {
			return err
		}
		if _, err := c.Insert(value.MustParse(`{"_id":1,"k":"foo"}`)); err != nil {
			return err
		}
		_, err := c.Insert(value.MustParse(`{"_id":2,"k":"FOO"}`))
		if err == nil || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("a unique index with strength 2 took foo and FOO: %v", err)
		}
		return nil
	})
	if err != nil && !strings.Contains(err.Error(), "duplicate") {
		t.Fatal(err)
	}
	storetest.Insert(t, db, "c", `{"_id":10,"str":"foo"}`, `{"_id":11,"str":"FOO"}`)
	for coll, want := range map[string]int{`{"locale":"en_US","strength":2}`: 1, `{"locale":"en_US","strength":3}`: 2, ``: 2} {
		q := collQuery{`{}`, ``, coll}.query(t)
		err := db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			vals, err := c.Distinct(context.Background(), "str", q, 0)
			if len(vals) != want {
				t.Errorf("distinct str collation %s = %v, want %d values (jstests/core/collation.js)", coll, vals, want)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestCollation_ReverseIndex ports
// jstests/core/query/collation/collation_with_reverse_index.js: a
// descending compound index with a collation still returns the stored
// string.
func TestCollation_ReverseIndex(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"int":1,"text":"hello world"}`)
	if err := collIndex(t, db, "rev", "int:-1,text:-1", `{"locale":"en","strength":1}`); err != nil {
		t.Fatal(err)
	}
	q := collQuery{`{"int":1}`, ``, ``}.query(t)
	q.Projection, _ = query.CompileProjection(value.MustParse(`{"_id":0,"int":1,"text":1}`))
	q.Hint = "rev"
	got, err := findJSON(db, q)
	if err != nil || len(got) != 1 || got[0] != `{"int":1,"text":"hello world"}` {
		t.Fatalf("find = %v, %v", got, err)
	}
}

package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collReadCase is a count or distinct of jstests/core/collation.js
// ("Collation tests for count", "… for distinct"): on collection c with
// docs, a default collation dflt ("" for none) and an index (fields and
// collation, "" for none), the query's collation doc ("" for none: the
// default applies, as ResolveCollation gives it).
type collReadCase struct {
	name        string
	docs        []string
	dflt        string
	index, ixCo string
	filter, doc string
	field       string // distinct on field; "" counts
	want        string // the count, or the distinct values (JSON, ',' between)
	covered     bool   // the count is answered from the index alone (COUNT_SCAN)
}

func (c collReadCase) run(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	db := storetest.MustOpen(t)
	defer db.Close()
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		col, err := tx.CreateCollection("c")
		if err != nil || c.dflt == "" {
			return err
		}
		_, err = col.Define(value.MustParse(`{"collation":` + c.dflt + `}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.docs) > 0 {
		storetest.Insert(t, db, "c", c.docs...)
	}
	if c.index != "" {
		if err := collIndex(t, db, "ix", c.index, c.ixCo); err != nil {
			t.Fatal(err)
		}
	}
	var doc value.Value
	if c.doc != "" {
		doc = value.MustParse(c.doc)
	}
	var got string
	covered := false
	err = db.View(func(tx *store.Tx) error {
		col, err := tx.Collection("c")
		if err != nil {
			return err
		}
		cl, err := store.ResolveCollation(col, doc)
		if err != nil {
			return err
		}
		f, err := query.CompileFilterCollation(value.MustParse(c.filter), cl)
		if err != nil {
			return err
		}
		q := store.Query{Filter: f}
		if c.field == "" {
			n, err := col.CountQuery(ctx, q)
			got = value.LongValue(n).String()
			if err != nil {
				return err
			}
			_, covered, err = col.CountCovered(ctx, q)
			return err
		}
		vals, err := col.Distinct(ctx, c.field, q, 0)
		var out []string
		for _, v := range vals {
			out = append(out, v.String())
		}
		got = strings.Join(out, ",")
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if got != c.want || covered != c.covered {
		t.Errorf("%s: got %s (covered %v), want %s (covered %v)", c.name, got, covered, c.want, c.covered)
	}
}

// TestCollation_CountDistinct_JSTests ports the count and distinct cases
// of jstests/core/collation.js (each name quotes the comment of its case
// there; explain variants check the same counts). MongoDB's distinct
// returns one of the strings equal under the collation (the jstest
// lowercases it); omgdb keeps the first met in _id order.
func TestCollation_CountDistinct_JSTests(t *testing.T) {
	const s2, s3, simple = `{"locale":"en_US","strength":2}`, `{"locale":"en_US","strength":3}`, `{"locale":"simple"}`
	fooBar := []string{`{"_id":1,"str":"foo"}`, `{"_id":2,"str":"bar"}`}
	fooFOO := []string{`{"_id":1,"str":"foo"}`, `{"_id":2,"str":"FOO"}`}
	cases := []collReadCase{
		// Collation tests for count.
		{name: "Count should return correct results when collation specified and collection does not exist (empty)",
			filter: `{"str":"FOO"}`, doc: `{"locale":"en_US"}`, want: "0"},
		{name: "Count, collation specified and collection does exist: no collation", docs: fooBar, filter: `{"str":"FOO"}`, want: "0"},
		{name: "Count, collation specified and collection does exist: en_US", docs: fooBar, filter: `{"str":"FOO"}`, doc: `{"locale":"en_US"}`, want: "0"},
		{name: "Count, collation specified and collection does exist: en_US strength 2", docs: fooBar, filter: `{"str":"FOO"}`, doc: s2, want: "1"},
		{name: "Count should return correct results when no collation specified and collection has a default collation",
			docs: fooBar, dflt: s2, filter: `{"str":"FOO"}`, want: "1"},
		{name: "Count should return correct results when \"simple\" collation specified and collection has a default collation",
			docs: fooBar, dflt: s2, filter: `{"str":"FOO"}`, doc: simple, want: "0"},
		{name: "Should be able to use COUNT_SCAN for queries over strings (index inherits fr_CA)",
			docs: []string{`{"_id":1,"a":"foo"}`, `{"_id":2,"a":"FOO"}`}, dflt: `{"locale":"fr_CA"}`, index: "a",
			filter: `{"a":"foo"}`, want: "1", covered: true},
		{name: "Explain of COUNT_SCAN stage should include index collation (non-string bounds on an fr_CA index)",
			docs: []string{`{"_id":1,"a":5}`, `{"_id":2,"a":"5"}`}, index: "a", ixCo: `{"locale":"fr_CA"}`,
			filter: `{"a":5}`, want: "1", covered: true},
		{name: "(omgdb) a string range and $in under the index's collation are counted from the index",
			docs: []string{`{"_id":1,"a":"foo"}`, `{"_id":2,"a":"FOO"}`, `{"_id":3,"a":"bar"}`}, index: "a", ixCo: s2,
			filter: `{"a":{"$gt":"BAR","$lte":"foo"}}`, doc: s2, want: "2", covered: true},
		{name: "(omgdb) $in under the index's collation",
			docs: []string{`{"_id":1,"a":"foo"}`, `{"_id":2,"a":"FOO"}`, `{"_id":3,"a":"bar"}`}, index: "a", ixCo: s2,
			filter: `{"a":{"$in":["BAR","Foo"]}}`, doc: s2, want: "3", covered: true},
		{name: "Count over strings, index collation differs from the query's: no COUNT_SCAN",
			docs: fooFOO, index: "str", ixCo: `{"locale":"fr_CA"}`, filter: `{"str":"foo"}`, doc: s2, want: "2"},

		// Collation tests for distinct.
		{name: "Distinct should return correct results when collation specified and collection does not exist (empty)",
			field: "str", filter: `{}`, doc: s2, want: ""},
		{name: "Distinct, collation specified and no indexes exist: strength 2", docs: fooFOO, field: "str", filter: `{}`, doc: s2, want: `"foo"`},
		{name: "Distinct, collation specified and no indexes exist: strength 3", docs: fooFOO, field: "str", filter: `{}`, doc: s3, want: `"foo","FOO"`},
		{name: "Distinct, collation specified and no indexes exist: _id where str is foo", docs: fooFOO, field: "_id", filter: `{"str":"foo"}`, doc: s2, want: "1,2"},
		{name: "Distinct should return correct results when collation specified and compatible index exists",
			docs: fooFOO, index: "str", ixCo: s2, field: "str", filter: `{}`, doc: s2, want: `"foo"`},
		{name: "Distinct with a compatible index, strength 3", docs: fooFOO, index: "str", ixCo: s2, field: "str", filter: `{}`, doc: s3, want: `"foo","FOO"`},
		{name: "Distinct should return correct results when no collation specified and collection has a default collation",
			docs: fooFOO, dflt: s2, field: "str", filter: `{}`, want: `"foo"`},
		{name: "Distinct _id, no collation specified and collection has a default collation",
			docs: fooFOO, dflt: s2, field: "_id", filter: `{"str":"foo"}`, want: "1,2"},
		{name: "Distinct should return correct results when \"simple\" collation specified and collection has a default collation",
			docs: fooFOO, dflt: s2, field: "str", filter: `{}`, doc: simple, want: `"FOO","foo"`},
		{name: "Distinct _id, \"simple\" collation specified and collection has a default collation",
			docs: fooFOO, dflt: s2, field: "_id", filter: `{"str":"foo"}`, doc: simple, want: "1"},
		{name: "Distinct scan on strings over an index with a collation when the predicate has exact bounds",
			docs: []string{`{"_id":1,"a":"foo"}`, `{"_id":2,"a":"goo"}`, `{"_id":3,"a":"Hoo"}`, `{"_id":4,"a":3}`, `{"_id":5,"a":4}`},
			dflt: `{"locale":"en_US"}`, index: "a", field: "a", filter: `{"a":{"$gt":"foo"}}`, want: `"goo","Hoo"`},
		{name: "Distinct scan can be used without a fetch when predicate has exact non-string bounds",
			docs: []string{`{"_id":1,"a":"foo"}`, `{"_id":2,"a":"goo"}`, `{"_id":3,"a":"Hoo"}`, `{"_id":4,"a":3}`, `{"_id":5,"a":4}`},
			dflt: `{"locale":"en_US"}`, index: "a", field: "a", filter: `{"a":{"$gt":3}}`, want: "4"},
	}
	for _, c := range cases {
		c.run(t)
	}
}

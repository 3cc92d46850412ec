package changes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collWrite is one write case ported from jstests/core/collation.js
// (its sections "Collation tests for update", "… for remove", "… for
// findAndModify", "Tests for the bulk API" and "Tests for the CRUD API";
// name quotes the comment of the case there).
type collWrite struct {
	name   string
	dflt   bool     // the collection's rules set {"locale":"en_US","strength":2}
	docs   []string // default {_id:1,str:"foo"}, {_id:2,str:"foo"}
	op     string   // plan-update, plan-delete (then applied), update, replace, delete (one-step)
	filter string
	update string
	coll   string // the write's collation document; "" for none (plan-*)
	first  bool   // updateOne, deleteOne, findAndModify, replaceOne
	upsert bool
	// matched, modified and deleted (or upserted: 1 when an upsert
	// inserted) are the write's counts; after, when set, the collection
	// once the write is applied (documents in _id order, ';' between;
	// "(none)" for an empty collection; an ObjectId _id shows as "oid").
	matched, modified, deleted, upserted int64
	after                                string
}

// run makes a store for the case, writes, and checks the counts and the
// documents after.
func (c collWrite) run(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	db := storetest.MustOpen(t)
	defer db.Close()
	docs := c.docs
	if docs == nil {
		docs = []string{`{"_id":1,"str":"foo"}`, `{"_id":2,"str":"foo"}`}
	}
	storetest.Insert(t, db, "c", docs...)
	if c.dflt {
		defineS2(t, db, "c")
	}
	var collDoc value.Value
	if c.coll != "" {
		collDoc = value.MustParse(c.coll)
	}
	filter := value.MustParse(c.filter)
	var matched, modified, deleted, upserted int64
	switch c.op {
	case "plan-update", "plan-delete":
		po := &changes.PlanOptions{Collation: collDoc, First: c.first, Upsert: c.upsert}
		var p *changes.PlanResult
		var err error
		if c.op == "plan-update" {
			p, err = changes.PlanUpdate(ctx, db, "c", filter, value.MustParse(c.update), po)
		} else {
			p, err = changes.PlanDelete(ctx, db, "c", filter, po)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		matched, modified = p.Matched, p.Modified
		if p.UpsertedID != nil {
			upserted = 1
		}
		a, err := changes.Apply(ctx, db, p.Token, nil)
		if err != nil {
			t.Fatalf("%s: apply: %v", c.name, err)
		}
		if c.op == "plan-delete" {
			deleted, modified = a.Deleted, 0
		}
	default:
		if c.coll != "" {
			t.Fatalf("%s: one-step writes take the collection's collation only", c.name)
		}
		wo := &changes.WriteOptions{One: c.first, Upsert: c.upsert}
		var w *changes.WriteResult
		var err error
		switch c.op {
		case "update":
			w, err = changes.Update(ctx, db, "c", filter, value.MustParse(c.update), wo)
		case "replace":
			w, err = changes.Replace(ctx, db, "c", filter, value.MustParse(c.update), wo)
		case "delete":
			w, err = changes.Delete(ctx, db, "c", filter, wo)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		matched, modified, deleted, upserted = w.Matched, w.Modified, w.Deleted, w.Upserted
	}
	if c.op == "delete" || c.op == "plan-delete" {
		matched = c.matched // MongoDB counts only what a delete removes
	}
	if matched != c.matched || modified != c.modified || deleted != c.deleted || upserted != c.upserted {
		t.Errorf("%s: matched %d modified %d deleted %d upserted %d; want %d %d %d %d", c.name,
			matched, modified, deleted, upserted, c.matched, c.modified, c.deleted, c.upserted)
	}
	if c.after == "" {
		return
	}
	var got []string
	err := db.View(func(tx *store.Tx) error {
		col, err := tx.Collection("c")
		if err != nil {
			return err
		}
		cur := col.Scan()
		defer cur.Close()
		for cur.Next() {
			d := cur.Doc()
			if d.Get("_id").Kind() == value.ObjectID {
				d = value.MustParse(strings.Replace(d.String(), d.Get("_id").String(), `"oid"`, 1))
			}
			got = append(got, d.String())
		}
		return cur.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	g := strings.Join(got, ";")
	if g == "" {
		g = "(none)"
	}
	if g != c.after {
		t.Errorf("%s: after the write\n got %s\nwant %s", c.name, g, c.after)
	}
}

// TestCollation_Writes_JSTests ports the write cases of
// jstests/core/collation.js: updates, removes, findAndModify, and the
// bulk and CRUD API's updateOne, updateMany, replaceOne, deleteOne,
// deleteMany, findOneAnd*, each matching strings by the collation given
// (plan-update and plan-delete take one, then the plan is applied) or by
// the collection's default (define; the one-step writes and plans without
// one). The explain variants of MongoDB's cases are the plans' counts.
func TestCollation_Writes_JSTests(t *testing.T) {
	const s2, simple = `{"locale":"en_US","strength":2}`, `{"locale":"simple"}`
	fooBar := []string{`{"_id":1,"str":"foo"}`, `{"_id":2,"str":"bar"}`}
	one := []string{`{"_id":1,"str":"foo"}`}
	idFoo := []string{`{"_id":"foo"}`}
	set99 := `{"$set":{"other":99}}`
	cases := []collWrite{
		// Collation tests for update.
		{name: "Update should return correct results when collation specified", op: "plan-update",
			filter: `{"str":"FOO"}`, update: set99, coll: s2, matched: 2, modified: 2,
			after: `{"_id":1,"str":"foo","other":99};{"_id":2,"str":"foo","other":99}`},
		{name: "Update without the collation (strength 3) matches nothing", op: "plan-update",
			filter: `{"str":"FOO"}`, update: set99, coll: `{"locale":"en_US"}`,
			after: `{"_id":1,"str":"foo"};{"_id":2,"str":"foo"}`},
		{name: "Update should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: one, op: "update", filter: `{"str":"FOO"}`, update: set99, matched: 1, modified: 1},
		{name: "Update with idhack should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: idFoo, op: "update", filter: `{"_id":"FOO"}`, update: set99, matched: 1, modified: 1,
			after: `{"_id":"foo","other":99}`},
		{name: "Update should return correct results when \"simple\" collation specified and collection has a default collation",
			dflt: true, docs: one, op: "plan-update", filter: `{"str":"FOO"}`, update: set99, coll: simple},
		{name: "Update on _id should return correct results when \"simple\" collation specified and collection has a default collation",
			dflt: true, docs: idFoo, op: "plan-update", filter: `{"_id":"FOO"}`, update: set99, coll: simple},

		// Collation tests for remove.
		{name: "Remove should return correct results when collation specified (justOne)", op: "plan-delete",
			filter: `{"str":"FOO"}`, coll: s2, first: true, matched: 1, deleted: 1, after: `{"_id":2,"str":"foo"}`},
		{name: "Remove should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: one, op: "delete", filter: `{"str":"FOO"}`, first: true, matched: 1, deleted: 1, after: "(none)"},
		{name: "Remove with idhack should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: idFoo, op: "delete", filter: `{"_id":"FOO"}`, first: true, matched: 1, deleted: 1},
		{name: "Remove should return correct results when \"simple\" collation specified and collection has a default collation",
			dflt: true, docs: one, op: "plan-delete", filter: `{"str":"FOO"}`, coll: simple, first: true,
			after: `{"_id":1,"str":"foo"}`},
		{name: "Remove on _id should return correct results when \"simple\" collation specified and collection has a default collation",
			dflt: true, docs: idFoo, op: "plan-delete", filter: `{"_id":"FOO"}`, coll: simple, first: true,
			after: `{"_id":"foo"}`},

		// Collation tests for findAndModify.
		{name: "Update-findAndModify should return correct results when collation specified", docs: fooBar,
			op: "plan-update", filter: `{"str":"FOO"}`, update: `{"$set":{"str":"baz"}}`, coll: s2, first: true,
			matched: 1, modified: 1, after: `{"_id":1,"str":"baz"};{"_id":2,"str":"bar"}`},
		{name: "Explain of update-findAndModify should return correct results when collation specified", docs: fooBar,
			op: "plan-update", filter: `{"str":"BAR"}`, update: `{"$set":{"str":"baz"}}`, coll: s2, first: true,
			matched: 1, modified: 1},
		{name: "Delete-findAndModify should return correct results when collation specified", docs: fooBar,
			op: "plan-delete", filter: `{"str":"FOO"}`, coll: s2, first: true, matched: 1, deleted: 1,
			after: `{"_id":2,"str":"bar"}`},
		{name: "findAndModify should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: one, op: "update", filter: `{"str":"FOO"}`, update: `{"$set":{"x":1}}`, first: true,
			matched: 1, modified: 1, after: `{"_id":1,"str":"foo","x":1}`},
		{name: "findAndModify (remove) should return correct results when no collation specified and collection has a default collation",
			dflt: true, docs: one, op: "delete", filter: `{"str":"FOO"}`, first: true, matched: 1, deleted: 1, after: "(none)"},
		{name: "findAndModify should return correct results when \"simple\" collation specified and collection has a default collation",
			dflt: true, docs: one, op: "plan-update", filter: `{"str":"FOO"}`, update: `{"$set":{"x":1}}`, coll: simple, first: true},

		// Tests for the bulk API.
		{name: "bulk update()", op: "plan-update", filter: `{"str":"FOO"}`, update: set99, coll: s2, matched: 2, modified: 2},
		{name: "bulk updateOne()", op: "plan-update", filter: `{"str":"FOO"}`, update: set99, coll: s2, first: true,
			matched: 1, modified: 1, after: `{"_id":1,"str":"foo","other":99};{"_id":2,"str":"foo"}`},
		{name: "bulk replaceOne()", op: "plan-update", filter: `{"str":"FOO"}`, update: `{"str":"oof"}`, coll: s2, first: true,
			matched: 1, modified: 1, after: `{"_id":1,"str":"oof"};{"_id":2,"str":"foo"}`},
		{name: "bulk replaceOne() with upsert(), en_US: no match, an insert", op: "plan-update", filter: `{"str":"FOO"}`,
			// (a plan counts the inserted document among those it changes)
			update: `{"str":"foo"}`, coll: `{"locale":"en_US"}`, first: true, upsert: true, modified: 1, upserted: 1,
			after: `{"_id":1,"str":"foo"};{"_id":2,"str":"foo"};{"_id":"oid","str":"foo"}`},
		{name: "bulk replaceOne() with upsert(), en_US strength 2: a match, no insert", op: "plan-update", filter: `{"str":"FOO"}`,
			update: `{"str":"foo"}`, coll: s2, first: true, upsert: true, matched: 1,
			after: `{"_id":1,"str":"foo"};{"_id":2,"str":"foo"}`},
		{name: "bulk removeOne()", op: "plan-delete", filter: `{"str":"FOO"}`, coll: s2, first: true, matched: 1, deleted: 1},
		{name: "bulk remove()", op: "plan-delete", filter: `{"str":"FOO"}`, coll: s2, matched: 2, deleted: 2, after: "(none)"},

		// Tests for the CRUD API.
		{name: "deleteOne()", op: "plan-delete", filter: `{"str":"FOO"}`, coll: s2, first: true, matched: 1, deleted: 1},
		{name: "deleteMany()", op: "plan-delete", filter: `{"str":"FOO"}`, coll: s2, matched: 2, deleted: 2},
		{name: "findOneAndReplace()", docs: one, op: "plan-update", filter: `{"str":"FOO"}`, update: `{"str":"bar"}`,
			coll: s2, first: true, matched: 1, modified: 1, after: `{"_id":1,"str":"bar"}`},
		{name: "replaceOne()", op: "plan-update", filter: `{"str":"FOO"}`, update: `{"str":"bar"}`, coll: s2, first: true,
			matched: 1, modified: 1},
		{name: "updateMany()", op: "plan-update", filter: `{"str":"FOO"}`, update: set99, coll: s2, matched: 2, modified: 2},
		{name: "replaceOne() one-step on a collection with a default collation", dflt: true, op: "replace",
			filter: `{"str":"FOO"}`, update: `{"str":"bar"}`, matched: 1, modified: 1,
			after: `{"_id":1,"str":"bar"};{"_id":2,"str":"foo"}`},
		{name: "Two deleteOne ops with bulkWrite using different collations (fr strength 2)", docs: fooBar,
			op: "plan-delete", filter: `{"str":"FOO"}`, coll: `{"locale":"fr","strength":2}`, first: true,
			matched: 1, deleted: 1, after: `{"_id":2,"str":"bar"}`},
	}
	for _, c := range cases {
		c.run(t)
	}
}

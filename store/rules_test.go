package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

const userRules = `{"required":["name"],"fields":{
	"age":"long",
	"score":{"type":"number","min":0,"max":100},
	"status":{"type":"string","enum":["new","done"]},
	"email":{"type":"string","pattern":"^[^@]+@[^@]+$"},
	"address.city":["string","null"],
	"items.qty":{"type":"long","min":1}}}`

func TestRules_Check(t *testing.T) {
	rules, err := store.CompileRules(value.MustParse(userRules))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ doc, want string }{
		{`{"_id":1,"name":"ana","age":30,"score":99.5,"status":"new","email":"a@b","address":{"city":null},"items":[{"qty":2}]}`, ``},
		{`{"_id":1,"name":null}`, ``}, // present, and name has no type rule
		{`{"_id":2}`, "required field `name` is missing"},
		{`{"_id":3,"name":"x","age":"30"}`, "field `age` must be long, got string \"30\""},
		{`{"_id":4,"name":"x","age":30.0}`, "field `age` must be long, got double 30.0"},
		{`{"_id":5,"name":"x","score":-1}`, "field `score` must be at least 0, got -1"},
		{`{"_id":6,"name":"x","score":100.5}`, "field `score` must be at most 100, got 100.5"},
		{`{"_id":7,"name":"x","status":"gone"}`, "field `status` must be one of [\"new\",\"done\"], got \"gone\""},
		{`{"_id":8,"name":"x","email":"nope"}`, "field `email` must match /^[^@]+@[^@]+$/, got \"nope\""},
		{`{"_id":9,"name":"x","address":{"city":5}}`, "field `address.city` must be string or null, got long 5"},
		{`{"_id":10,"name":"x","items":[{"qty":1},{"qty":0}]}`, "field `items.qty` must be at least 1, got 0"},
		{`{"_id":11,"name":"x","address":"flat"}`, ``}, // no city inside a string
	}
	for _, c := range cases {
		err := rules.Check("users", value.MustParse(c.doc))
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, store.ErrRuleViolation) || errs.KindOf(err) != errs.Invalid {
				t.Errorf("%s: error %v is not an Invalid rule violation", c.doc, err)
			}
		}
		id := value.MustParse(c.doc).Get("_id")
		want := ""
		if c.want != "" {
			want = "document _id " + id.String() + " breaks the rules of collection `users`: " + c.want
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.doc, got, want)
		}
	}
}

func TestRules_CompileErrors(t *testing.T) {
	cases := map[string]string{
		`{"fields":{"age":"strin"}}`:       "invalid rules: field `age`: unknown type name `strin` (did you mean `string`?)",
		`{"fields":{"age":"integer"}}`:     "invalid rules: field `age`: unknown type name `integer`: integers are `int` (32 bits) or `long` (64 bits)",
		`{"requried":["a"]}`:               "invalid rules: unknown key `requried` (did you mean `required`?)",
		`{"fields":{"a":{"tpye":"long"}}}`: "invalid rules: field `a`: unknown key `tpye` (did you mean `type`?)",
		`{"fields":{"a":{"pattern":"("}}}`: "invalid rules: field `a`: pattern \"(\": error parsing regexp: missing closing ): `(`",
		`{"required":"name"}`:              "invalid rules: required must be a list of field names, got string",
		`{"fields":{"a":{"enum":[]}}}`:     "invalid rules: field `a`: enum must be a non-empty list of values",
		`[1]`:                              "invalid rules: rules must be an object such as {\"required\":[\"name\"],\"fields\":{\"age\":\"long\"}}, got array",
		`{"fields":{"a..b":"long"}}`:       "invalid rules: field \"a..b\": index field path `a..b` has an empty component",
	}
	for spec, want := range cases {
		_, err := store.CompileRules(value.MustParse(spec))
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", spec, err, want)
		}
	}
}

func define(t *testing.T, db *store.DB, coll, rules string) *store.DefineReport {
	t.Helper()
	var rep *store.DefineReport
	err := db.Update(store.Change{Kind: "define"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		rep, err = c.Define(value.MustParse(rules))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRules_EnforcedOnEveryWrite(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"name":"ana","age":"old"}`)
	rep := define(t, db, "users", `{"required":["name"],"fields":{"age":"long"}}`)
	if rep.Checked != 1 || rep.Violations != 1 || len(rep.Examples) != 1 || !strings.Contains(rep.Examples[0], "must be long") {
		t.Errorf("define report = %+v", rep)
	}
	write := func(fn func(c *store.Collection) error) error {
		return db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("users")
			return fn(c)
		})
	}
	bad := value.MustParse(`{"_id":2,"age":3}`)
	if err := write(func(c *store.Collection) error { _, err := c.Insert(bad); return err }); !errors.Is(err, store.ErrRuleViolation) {
		t.Errorf("insert: %v", err)
	}
	if err := write(func(c *store.Collection) error { _, err := c.InsertJSON([]byte(`{"_id":2,"age":3}`)); return err }); !errors.Is(err, store.ErrRuleViolation) {
		t.Errorf("insert JSON: %v", err)
	}
	if err := write(func(c *store.Collection) error { return c.Replace(value.LongValue(1), value.MustParse(`{"age":4}`)) }); !errors.Is(err, store.ErrRuleViolation) {
		t.Errorf("replace: %v", err)
	}
	sum, err := db.Import(context.Background(), "users", strings.NewReader("{\"_id\":3,\"name\":\"b\"}\n{\"_id\":4}\n"), &store.ImportOptions{Skip: true})
	if err != nil || sum.Inserted != 1 || sum.Skipped != 1 {
		t.Errorf("import: %+v %v", sum, err)
	}
	if n := count(t, db, "users"); n != 2 {
		t.Errorf("count = %d, want 2", n)
	}
	// The rules survive reopening, are journaled, and can be cleared.
	var ops []string
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if c.Rules() == nil || c.Rules().Spec().String() != `{"required":["name"],"fields":{"age":"long"}}` {
			t.Errorf("rules = %v", c.Rules())
		}
		return tx.Journal(0, func(r *store.Record) (bool, error) {
			for _, op := range r.Ops {
				if op.Op == store.OpDefine {
					ops = append(ops, op.Rules.String())
				}
			}
			return true, nil
		})
	})
	if len(ops) != 1 || ops[0] != `{"required":["name"],"fields":{"age":"long"}}` {
		t.Errorf("journaled define ops = %v", ops)
	}
	define(t, db, "users", `{}`)
	if err := write(func(c *store.Collection) error { _, err := c.Insert(bad); return err }); err != nil {
		t.Errorf("insert after clearing the rules: %v", err)
	}
}

func TestApplySpec(t *testing.T) {
	db := storetest.MustOpen(t)
	spec := `{"collections":{"users":{"required":["name"],"fields":{"age":"long"},"indexes":["email",{"fields":"age:-1,name","unique":true}]},"logs":{}}}`
	var rep *store.SpecReport
	err := db.Update(store.Change{}, func(tx *store.Tx) (err error) {
		rep, err = tx.ApplySpec(value.MustParse(spec))
		return err
	})
	if err != nil || strings.Join(rep.Collections, ",") != "users,logs" || strings.Join(rep.Indexes, ",") != "users.email_1,users.age_-1_name_1" {
		t.Fatalf("ApplySpec = %+v, %v", rep, err)
	}
	// Again over documents: the indexes that exist, or repeat one given
	// before, are skipped; the others are built (in one scan).
	storetest.Insert(t, db, "users", `{"_id":1,"name":"a","email":"a@x","age":3,"city":"P"}`, `{"_id":2,"name":"b","age":4}`)
	spec = `{"collections":{"users":{"indexes":["email","age","city,age",{"fields":"age:1"},{"fields":"city,age","unique":true}]}}}`
	err = db.Update(store.Change{}, func(tx *store.Tx) (err error) {
		rep, err = tx.ApplySpec(value.MustParse(spec))
		return err
	})
	if err != nil || strings.Join(rep.Indexes, ",") != "users.age_1,users.city_1_age_1" {
		t.Fatalf("ApplySpec over documents = %+v, %v", rep, err)
	}
	storetest.MustVerify(t, db)
	for spec, want := range map[string]string{
		`{}`:                                       "spec must contain a 'collections' object",
		`{"collections":[]}`:                       "spec must contain a 'collections' object",
		`{"collections":{},"colections":{}}`:       "spec: unknown key `colections` (did you mean `collections`?)",
		`{"collections":{"u":{"field":{}}}}`:       "spec: collection `u`: unknown key `field` (did you mean `fields`?)",
		`{"collections":{"u":{"fields":{"a":1}}}}`: "spec: collection `u`: invalid rules: field `a`: a type is a name such as \"long\", got 1",
		`{"collections":{"u":{"indexes":[1]}}}`:    "spec: collection `u`: index must be a string or an object, got long",
	} {
		err := db.Update(store.Change{}, func(tx *store.Tx) error { _, err := tx.ApplySpec(value.MustParse(spec)); return err })
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", spec, err, want)
		}
	}
}

// TestRules_Validator: a MongoDB validator ({"$jsonSchema":…} or query
// operators) refuses the documents that do not match it, on every write,
// and define reports the stored documents that break it
// (after jstests/core/query/json_schema/json_schema.js's createCollection
// with a validator).
func TestRules_Validator(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":1,"b":"x"}`, `{"_id":2,"a":"s"}`)
	rep := define(t, db, "c", `{"validator":{"$jsonSchema":{"required":["a"],"properties":{"a":{"bsonType":"number"},"b":{"minLength":1}}}}}`)
	if rep.Violations != 1 {
		t.Errorf("define found %d violations, want 1: %+v", rep.Violations, rep)
	}
	err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.MustParse(`{"_id":3,"b":""}`))
		return err
	})
	if !errors.Is(err, store.ErrRuleViolation) || !strings.Contains(err.Error(), "does not match the validator") || errs.KindOf(err) != errs.Invalid {
		t.Fatalf("insert breaking the validator: %v", err)
	}
	err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.MustParse(`{"_id":4,"a":2.5,"b":"y"}`))
		return err
	})
	if err != nil {
		t.Fatalf("insert matching the validator: %v", err)
	}
	define(t, db, "c", `{"validator":{"a":{"$gte":2}}}`)
	err = db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.MustParse(`{"_id":5,"a":1}`))
		return err
	})
	if !errors.Is(err, store.ErrRuleViolation) {
		t.Fatalf("a query-operator validator: %v", err)
	}
	for _, bad := range []string{`{"validator":1}`, `{"validator":{"$jsonSchema":{"type":"integer"}}}`, `{"validator":{"a":{"$frob":1}}}`} {
		if _, err := store.CompileRules(value.MustParse(bad)); err == nil || !strings.Contains(err.Error(), "validator") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

package mongoengine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// openWrite opens the engine on a database of its own on the test server.
func openWrite(t *testing.T) *DB {
	_, uri := mongotest.Start(t)
	target, err := Resolve(uri, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(context.Background(), target, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestPrecondition_Server runs the filter a write goes through against a
// document that another writer changed between omgdb's exact read and
// its write: each change below must make the write match nothing. The
// last case is the documented limit: a field added in that window is
// seen only by the exact read (checkBefore), not by the filter.
func TestPrecondition_Server(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	c := d.db.Collection("docs")
	beforeJS := `{"_id":1,"a":1,"b":[1,2],"c":null,"d":{"x":1},"s":"x","l":{"$numberLong":"9007199254740993"}}`
	before := input(beforeJS)
	cases := []struct {
		name    string
		change  bson.M // an update applied around omgdb; nil: none
		matches bool
	}{
		{"unchanged", nil, true},
		{"int_to_long_same_value", bson.M{"$set": bson.M{"a": int64(1)}}, false},
		{"int_to_double_same_value", bson.M{"$set": bson.M{"a": 1.0}}, false},
		{"value", bson.M{"$set": bson.M{"a": int32(2)}}, false},
		{"array_appended", bson.M{"$push": bson.M{"b": int32(3)}}, false},
		{"array_reordered", bson.M{"$set": bson.M{"b": bson.A{int32(2), int32(1)}}}, false},
		{"array_to_scalar_element", bson.M{"$set": bson.M{"b": int32(1)}}, false},
		{"null_to_missing", bson.M{"$unset": bson.M{"c": ""}}, false},
		{"null_to_value", bson.M{"$set": bson.M{"c": int32(0)}}, false},
		{"subdocument_field_added", bson.M{"$set": bson.M{"d.y": int32(2)}}, false},
		{"string", bson.M{"$set": bson.M{"s": "y"}}, false},
		{"long_beyond_double", bson.M{"$set": bson.M{"l": int64(9007199254740992)}}, false},
		{"field_added_is_a_known_limit", bson.M{"$set": bson.M{"z": int32(1)}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.DeleteMany(ctx, bson.D{}); err != nil {
				t.Fatal(err)
			}
			doc, _ := docToBSON(before)
			if _, err := c.InsertOne(ctx, doc); err != nil {
				t.Fatal(err)
			}
			if tc.change != nil {
				if _, err := c.UpdateOne(ctx, bson.M{"_id": int32(1)}, tc.change); err != nil {
					t.Fatal(err)
				}
			}
			f, err := precondition(before)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.ReplaceOne(ctx, f, bson.D{{Key: "_id", Value: int32(1)}, {Key: "written", Value: true}})
			if err != nil {
				t.Fatalf("replace with %v: %v", f, err)
			}
			if got := r.MatchedCount == 1; got != tc.matches {
				t.Errorf("precondition %v matched %v, want %v", f, got, tc.matches)
			}
		})
	}
}

// TestApply_TypesSurvive plans, applies and rolls back an update of a
// document holding every BSON type the test server stores: the images
// in omgdb.plan_items and the documents written keep each type exactly.
func TestApply_TypesSurvive(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	js := `{"_id":{"$oid":"665f1c2e9b1d4a0c8e7f6a5b"},"i":1,"l":{"$numberLong":"9007199254740993"},"d":2.5,` +
		`"dt":{"$date":{"$numberLong":"1704164645678"}},"bin":{"$binary":{"base64":"AQI=","subType":"04"}},` +
		`"ts":{"$timestamp":{"t":1,"i":2}},"re":{"$regularExpression":{"pattern":"a.b","options":"i"}},` +
		`"arr":[1,{"$numberLong":"2"},3.5,null,{"k":true}],"n":null,"o":{"z":1,"a":2}}`
	orig := input(js)
	doc, _ := docToBSON(orig)
	if _, err := d.db.Collection("t").InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	spec := &PlanSpec{Collection: "t", Filter: input(`{}`), Update: input(`{"$set":{"added":{"$numberLong":"7"}}}`)}
	var err error
	if spec.Compiled, err = compileForTest(spec.Update); err != nil {
		t.Fatal(err)
	}
	p, err := d.PlanUpdate(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := d.LoadPlan(ctx, p.Token)
	if err != nil || len(stored.Items) != 1 || !sameDoc(stored.Items[0].Before, orig) {
		t.Fatalf("stored plan %+v (%v): before-image differs from %s", stored, err, js)
	}
	res, err := d.Apply(ctx, p.Token, nil)
	if err != nil || res.Updated != 1 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	want := input(js[:len(js)-1] + `,"added":{"$numberLong":"7"}}`)
	if got := readOne(t, d, "t"); !sameDoc(got, want) {
		t.Errorf("after apply:\n%s\nwant\n%s", value.AppendJSON(nil, got), value.AppendJSON(nil, want))
	}
	if _, err := d.Rollback(ctx, p.Token, nil); err != nil {
		t.Fatal(err)
	}
	if got := readOne(t, d, "t"); !sameDoc(got, orig) {
		t.Errorf("after rollback:\n%s\nwant\n%s", value.AppendJSON(nil, got), js)
	}
}

func readOne(t *testing.T, d *DB, coll string) value.Value {
	t.Helper()
	raw, err := d.db.Collection(coll).FindOne(context.Background(), bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	v, err := fromDoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func compileForTest(spec value.Value) (*query.Update, error) { return query.CompileUpdate(spec, nil) }

// input parses Extended JSON as a user's input: a plain integer is an int.
func input(s string) value.Value {
	v, err := value.ParseInput([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// TestApplyRollback_Property plans random updates of random documents
// (ints, longs, doubles, strings, booleans, null, dates, arrays,
// subdocuments, missing fields), applies them and rolls them back: after the apply
// each document must be exactly the plan's after-image, and after the
// rollback exactly what it was, field order and types included.
func TestApplyRollback_Property(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	scalar := func() string {
		switch r.IntN(7) {
		case 0:
			return fmt.Sprint(r.IntN(100) - 50)
		case 1:
			return fmt.Sprintf(`{"$numberLong":"%d"}`, r.Int64N(1<<62)-(1<<61))
		case 2:
			return fmt.Sprintf("%d.5", r.IntN(100))
		case 3:
			return fmt.Sprintf(`"s%d"`, r.IntN(5))
		case 4:
			return "null"
		case 5:
			return `true`
		}
		return fmt.Sprintf(`{"$date":{"$numberLong":"%d"}}`, r.Int64N(1e12))
	}
	updates := []func() string{
		func() string { return `{"$set":{"a":` + scalar() + `}}` },
		func() string { return `{"$inc":{"n":` + []string{"1", `{"$numberLong":"1"}`, "0.5"}[r.IntN(3)] + `}}` },
		func() string { return `{"$unset":{"b":""}}` },
		func() string { return `{"$push":{"arr":` + scalar() + `}}` },
		func() string { return `{"$set":{"o.x":` + scalar() + `,"o.y":[` + scalar() + `]}}` },
		func() string { return `{"$mul":{"n":2.5}}` },
		func() string { return `{"$set":{"c":"x"},"$min":{"n":` + scalar() + `}}` },
		func() string { return `{"$rename":{"a":"z"}}` },
	}
	for iter := 0; iter < 8; iter++ {
		coll := fmt.Sprintf("p%d", iter)
		var docs []any
		var orig []value.Value
		for i := 0; i < 6; i++ {
			js := fmt.Sprintf(`{"_id":%d`, i)
			for _, f := range []string{"a", "b"} {
				if r.IntN(4) > 0 {
					js += `,"` + f + `":` + scalar()
				}
			}
			if r.IntN(4) > 0 {
				js += `,"n":` + []string{"7", `{"$numberLong":"9007199254740993"}`, "-2.25"}[r.IntN(3)]
			}
			if r.IntN(2) == 0 {
				js += `,"arr":[` + scalar() + `,` + scalar() + `]`
			}
			if r.IntN(2) == 0 {
				js += `,"o":{"x":` + scalar() + `}`
			}
			v := input(js + "}")
			orig = append(orig, v)
			b, _ := docToBSON(v)
			docs = append(docs, b)
		}
		if _, err := d.db.Collection(coll).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		upd := updates[r.IntN(len(updates))]()
		spec := &PlanSpec{Collection: coll, Filter: input(fmt.Sprintf(`{"_id":{"$gte":%d}}`, r.IntN(4))), Update: input(upd)}
		var err error
		if spec.Compiled, err = compileForTest(spec.Update); err != nil {
			t.Fatalf("%s: %v", upd, err)
		}
		p, err := d.PlanUpdate(ctx, spec)
		if err != nil {
			t.Errorf("iteration %d: %s refused: %v", iter, upd, err)
			continue
		}
		if _, err := d.Apply(ctx, p.Token, nil); err != nil {
			t.Fatalf("apply %s: %v", upd, err)
		}
		want := map[string]value.Value{}
		for _, o := range orig {
			want[string(value.AppendJSON(nil, o.Get("_id")))] = o
		}
		for _, it := range p.Items {
			want[string(value.AppendJSON(nil, it.ID))] = it.After
		}
		checkColl(t, d, coll, want, "after "+upd)
		if len(p.Items) > 0 {
			if _, err := d.Rollback(ctx, p.Token, nil); err != nil {
				t.Fatalf("rollback %s: %v", upd, err)
			}
		}
		for _, o := range orig {
			want[string(value.AppendJSON(nil, o.Get("_id")))] = o
		}
		checkColl(t, d, coll, want, "after rolling back "+upd)
	}
}

// checkColl compares every document of coll with want (by _id), exactly.
func checkColl(t *testing.T, d *DB, coll string, want map[string]value.Value, when string) {
	t.Helper()
	n := 0
	err := d.Find(context.Background(), coll, &engine.Find{}, func(v value.Value) error {
		n++
		w := want[string(value.AppendJSON(nil, v.Get("_id")))]
		if !sameDoc(v, w) {
			t.Errorf("%s: got %s, want %s", when, value.AppendJSON(nil, v), value.AppendJSON(nil, w))
		}
		return nil
	})
	if err != nil || n != len(want) {
		t.Errorf("%s: %d documents (%v), want %d", when, n, err, len(want))
	}
}

// TestSavePlan_IndexesItems: the items' collection has the {plan, seq}
// index apply looks each item up by.
func TestSavePlan_IndexesItems(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	b, _ := docToBSON(input(`{"_id":1,"a":1}`))
	if _, err := d.db.Collection("t").InsertOne(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := d.PlanDelete(ctx, &PlanSpec{Collection: "t", Filter: input(`{}`)}); err != nil {
		t.Fatal(err)
	}
	ixs, err := d.db.Collection(PlanItemsColl).Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ix := range ixs {
		keys = append(keys, ix.KeysDocument.String())
	}
	if len(keys) != 2 || !strings.Contains(keys[1], `"plan"`) || !strings.Contains(keys[1], `"seq"`) {
		t.Errorf("indexes of %s: %v, want _id and {plan, seq}", PlanItemsColl, keys)
	}
}

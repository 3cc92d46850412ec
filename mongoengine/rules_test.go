package mongoengine

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

// TestNoValidators tells a server without collMod or validators (whose
// rules omgdb alone then checks) from a refusal that must stop a define.
func TestNoValidators(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{mongo.CommandError{Code: 238, Name: "NotImplemented", Message: "`collMod` command is not implemented yet"}, true}, // FerretDB v1.24.2
		{mongo.CommandError{Code: 59, Name: "CommandNotFound"}, true},
		{mongo.CommandError{Code: 115, Name: "CommandNotSupported"}, true},
		{mongo.CommandError{Code: 2, Name: "BadValue", Message: "$jsonSchema keyword 'x' is not currently supported"}, false},
		{mongo.CommandError{Code: 13, Name: "Unauthorized"}, false},
		{errors.New("connection reset"), false},
		{nil, false},
	}
	for _, c := range cases {
		if got := noValidators(c.err); got != c.want {
			t.Errorf("noValidators(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestDefine_Inverse: a define step is undone by a define of the rules it
// replaced, none included.
func TestDefine_Inverse(t *testing.T) {
	s := step{Op: stepDefine, Coll: "c", Spec: defineSpec(`{"required":["a"]}`, "")}
	inv := inverse(s, "aside")
	if inv.Op != stepDefine || inv.Coll != "c" || !inv.Spec.Get("after").IsMissing() || inv.Spec.Get("before").Str() != `{"required":["a"]}` {
		t.Errorf("inverse = %+v", inv)
	}
	if back := inverse(inv, "aside"); back.Spec.String() != s.Spec.String() {
		t.Errorf("inverse of the inverse = %v, want %v", back.Spec, s.Spec)
	}
}

// TestDefine_Engine defines rules through the engine on FerretDB: the
// report counts the documents that break them (int, long, double, null
// against missing), the server's refusal of collMod is the note, every
// write path refuses a breaking document with the file's error
// (rules.ErrViolation, Invalid), and Rollback gives the old rules back.
func TestDefine_Engine(t *testing.T) {
	ctx := context.Background()
	d := openWrite(t)
	seedColl(t, d, "c")
	res, err := d.Define(ctx, "c", value.MustParse(`{"fields":{"n":"long","z":["null","string"]}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Checked != 3 || res.Report.Violations != 0 || res.ServerEnforces || res.Note == "" {
		t.Fatalf("define: %+v %+v", res, res.Report)
	}
	strict, err := d.Define(ctx, "c", value.MustParse(`{"required":["z"],"fields":{"n":"int","d":"number"}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	// _id 1 has z: null (present); _id 2 has no z; "s" has no z and a long n.
	if strict.Report.Checked != 3 || strict.Report.Violations != 2 || len(strict.Report.Examples) != 2 {
		t.Fatalf("strict define: %+v", strict.Report)
	}
	breaks := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, rules.ErrViolation) || errs.KindOf(err) != errs.Invalid {
			t.Errorf("%s: error %v, want a rule violation", what, err)
		}
	}
	in, err := d.NewInserter("c", KindInsert, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, n, bad, err := in.Insert(ctx, []value.Value{value.MustParse(`{"_id":5,"z":"a","n":{"$numberInt":"1"}}`), value.MustParse(`{"_id":6,"z":"a","d":"x"}`)})
	breaks("insert", err)
	if n != 1 || bad != 1 {
		t.Errorf("insert: %d written, bad %d; want 1 written, the second bad", n, bad)
	}
	if _, err := in.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = d.PlanUpdate(ctx, &PlanSpec{Collection: "c", Filter: value.MustParse(`{"_id":5}`), Update: value.MustParse(`{"$set":{"n":{"$numberLong":"2"}}}`), Compiled: mustCompile(t, `{"$set":{"n":{"$numberLong":"2"}}}`)})
	breaks("plan", err)
	ip, err := d.NewImportPlan(&ImportSpec{Collection: "c", Mode: ModeMerge})
	if err != nil {
		t.Fatal(err)
	}
	_, _, bad, err = ip.Insert(ctx, []value.Value{value.MustParse(`{"_id":5,"d":null}`)})
	breaks("import merge", err)
	if bad != 0 {
		t.Errorf("import merge: bad %d, want 0", bad)
	}
	if _, err := d.Rollback(ctx, strict.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	r, err := d.Rules(ctx, "c")
	if err != nil || r == nil || r.Spec().String() != `{"fields":{"n":"long","z":["null","string"]}}` {
		t.Fatalf("rules after rollback: %v, %v", r, err)
	}
}

// TestCheckItems_Numbers checks plan items against rules kept in the
// deployment, for each numeric type against int, long and number (a
// decimal128 is checked here, before anything is sent, since FerretDB
// cannot store one), arrays, and null against missing.
func TestCheckItems_Numbers(t *testing.T) {
	ctx := context.Background()
	d := openWrite(t)
	if _, err := d.Define(ctx, "c", value.MustParse(`{"fields":{"i":"int","l":"long","n":"number","a":["array","null"]}}`), "test"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		doc string
		ok  bool
	}{
		{`{"_id":1,"i":{"$numberInt":"1"},"l":{"$numberInt":"1"},"n":{"$numberInt":"1"}}`, true},
		{`{"_id":1,"l":{"$numberLong":"1"},"n":{"$numberLong":"1"}}`, true},
		{`{"_id":1,"n":{"$numberDouble":"1.5"}}`, true},
		{`{"_id":1,"n":{"$numberDecimal":"1.5"}}`, true},
		{`{"_id":1,"a":null}`, true},
		{`{"_id":1,"a":[1,"x",null]}`, true},
		{`{"_id":1}`, true}, // missing: no rule applies
		{`{"_id":1,"i":{"$numberLong":"1"}}`, false},
		{`{"_id":1,"i":{"$numberDouble":"1"}}`, false},
		{`{"_id":1,"l":{"$numberDecimal":"1"}}`, false},
		{`{"_id":1,"l":{"$numberDouble":"1"}}`, false},
		{`{"_id":1,"n":"1"}`, false},
		{`{"_id":1,"n":[1]}`, false},
		{`{"_id":1,"a":{"x":1}}`, false},
	}
	for _, c := range cases {
		err := d.checkItems(ctx, "c", []Item{{ID: value.IntValue(1), Op: OpInsert, After: value.MustParse(c.doc)}})
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, rules.ErrViolation)) {
			t.Errorf("%s: error %v, want ok %v", c.doc, err, c.ok)
		}
	}
	// A deletion stores nothing: never checked.
	if err := d.checkItems(ctx, "c", []Item{{ID: value.IntValue(1), Op: OpDelete, Before: value.MustParse(`{"_id":1,"i":"x"}`)}}); err != nil {
		t.Errorf("a deletion was checked: %v", err)
	}
}

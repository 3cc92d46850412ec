package mongoengine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// schemaDocs are typed documents: int, long, double, null against
// missing, arrays and a nested document.
const schemaDocs = `{"_id":1,"n":1,"l":{"$numberLong":"9007199254740993"},"d":1.5,"z":null,"a":[1,"x",{"k":2}]}
{"_id":2,"n":2,"d":{"$numberDouble":"2.0"},"o":{"p":[]}}
{"_id":"s","n":{"$numberLong":"3"}}`

// dumpColl is every document of coll in _id order, canonical Extended
// JSON (each type named), one per line.
func dumpColl(t *testing.T, d *DB, coll string) string {
	t.Helper()
	var out []string
	err := d.Find(context.Background(), coll, &engine.Find{}, func(v value.Value) error {
		out = append(out, canonical(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

func seedColl(t *testing.T, d *DB, coll string) string {
	t.Helper()
	var docs []value.Value
	for _, l := range strings.Split(schemaDocs, "\n") {
		docs = append(docs, input(l))
	}
	if _, err := d.InsertMany(context.Background(), coll, docs); err != nil {
		t.Fatal(err)
	}
	return dumpColl(t, d, coll)
}

func mustKind(t *testing.T, err error, kind errs.Kind, sub string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != kind || !strings.Contains(err.Error(), sub) {
		t.Fatalf("error = %v, want a %s error containing %q", err, kind, sub)
	}
}

// TestSchema_DropRollback drops a typed collection with a unique index:
// it is gone from the collections, kept aside, journaled; rollback brings
// back every document type for type and the index; rolling the rollback
// back drops it again.
func TestSchema_DropRollback(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	want := seedColl(t, d, "users")
	if _, err := d.CreateIndexes(ctx, "users", []value.Value{input(`{"key":{"n":1},"unique":true}`)}, "test"); err != nil {
		t.Fatal(err)
	}
	res, err := d.Drop(ctx, "users", "test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Documents != 3 || res.Indexes != 1 || res.Aside != DroppedPrefix+res.ChangeID {
		t.Fatalf("drop result = %+v", res)
	}
	if has, _ := d.HasCollection(ctx, "users"); has {
		t.Fatal("users still exists after the drop")
	}
	names, _ := d.Collections(ctx)
	if len(names) != 0 {
		t.Fatalf("collections after drop = %v, want none (the aside one hidden)", names)
	}
	err = d.Find(ctx, "users", &engine.Find{}, func(value.Value) error { return nil })
	mustKind(t, err, errs.NotFound, "collection `users` not found")
	hist, err := d.History(ctx, "users", 1)
	if err != nil || len(hist) != 1 || hist[0].Kind != KindDrop || hist[0].Status != StatusApplied || hist[0].Deleted != 3 || hist[0].Note != "drop users" {
		t.Fatalf("history = %+v, %v", hist, err)
	}
	rb, err := d.Rollback(ctx, res.ChangeID, &ApplyOptions{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpColl(t, d, "users"); got != want {
		t.Fatalf("after rollback:\n%s\nwant:\n%s", got, want)
	}
	ixs, _ := d.Indexes(ctx, "users")
	if len(ixs) != 2 || ixs[1].Name != "n_1" || !ixs[1].Unique {
		t.Fatalf("indexes after rollback = %+v", ixs)
	}
	if _, err := d.Rollback(ctx, res.ChangeID, nil); err == nil || !strings.Contains(err.Error(), "already rolled back") {
		t.Fatalf("second rollback: %v", err)
	}
	if _, err := d.Rollback(ctx, rb.ChangeID, &ApplyOptions{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if has, _ := d.HasCollection(ctx, "users"); has {
		t.Fatal("rolling back the rollback did not drop users again")
	}
}

// TestSchema_RenameRollback renames, with and without dropTarget, and
// rolls back: the documents move type for type; the dropped target comes
// back; a taken name and a rename to itself are refused, changing
// nothing.
func TestSchema_RenameRollback(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	want := seedColl(t, d, "a")
	if _, err := d.InsertMany(ctx, "b", []value.Value{input(`{"_id":9,"b":true}`)}); err != nil {
		t.Fatal(err)
	}
	_, err := d.Rename(ctx, "a", "b", false, "test")
	mustKind(t, err, errs.Conflict, "collection `b` already exists")
	_, err = d.Rename(ctx, "a", "a", false, "test")
	mustKind(t, err, errs.Invalid, "to itself")
	_, err = d.Rename(ctx, "a", "omgdb.x", false, "test")
	mustKind(t, err, errs.Invalid, "not one omgdb writes")
	_, err = d.Rename(ctx, "nope", "c", false, "test")
	mustKind(t, err, errs.NotFound, "collection `nope` not found")
	res, err := d.Rename(ctx, "a", "c", false, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpColl(t, d, "c"); got != want || res.Documents != 3 {
		t.Fatalf("renamed: %s (%+v)", got, res)
	}
	if _, err := d.Rollback(ctx, res.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	if got := dumpColl(t, d, "a"); got != want {
		t.Fatalf("after rollback: %s", got)
	}
	res, err = d.Rename(ctx, "a", "b", true, "test")
	if err != nil {
		t.Fatal(err)
	}
	if res.DroppedTarget == nil || *res.DroppedTarget != 1 || dumpColl(t, d, "b") != want {
		t.Fatalf("rename over b: %+v %s", res, dumpColl(t, d, "b"))
	}
	if _, err := d.Rollback(ctx, res.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	if dumpColl(t, d, "a") != want || dumpColl(t, d, "b") != `{"_id":{"$numberInt":"9"},"b":true}` {
		t.Fatalf("after rollback: a=%s b=%s", dumpColl(t, d, "a"), dumpColl(t, d, "b"))
	}
}

// TestSchema_IndexRollback creates indexes and drops them, each rolled
// back; a duplicate name, a missing index, the _id index and a unique
// index the data breaks are refused, leaving no index and no change.
func TestSchema_IndexRollback(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	seedColl(t, d, "c")
	res, err := d.CreateIndexes(ctx, "c", []value.Value{input(`{"key":{"n":1,"d":-1}}`), input(`{"key":{"a":1},"name":"by_a","unique":true}`)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.IndexNames, ",") != "n_1_d_-1,by_a" {
		t.Fatalf("names = %v", res.IndexNames)
	}
	_, err = d.CreateIndexes(ctx, "c", []value.Value{input(`{"key":{"x":1},"name":"by_a"}`)}, "test")
	mustKind(t, err, errs.Conflict, "index `by_a` already exists on collection `c`")
	// The documents hold n 1, 2 and a long 3 (equal keys across types
	// would collide): make two equal, then a unique index on n fails.
	if _, err := d.db.Collection("c").UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: int64(1)}}}}); err != nil {
		t.Fatal(err)
	}
	before, _ := d.History(ctx, "", 0)
	_, err = d.CreateIndexes(ctx, "c", []value.Value{input(`{"key":{"n":1},"unique":true,"name":"u"}`)}, "test")
	mustKind(t, err, errs.Conflict, "cannot create unique index `u` on `c`: some documents have the same key")
	if has, _ := d.hasIndex(ctx, "c", "u"); has {
		t.Fatal("the refused unique index exists")
	}
	if after, _ := d.History(ctx, "", 0); len(after) != len(before) {
		t.Fatalf("a refused index left a change: %d -> %d", len(before), len(after))
	}
	_, err = d.DropIndex(ctx, "c", "_id_", value.Value{}, "test")
	mustKind(t, err, errs.Invalid, "cannot drop the _id index")
	_, err = d.DropIndex(ctx, "c", "by_b", value.Value{}, "test")
	mustKind(t, err, errs.NotFound, "no index `by_b` on collection `c` (did you mean `by_a`?)")
	drop, err := d.DropIndex(ctx, "c", "x", input(`{"a":1}`), "test")
	if err != nil || drop.IndexNames[0] != "by_a" {
		t.Fatalf("drop by key: %+v %v", drop, err)
	}
	if has, _ := d.hasIndex(ctx, "c", "by_a"); has {
		t.Fatal("by_a still exists")
	}
	if _, err := d.Rollback(ctx, drop.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	ixs, _ := d.Indexes(ctx, "c")
	if len(ixs) != 3 || ixs[1].Name != "by_a" || !ixs[1].Unique {
		t.Fatalf("indexes after rolling back the drop: %+v", ixs)
	}
	if _, err := d.Rollback(ctx, res.ChangeID, nil); err != nil {
		t.Fatal(err)
	}
	if ixs, _ := d.Indexes(ctx, "c"); len(ixs) != 1 {
		t.Fatalf("indexes after rolling back the create: %+v", ixs)
	}
}

// TestSchema_InterruptedDrop is a drop killed between its rename and
// its journal's mark (status applying, done 0, the collection aside):
// rollback sees the rename done and brings the collection back; killed
// before the rename, rollback leaves the whole collection as it is.
func TestSchema_InterruptedDrop(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	want := seedColl(t, d, "k")
	for _, renamed := range []bool{true, false} {
		sc := &schemaChange{id: bson.NewObjectID(), kind: KindDrop, coll: "k", note: "drop k", actor: "test"}
		sc.steps = []step{{Op: stepRename, Coll: "k", To: DroppedPrefix + sc.id.Hex()}}
		interrupted := *sc
		interrupted.steps = nil // journal it, carry out nothing
		if err := d.runSchema(ctx, &interrupted); err != nil {
			t.Fatal(err)
		}
		doc, _ := stepDoc(sc.steps[0])
		d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: sc.id}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplying}, {Key: "ops", Value: bson.A{doc}}}}})
		if renamed {
			if err := d.runStep(ctx, sc.steps[0]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Rollback(ctx, sc.id.Hex(), nil); err != nil {
			t.Fatalf("renamed=%v: %v", renamed, err)
		}
		if got := dumpColl(t, d, "k"); got != want {
			t.Fatalf("renamed=%v: after rollback %s", renamed, got)
		}
	}
}

// TestSchema_StepRefusedUndoes: a step the server refuses undoes the
// steps before it and leaves no change: two indexes of which the second
// is a unique index the documents break, and a change whose second
// rename has no source.
func TestSchema_StepRefusedUndoes(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	seedColl(t, d, "c")
	if _, err := d.db.Collection("c").UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: int32(1)}}}}); err != nil {
		t.Fatal(err)
	}
	want := dumpColl(t, d, "c")
	_, err := d.CreateIndexes(ctx, "c", []value.Value{input(`{"key":{"d":1}}`), input(`{"key":{"n":1},"unique":true}`)}, "test")
	mustKind(t, err, errs.Conflict, "cannot create unique index `n_1` on `c`")
	if ixs, _ := d.Indexes(ctx, "c"); len(ixs) != 1 {
		t.Fatalf("indexes after the refused pair: %+v (d_1 must be undone)", ixs)
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindRename, coll: "c", note: "test", actor: "test",
		steps: []step{{Op: stepRename, Coll: "c", To: "c2"}, {Op: stepRename, Coll: "nope", To: "c3"}}}
	if err := d.runSchema(ctx, sc); err == nil {
		t.Fatal("a rename of a missing collection passed")
	}
	if got := dumpColl(t, d, "c"); got != want {
		t.Fatalf("c after the refused change: %s", got)
	}
	if hist, _ := d.History(ctx, "", 0); len(hist) != 0 {
		t.Fatalf("refused changes left %d journal entries", len(hist))
	}
}

// TestSchema_JournalOrder: a schema change takes its seq as every change
// does, so history lists it in the order it was made (newest first), and
// log after it.
func TestSchema_JournalOrder(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	p := planInc(t, d, "ordered", 2)
	if _, err := d.Apply(ctx, p.Token, &ApplyOptions{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	drop, err := d.Drop(ctx, "ordered", "test")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := d.History(ctx, "", 0)
	if err != nil || len(hist) != 2 || hist[0].ID != drop.ChangeID || hist[1].ID != p.Token || hist[0].Seq <= hist[1].Seq {
		t.Fatalf("history %+v, %v: want the drop first, with the greater seq", hist, err)
	}
}

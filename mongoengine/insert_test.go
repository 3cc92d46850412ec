package mongoengine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// findAll is every document of coll in _id order, as canonical JSON.
func findAll(t *testing.T, d *DB, coll string) string {
	t.Helper()
	var out []string
	err := d.Find(context.Background(), coll, &engine.Find{}, func(v value.Value) error {
		out = append(out, string(value.AppendJSON(nil, v)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

// TestInserter_TypesDuplicateRollback inserts typed documents in two
// batches (int, long, double, null, arrays, nested documents; one
// without _id), then a batch refused at its second document: the first is
// written, the summary says so, and Rollback removes exactly the
// documents the change inserted.
func TestInserter_TypesDuplicateRollback(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	ins, err := d.NewInserter("items", KindImport, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewInserter("omgdb.changes", KindImport, "test"); err == nil {
		t.Fatal("an inserter into omgdb.changes was made")
	}
	batch1 := []value.Value{input(`{"_id":1,"i":{"$numberInt":"1"},"l":{"$numberLong":"1"},"d":1.5,"n":null,"a":[1,{"$numberLong":"2"},null,{"e":[]}]}`),
		input(`{"x":{"y":{"$numberInt":"-2147483648"}}}`)}
	ids, n, bad, err := ins.Insert(ctx, batch1)
	if err != nil || n != 2 || bad != -1 || ids[0].Long() != 1 || ids[1].Kind() != value.ObjectID {
		t.Fatalf("first batch: ids %v, n %d, bad %d, %v", ids, n, bad, err)
	}
	_, n, bad, err = ins.Insert(ctx, []value.Value{input(`{"_id":3}`), input(`{"_id":1}`), input(`{"_id":4}`)})
	if n != 1 || bad != 1 || !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), "duplicate _id 1 in collection `items`") {
		t.Fatalf("second batch: n %d, bad %d, %v", n, bad, err)
	}
	res, err := ins.Close(ctx)
	if err != nil || res.Inserted != 3 || res.ChangeID == "" {
		t.Fatalf("close: %+v, %v", res, err)
	}
	// omgdb's canonical JSON: an int is {"$numberInt"}, a long is bare.
	want := `{"_id":{"$numberInt":"1"},"i":{"$numberInt":"1"},"l":1,"d":1.5,"n":null,"a":[{"$numberInt":"1"},2,null,{"e":[]}]}` + "\n" +
		`{"_id":{"$numberInt":"3"}}` + "\n" + `{"_id":{"$oid":"` + ids[1].OID().Hex() + `"},"x":{"y":{"$numberInt":"-2147483648"}}}`
	if got := findAll(t, d, "items"); got != want {
		t.Errorf("documents:\n%s\nwant:\n%s", got, want)
	}
	hist, err := d.History(ctx, "items", 0)
	if err != nil || len(hist) != 1 || hist[0].Kind != KindImport || hist[0].Inserted != 3 || hist[0].Status != StatusApplied {
		t.Fatalf("history: %+v %v", hist, err)
	}
	var ch bson.M
	if err := d.db.Collection(ChangesColl).FindOne(ctx, bson.M{}).Decode(&ch); err != nil || len(ch["pending"].(bson.A)) != 0 {
		t.Errorf("pending after close: %v %v", ch["pending"], err)
	}
	if _, err := d.db.Collection("items").InsertOne(ctx, bson.M{"_id": 99}); err != nil {
		t.Fatal(err)
	}
	rb, err := d.Rollback(ctx, res.ChangeID, nil)
	if err != nil || rb.Deleted != 3 || len(rb.Conflicts) != 0 {
		t.Fatalf("rollback: %+v %v", rb, err)
	}
	if got := findAll(t, d, "items"); got != `{"_id":{"$numberInt":"99"}}` {
		t.Errorf("after the rollback: %s; want only the document written around omgdb", got)
	}
}

// TestInserter_NothingWritten: an inserter whose only batch is refused
// at its first document, or that is never given one, leaves no change.
func TestInserter_NothingWritten(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	ins, _ := d.NewInserter("items", KindInsert, "test")
	if _, _, _, err := ins.Insert(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := ins.Close(ctx); err != nil || res.ChangeID != "" {
		t.Fatalf("empty inserter: %+v %v", res, err)
	}
	if _, err := d.db.Collection("items").InsertOne(ctx, bson.M{"_id": 1}); err != nil {
		t.Fatal(err)
	}
	ins, _ = d.NewInserter("items", KindInsert, "test")
	if _, n, bad, err := ins.Insert(ctx, []value.Value{input(`{"_id":1}`)}); n != 0 || bad != 0 || !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("refused insert: n %d bad %d %v", n, bad, err)
	}
	if res, err := ins.Close(ctx); err != nil || res.ChangeID != "" || res.Inserted != 0 {
		t.Fatalf("close after a refused insert: %+v %v", res, err)
	}
	for _, c := range []string{ChangesColl, PlansColl, PlanItemsColl} {
		if n, err := d.db.Collection(c).CountDocuments(ctx, bson.M{}); err != nil || n != 0 {
			t.Errorf("%s holds %d documents after an insert that wrote nothing (%v)", c, n, err)
		}
	}
}

// TestInserter_UniqueIndexNotID: a document refused by a unique index
// other than _id's is reported as breaking a unique index, never as a
// duplicate _id, even from a server whose message does not name the index
// (FerretDB's); a taken _id is still a duplicate _id.
func TestInserter_UniqueIndexNotID(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	if _, err := d.db.Collection("u").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	ins, err := d.NewInserter("u", KindImport, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, n, bad, err := ins.Insert(ctx, []value.Value{input(`{"_id":1,"email":"a"}`), input(`{"_id":2,"email":"a"}`)})
	if n != 1 || bad != 1 || err == nil || !strings.Contains(err.Error(), "the document with _id 2 in collection `u` breaks a unique index") {
		t.Fatalf("unique index: n %d, bad %d, %v", n, bad, err)
	}
	_, n, bad, err = ins.Insert(ctx, []value.Value{input(`{"_id":1,"email":"b"}`)})
	if n != 0 || bad != 0 || err == nil || !strings.Contains(err.Error(), "duplicate _id 1 in collection `u`") {
		t.Fatalf("taken _id: n %d, bad %d, %v", n, bad, err)
	}
	if _, err := ins.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
